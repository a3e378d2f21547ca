"""The graph's Qt-free side: what it draws, built on a thread or in a child process."""
