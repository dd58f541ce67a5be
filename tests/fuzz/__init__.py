"""Differential fuzzing of the whole pipeline (see `campaign.py`)."""
