"""Shared pytest configuration (and the torch tests' fresh-compiler fixture).

Hypothesis runs without deadlines (the machine may be loaded) and, under CI
(`CI=true`), derandomized so a run is reproducible; locally it explores new
examples each run.
"""

import os

import pytest
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


@pytest.fixture
def fresh_torch_compiler():
    """TorchDynamo's caches and the ge backend's counters empty around a test
    (`pytestmark = pytest.mark.usefixtures("fresh_torch_compiler")`)."""
    import torch

    from ge_xdsl.torch_backend import STATS

    torch._dynamo.reset()
    STATS.reset()
    yield
    torch._dynamo.reset()
