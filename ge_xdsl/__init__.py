"""GE-xDSL from Python."""
