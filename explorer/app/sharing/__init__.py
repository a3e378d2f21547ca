"""What leaves the program: exports, redaction, hand-backs to agents, safe file writes."""
