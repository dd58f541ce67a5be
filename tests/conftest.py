"""Shared pytest configuration.

Hypothesis runs without deadlines (the machine may be loaded) and, under CI
(`CI=true`), derandomized so a run is reproducible; locally it explores new
examples each run.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "ci", parent=settings.get_profile("default"), derandomize=True
)
settings.load_profile("ci" if os.environ.get("CI") else "default")
