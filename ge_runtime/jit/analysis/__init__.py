"""The JIT's loop analysis, shared by every emitter (it writes no code)."""
