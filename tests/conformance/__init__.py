"""ONNX's backend node suite run through `ge-atc` and `ge-run` (see `suite.py`)."""
