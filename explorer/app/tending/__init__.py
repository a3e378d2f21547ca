"""Changing the tree as undoable actions: branch, fork, checkpoint, archive, delete, merge,
undo, redo.
"""
