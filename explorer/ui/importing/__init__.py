"""Imports in the window: the dialog, drops, the worker, finding sources, following a live
session.
"""
