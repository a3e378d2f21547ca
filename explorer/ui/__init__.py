"""The desktop app: the only layer that imports Qt."""
