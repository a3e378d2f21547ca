"""What a reader sees of a conversation: tree marks, tended paths, agents' messages."""
