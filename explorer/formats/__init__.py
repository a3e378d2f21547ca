"""Importers and exporters: one package per format family, writers in ``exporters``.

Where a new format goes is in README.md beside this file.
"""
