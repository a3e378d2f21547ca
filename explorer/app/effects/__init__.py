"""What an agent did to files on a branch, rebuilt from its tool calls, and branches compared."""
