"""The window's tree and tending actions: branch, fork, checkpoint, archive, replay, fan-out."""
