"""What the model sees at a node, what it costs, and compacting it (/compact, /shake, /context)."""
