"""Sessions written by a small script per agent, from the agent's own code or its stores'
observed layout, for agents whose client cannot run here; each ``<agent>/manifest.json``
says so and names what it was written from."""
