"""Model calls from the window: send, rerun, regenerate, and the questions before a run."""
