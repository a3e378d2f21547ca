"""Use-cases shared by the command line and the desktop app."""
