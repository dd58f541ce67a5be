"""Shared pytest configuration (and the torch tests' fresh-compiler fixture).

Hypothesis runs without deadlines (the machine may be loaded) and, under CI
(`CI=true`), derandomized so a run is reproducible; locally it explores new
examples each run.
"""

import os
from pathlib import Path

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


AICPU_TILE = Path(__file__).parent / "filecheck" / "inputs" / "aicpu_tile.json"
"""A user op-info file placing ge.tile on AI CPU without bfloat16: the AI CPU
op of the engine tests (the built-in Tile is an AI Core op)."""


@pytest.fixture
def aicpu_tile():
    """ge.tile on AI CPU during a test (`pytest.mark.usefixtures("aicpu_tile")`);
    the built-in record comes back afterwards."""
    from ge_dialect.opinfo import find_op_info, load_opinfo_file, register_op_info

    builtin = find_op_info("ge.tile")
    assert builtin is not None
    load_opinfo_file(AICPU_TILE)
    yield
    register_op_info(builtin)


SMOKE_MODULES = frozenset(
    {
        "test_dialect",
        "test_formats",
        "test_builder",
        "test_infer_origin_format",
        "test_shape_inference",
        "test_format_passes",
        "test_transop_passes",
        "test_running_formats",
        "test_fusion",
        "test_reference",
        "test_lowering",
        "test_jit",
        "test_memory",
        "test_streams",
        "test_offline_model",
        "test_onnx_import",
        "test_tf_import",
        "test_ge_atc",
        "test_facade",
        "test_docs",
        "test_bad_inputs",
        "test_startup",
    }
)
"""The modules `-m smoke` samples: the IR, the format passes, lowering and the
JIT, the front ends, the tools, the docs and the bad-input corpus."""

SMOKE_SKIPS = frozenset(
    {
        # whole models (AlexNet, SqueezeNet, Inception) through every stage
        "test_light_model_two_streams_match_one_stream",
        "test_small_light_model_folded_and_fused_keeps_its_output",
        "test_light_models_keep_their_outputs",
        "test_light_model_plan_is_valid_and_tight",
        "test_light_model_outputs_unchanged_by_the_plan",
        "test_light_models_match_onnxruntime",
        "test_dump_graph_writes_ir_and_picture_per_stage",
        "test_pipeline_statistics_and_print_between_passes",
        "test_facade_compiles_tensorflow_files_and_graph_defs",
        "test_attention_block_compiles_and_matches_tensorflow",
        # long hypothesis searches
        "test_random_graphs_match_ges_descriptors",
        "test_pass_plans_are_race_free_and_every_event_is_needed",
    }
)
"""Test functions of `SMOKE_MODULES` left out of `-m smoke`: each takes over
10 s of CPU, and a cheaper test of the same module covers its code."""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark `smoke` the first case of each test function of `SMOKE_MODULES`
    that is neither `slow` nor in `SMOKE_SKIPS`: every behaviour they test,
    once (`pytest -m smoke`)."""
    seen: set[tuple[str, str]] = set()
    for item in items:
        module = item.module.__name__.rpartition(".")[2] if item.module else ""
        if module not in SMOKE_MODULES or item.get_closest_marker("slow"):
            continue
        function = (module, getattr(item, "originalname", item.name))
        if function[1] not in SMOKE_SKIPS and function not in seen:
            seen.add(function)
            item.add_marker(pytest.mark.smoke)
