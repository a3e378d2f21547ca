"""The ``convo`` command line: the same operations as the app, without a display."""
