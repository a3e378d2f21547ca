"""A loopback model that speaks the providers' wire formats well enough to drive real agents.

It answers from a script written in the user's own words (see :mod:`.script`): a prompt
line ``TOOL:bash:ls`` makes the model call the agent's shell tool, and so on; otherwise it
answers in text. Anthropic Messages, OpenAI chat completions and Responses, and Gemini
``generateContent`` are spoken, streamed or not, with the providers' own errors for calls
and results that do not pair.
"""
