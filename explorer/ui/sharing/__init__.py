"""What leaves the window: exports, hand-backs to agents, the redaction switch."""
