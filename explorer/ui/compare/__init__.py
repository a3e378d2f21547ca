"""The compare window: branches in columns: its cells, headers, toolbar and actions."""
