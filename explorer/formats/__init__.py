"""Importers and exporters, one module per format; they yield plain records."""
