"""What a conversation cost: per branch, turn and model, measured where recorded (C5)."""
