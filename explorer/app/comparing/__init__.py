"""Branches side by side: columns, aligned turns, differences, labels."""
