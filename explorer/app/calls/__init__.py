"""Talking to models from the tree: send, edit and run, regenerate, replay, fan-out,
probes, quizzes.
"""
