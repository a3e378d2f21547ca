"""Views of big conversations derived once and kept in the file between opens."""
