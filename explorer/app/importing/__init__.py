"""Bringing conversations in: files, folders, zips, agents' homes, sync and follow."""
