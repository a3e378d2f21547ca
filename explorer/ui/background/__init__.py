"""Work off the main thread: the task runner, the ordered op runner, lanes, gates, memory."""
