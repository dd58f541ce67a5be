"""Tests of the format library (`ge_dialect.formats`).

Shape scenarios are GE's `transformer_transfer_shape_ut.cc` and
`transformer_expand_dims_ut.cc` (docs/research/ge_behaviour.md §3.5); GE's
platform table is the Ascend910 target, the seed rule the default target.
Data layouts are checked against element-wise references written from the
definitions, and by round-trip properties.
"""

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ge_dialect.dtype_names import canonical_dtype, element_bits
from ge_dialect.formats import (
    FORMAT_AXES,
    INTERNAL_FORMATS,
    ORIGIN_FORMATS,
    Format,
    FormatError,
    axis_index,
    default_reshape_type,
    expand_dims_by_mask,
    expand_dims_to_full_rank,
    full_rank,
    parse_format,
    reshape_type_from_mask,
    reshape_type_mask,
)
from ge_dialect.relayout import (
    check_storage_shape,
    convert,
    from_storage,
    storage_shape_is_valid,
    to_storage,
    transfer_shape,
)
from ge_dialect.targets import (
    Target,
    c0_for,
    get_target,
    known_targets,
    load_target,
    m0_for,
    n0_for,
    register_target_file,
)

ml_dtypes = pytest.importorskip("ml_dtypes")

F = Format
GE = "Ascend910"  # GE's platform DtypeMKN table


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def numbered(shape, dtype="float32") -> np.ndarray:
    """Distinct nonzero values (as far as the dtype allows) in `shape`."""
    size = math.prod(shape)
    if dtype == "bool":
        return np.ones(shape, dtype=bool)
    modulus = {"int4": 7, "int8": 127, "uint8": 255, "bfloat16": 256}.get(dtype, 2000)
    values = np.arange(size) % modulus + 1
    if dtype == "int4":
        return values.astype(np.int8).reshape(shape)
    if dtype == "bfloat16":
        return values.astype(ml_dtypes.bfloat16).reshape(shape)
    return values.astype(dtype).reshape(shape)


# ---------------------------------------------------------------------------
# Format names and axes
# ---------------------------------------------------------------------------


def test_format_values_are_names():
    assert all(fmt.value == fmt.name for fmt in Format)
    assert set(ORIGIN_FORMATS) | set(INTERNAL_FORMATS) | {F.RESERVED} == set(Format)
    assert len(ORIGIN_FORMATS) == 8 and len(INTERNAL_FORMATS) == 8
    assert not set(ORIGIN_FORMATS) & set(INTERNAL_FORMATS)


@pytest.mark.parametrize(
    "name, expected",
    [
        ("NCHW", F.NCHW),
        ("nchw", F.NCHW),
        ("FORMAT_NC1HWC0", F.NC1HWC0),
        ("c1hwncoc0", F.C1HWNCoC0),
        (" fractal_z_3d ", F.FRACTAL_Z_3D),
        (F.FRACTAL_NZ, F.FRACTAL_NZ),
    ],
)
def test_parse_format(name, expected):
    assert parse_format(name) is expected


def test_parse_format_error_lists_valid_names():
    with pytest.raises(FormatError, match="unknown format 'NCWH'.*NC1HWC0"):
        parse_format("NCWH")
    with pytest.raises(FormatError, match="must be a string"):
        parse_format(3)


@pytest.mark.parametrize(
    "fmt, rank",
    [
        (F.ND, 4),
        (F.NCHW, 4),
        (F.NHWC, 4),
        (F.HWCN, 4),
        (F.CHWN, 4),
        (F.NCDHW, 5),
        (F.NDHWC, 5),
        (F.DHWCN, 5),
        (F.NC1HWC0, None),
        (F.FRACTAL_NZ, None),
        (F.RESERVED, None),
    ],
)
def test_full_rank(fmt, rank):
    assert full_rank(fmt) == rank
    assert full_rank(fmt.value.lower()) == rank


@pytest.mark.parametrize(
    "fmt, letter, index",
    [
        ("NCHW", "C", 1),
        ("HWCN", "N", 3),
        ("NDHWC", "D", 1),
        ("DHWCN", "C", 3),
        ("NC1HWC0", "C0", 4),
        ("NDC1HWC0", "C1", 2),
        ("C1HWNCoC0", "Co", 4),
    ],
)
def test_axis_index(fmt, letter, index):
    assert axis_index(fmt, letter) == index
    assert FORMAT_AXES[parse_format(fmt)][index] == letter


@pytest.mark.parametrize(
    "fmt, letter, message",
    [
        ("ND", "C", "no named axes"),
        ("FRACTAL_Z", "N1", "no named axes"),
        ("NCHW", "D", "no axis 'D'"),
    ],
)
def test_axis_index_errors(fmt, letter, message):
    with pytest.raises(FormatError, match=message):
        axis_index(fmt, letter)


# ---------------------------------------------------------------------------
# Dtypes
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dtype, name",
    [
        ("float16", "float16"),
        ("fp16", "float16"),
        ("DT_FLOAT", "float32"),
        ("DT_BF16", "bfloat16"),
        ("f32", "float32"),
        ("i1", "bool"),
        ("INT4", "int4"),
        ("ui8", "uint8"),
        (np.float32, "float32"),
        (np.dtype("int8"), "int8"),
        (np.bool_, "bool"),
        (np.uint64, "uint64"),
        (ml_dtypes.bfloat16, "bfloat16"),
    ],
)
def test_canonical_dtype(dtype, name):
    assert canonical_dtype(dtype) == name


@pytest.mark.parametrize(
    "dtype", ["complex64", np.complex64, "float8", "UNDEFINED", None]
)
def test_canonical_dtype_errors(dtype):
    with pytest.raises(FormatError, match="unsupported dtype.*supported: float16"):
        canonical_dtype(dtype)


@pytest.mark.parametrize(
    "dtype, bits",
    [("int4", 4), ("bool", 8), ("int8", 8), ("bfloat16", 16), ("float64", 64)],
)
def test_element_bits(dtype, bits):
    assert element_bits(dtype) == bits


# ---------------------------------------------------------------------------
# Targets: C0, M0, N0
# ---------------------------------------------------------------------------

SEED_C0 = {
    "float16": 16,
    "bfloat16": 16,
    "float32": 8,
    "float64": 4,
    "int8": 32,
    "uint8": 32,
    "int16": 16,
    "uint16": 16,
    "int32": 8,
    "uint32": 8,
    "int64": 4,
    "uint64": 4,
    "bool": 32,
    "int4": 64,
}


@pytest.mark.parametrize("dtype, c0", SEED_C0.items())
def test_default_target_follows_seed_rule(dtype, c0):
    assert c0_for(dtype) == c0
    assert c0_for(dtype, "default") == c0
    assert m0_for(dtype) == n0_for(dtype) == 16


@pytest.mark.parametrize(
    "target", ["Ascend910", "Ascend910B", "Ascend310", "Ascend310P"]
)
@pytest.mark.parametrize("dtype", SEED_C0)
def test_platform_tables(target, dtype):
    expected = {"int8": 32, "uint8": 32, "int4": 64}.get(dtype, 16)
    assert c0_for(dtype, target) == expected
    assert m0_for(dtype, target) == n0_for(dtype, target) == 16


@pytest.mark.parametrize(
    "name, canonical",
    [
        ("ascend910", "Ascend910"),
        ("ASCEND910B", "Ascend910B"),
        ("Ascend910A", "Ascend910"),
        ("ascend910b3", "Ascend910B"),
        ("Ascend310P3", "Ascend310P"),
        ("DEFAULT", "default"),
    ],
)
def test_target_names_are_case_insensitive_with_aliases(name, canonical):
    assert get_target(name).name == canonical


def test_known_targets():
    assert {"default", "Ascend910", "Ascend910B", "Ascend310", "Ascend310P"} <= set(
        known_targets()
    )


def test_unknown_target_lists_known_ones():
    with pytest.raises(FormatError, match="unknown target 'Ascend999'.*Ascend910"):
        c0_for("float16", "Ascend999")
    with pytest.raises(FormatError, match="unknown target"):
        transfer_shape((1, 3, 4, 4), "NCHW", "NC1HWC0", "float16", target="nope")


@pytest.mark.parametrize("dtype", ["float16", "float32", "int8", "int4"])
def test_format_forced_c0(dtype):
    assert c0_for(dtype, storage_format="NC1HWC0_C04") == 4
    assert c0_for(dtype, GE, storage_format=F.FRACTAL_Z_C04) == c0_for(dtype, GE)
    assert c0_for(dtype, storage_format=F.FRACTAL_Z_C04) == SEED_C0[dtype]


def test_register_target_file(tmp_path):
    path = tmp_path / "chip.json"
    path.write_text(
        json.dumps(
            {
                "name": "TestChipM1",
                "aliases": ["TestChipM1-Pro"],
                "dtype_mkn": {"default": [1, 16, 16], "int8": [1, 32, 16]},
            }
        )
    )
    target = register_target_file(path)
    assert get_target("testchipm1") is target is get_target("TESTCHIPM1-PRO")
    assert "TestChipM1" in known_targets()
    assert m0_for("float16", "TestChipM1") == 1
    assert c0_for("int8", "TestChipM1") == 32
    # GE's M0 = 1 scenario: ND [34] -> FRACTAL_NZ [1, 34, 1, 16].
    assert transfer_shape(
        (34,), "ND", "FRACTAL_NZ", "float16", target="TestChipM1"
    ) == (
        1,
        34,
        1,
        16,
    )


def test_load_target_does_not_register(tmp_path):
    path = tmp_path / "other.json"
    path.write_text(
        json.dumps({"name": "Unregistered", "dtype_mkn": {"default": [16, 8, 16]}})
    )
    target = load_target(path)
    assert isinstance(target, Target) and target.mkn("float16") == (16, 8, 16)
    assert c0_for("float16", target) == 8
    assert transfer_shape(
        (1, 9, 2, 2), "NCHW", "NC1HWC0", "float16", target=target
    ) == (
        1,
        2,
        2,
        2,
        8,
    )
    with pytest.raises(FormatError, match="unknown target"):
        get_target("Unregistered")


def test_target_k0_bytes_rule():
    target = Target.from_json(
        {"name": "Bytes64", "k0_bytes": 64, "dtype_mkn": {"default": [16, 16, 16]}}
    )
    assert target.mkn("float16") == (16, 32, 16)
    assert target.mkn("int8") == (16, 64, 16)


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "not valid JSON"),
        ("[]", "expected a JSON object"),
        ('{"dtype_mkn": {"default": [16, 16, 16]}}', "'name' must be"),
        ('{"name": "x", "dtype_mkn": {}}', "'default' entry"),
        ('{"name": "x", "dtype_mkn": {"default": [16, 16]}}', "positive ints"),
        ('{"name": "x", "dtype_mkn": {"default": [16, 0, 16]}}', "positive ints"),
        (
            '{"name": "x", "dtype_mkn": {"default": [1, 1, 1], "int3": [1, 1, 1]}}',
            "unknown dtype 'int3'",
        ),
        (
            '{"name": "x", "k0_bytes": -1, "dtype_mkn": {"default": [1, 1, 1]}}',
            "k0_bytes",
        ),
        (
            '{"name": "x", "socs": [], "dtype_mkn": {"default": [1, 1, 1]}}',
            "unknown key",
        ),
        (
            '{"name": "x", "aliases": "y", "dtype_mkn": {"default": [1, 1, 1]}}',
            "aliases",
        ),
    ],
)
def test_load_target_errors(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(FormatError, match=message):
        load_target(path)


def test_load_target_missing_file(tmp_path):
    with pytest.raises(FormatError, match="cannot read target file"):
        load_target(tmp_path / "missing.json")


# ---------------------------------------------------------------------------
# Shape transfer: GE's scenarios (§3.5)
# ---------------------------------------------------------------------------

TRANSFER_CASES = [
    # NCHW -> NC1HWC0 [8,512,5,5]
    ("NCHW", "NC1HWC0", "int8", (8, 512, 5, 5), (8, 16, 5, 5, 32)),
    ("NCHW", "NC1HWC0", "float16", (8, 512, 5, 5), (8, 32, 5, 5, 16)),
    ("NCHW", "NC1HWC0", "float32", (8, 512, 5, 5), (8, 32, 5, 5, 16)),
    ("NCHW", "NC1HWC0", "int16", (8, 512, 5, 5), (8, 32, 5, 5, 16)),
    ("NCHW", "NC1HWC0", "int32", (8, 512, 5, 5), (8, 32, 5, 5, 16)),
    ("NCHW", "NC1HWC0", "int4", (8, 512, 5, 5), (8, 8, 5, 5, 64)),
    # NC1HWC0_C04 is always C0 = 4
    ("NCHW", "NC1HWC0_C04", "float16", (8, 512, 5, 5), (8, 128, 5, 5, 4)),
    ("NCHW", "NC1HWC0_C04", "float32", (8, 512, 5, 5), (8, 128, 5, 5, 4)),
    ("NCHW", "NC1HWC0_C04", "int8", (8, 512, 5, 5), (8, 128, 5, 5, 4)),
    # FRACTAL_Z
    ("NCHW", "FRACTAL_Z", "float16", (48, 512, 5, 5), (800, 3, 16, 16)),
    ("NCHW", "FRACTAL_Z", "int8", (48, 512, 5, 5), (400, 3, 16, 32)),
    ("ND", "FRACTAL_Z", "float16", (48, 512, 5, 5), (800, 3, 16, 16)),
    ("ND", "FRACTAL_Z", "float16", (18, 34), (2, 3, 16, 16)),
    # FRACTAL_Z_C04
    ("NCHW", "FRACTAL_Z_C04", "float16", (48, 3, 5, 5), (7, 3, 16, 16)),
    ("NCHW", "FRACTAL_Z_C04", "int8", (48, 3, 5, 5), (4, 3, 16, 32)),
    # C1HWNCoC0
    ("NCHW", "C1HWNCoC0", "float16", (18, 512, 5, 5), (32, 5, 5, 2, 16, 16)),
    # 5-D
    ("NCDHW", "NDC1HWC0", "float16", (8, 512, 9, 5, 5), (8, 9, 32, 5, 5, 16)),
    ("NCDHW", "FRACTAL_Z_3D", "float16", (48, 512, 3, 5, 5), (2400, 3, 16, 16)),
    # 4-D origins -> NDC1HWC0 with D = 1
    ("NCHW", "NDC1HWC0", "float16", (4, 33, 7, 7), (4, 1, 3, 7, 7, 16)),
    ("NHWC", "NDC1HWC0", "float16", (4, 7, 7, 33), (4, 1, 3, 7, 7, 16)),
    ("HWCN", "NDC1HWC0", "float16", (7, 7, 33, 4), (4, 1, 3, 7, 7, 16)),
    # ND -> FRACTAL_NZ
    ("ND", "FRACTAL_NZ", "float16", (34,), (1, 3, 16, 16)),
    ("ND", "FRACTAL_NZ", "float16", (34, 1), (1, 3, 16, 16)),
    ("ND", "FRACTAL_NZ", "float32", (18, 34), (3, 2, 16, 16)),
    ("ND", "FRACTAL_NZ", "int8", (1, 18, 34), (1, 2, 2, 16, 32)),
    ("NCHW", "FRACTAL_NZ", "float16", (8, 1000), (63, 1, 16, 16)),
    ("ND", "FRACTAL_NZ", "float16", (-2,), (-2,)),
    # unknown dims stay unknown
    ("NCHW", "NC1HWC0", "float16", (-1, 512, 5, 5), (-1, 32, 5, 5, 16)),
    ("NCHW", "FRACTAL_Z", "float16", (-1, 33, 5, 5), (75, -1, 16, 16)),
    ("NCHW", "FRACTAL_Z", "float16", (48, -1, 5, 5), (-1, 3, 16, 16)),
    ("NCHW", "FRACTAL_Z", "float16", (-1, -1, -1, -1), (-1, -1, 16, 16)),
    ("NCHW", "FRACTAL_Z_C04", "float16", (48, 3, -1, 5), (-1, 3, 16, 16)),
    ("ND", "FRACTAL_NZ", "float16", (-1, 18, 34), (-1, 3, 2, 16, 16)),
    # returned unchanged
    ("NCHW", "NHWC", "float16", (), ()),
    ("ND", "FRACTAL_NZ", "float16", (), ()),
    ("ND", "FRACTAL_Z", "float16", (), ()),
    ("NCHW", "NHWC", "float16", (5,), (5,)),
    ("NCHW", "NHWC", "float16", (5, 6), (5, 6)),
    ("NCHW", "NHWC", "float16", (5, 6, 7), (5, 6, 7)),
    ("ND", "NHWC", "float16", (2, 3, 4, 5), (2, 3, 4, 5)),
    ("ND", "NCDHW", "float16", (2, 3), (2, 3)),
    ("NCHW", "ND", "float16", (2, 3, 4, 5), (2, 3, 4, 5)),
    ("NCHW", "NCHW", "float16", (2, 3, 4, 5), (2, 3, 4, 5)),
    # ATC's worked example
    ("HWCN", "FRACTAL_Z", "float16", (2, 2, 32, 32), (8, 2, 16, 16)),
]


@pytest.mark.parametrize("origin, storage, dtype, shape, expected", TRANSFER_CASES)
def test_transfer_shape_ge_scenarios(origin, storage, dtype, shape, expected):
    assert transfer_shape(shape, origin, storage, dtype, target=GE) == expected


def test_transfer_shape_grouped_fractal_z():
    # N' = 3, C = 512: e = min(lcm(1, 16), 16) = 16, so G' = 1, C1 = 512.
    shape = (48, 512, 5, 5)
    assert transfer_shape(
        shape, "NCHW", "FRACTAL_Z", "float16", groups=16, target=GE
    ) == (
        12800,
        3,
        16,
        16,
    )


@pytest.mark.parametrize(
    "origin, storage, dtype, shape, expected",
    [
        ("NCHW", "NC1HWC0", "float32", (8, 512, 5, 5), (8, 64, 5, 5, 8)),
        ("NCHW", "NC1HWC0", "int64", (8, 30, 5, 5), (8, 8, 5, 5, 4)),
        ("NCHW", "NC1HWC0", "bool", (8, 30, 5, 5), (8, 1, 5, 5, 32)),
        ("ND", "FRACTAL_NZ", "float32", (18, 34), (5, 2, 16, 8)),
        ("NCHW", "FRACTAL_Z", "float32", (48, 512, 5, 5), (1600, 3, 16, 8)),
        ("HWCN", "FRACTAL_Z", "float16", (2, 2, 32, 32), (8, 2, 16, 16)),
    ],
)
def test_transfer_shape_seed_rule(origin, storage, dtype, shape, expected):
    assert transfer_shape(shape, origin, storage, dtype) == expected


@pytest.mark.parametrize(
    "origin, storage, shape, expected",
    [
        ("NCHW", "NHWC", (1, 2, 3, 4), (1, 3, 4, 2)),
        ("NCHW", "HWCN", (1, 2, 3, 4), (3, 4, 2, 1)),
        ("NHWC", "CHWN", (1, 2, 3, 4), (4, 2, 3, 1)),
        ("NCHW", "NHWC", (-1, 3, -1, 4), (-1, -1, 4, 3)),
        ("NCDHW", "NDHWC", (1, 2, 3, 4, 5), (1, 3, 4, 5, 2)),
        ("DHWCN", "NCDHW", (1, 2, 3, 4, 5), (5, 4, 1, 2, 3)),
    ],
)
def test_transfer_shape_permutations(origin, storage, shape, expected):
    assert transfer_shape(shape, origin, storage, "float16") == expected


@pytest.mark.parametrize(
    "origin, shape, kwargs, expected",
    [
        ("NCHW", (64,), {}, (1, 8, 1, 1, 8)),
        ("NCHW", (64,), {"reshape_type": "C"}, (1, 8, 1, 1, 8)),
        ("NHWC", (5,), {}, (1, 1, 1, 1, 8)),
        ("NCHW", (3, 8, 8), {"reshape_type": "CHW"}, (1, 1, 8, 8, 8)),
        ("NCHW", (3, 8, 8), {"reshape_type": "NHW"}, (3, 1, 8, 8, 8)),
        ("NCHW", (), {}, (1, 1, 1, 1, 8)),
        ("ND", (), {}, (1, 1, 1, 1, 8)),
    ],
)
def test_transfer_shape_expands_under_rank(origin, shape, kwargs, expected):
    assert transfer_shape(shape, origin, "NC1HWC0", "float32", **kwargs) == expected


@pytest.mark.parametrize(
    "origin, storage, shape, groups, expected",
    [
        # depthwise: N' = 1, C = 1: e = 16, G' = 2
        ("NCHW", "FRACTAL_Z", (32, 1, 3, 3), 32, (18, 1, 16, 16)),
        ("HWCN", "FRACTAL_Z", (3, 3, 1, 32), 32, (18, 1, 16, 16)),
        # N' = 2, C = 2: e = min(lcm(8, 8), 4) = 4, G' = 1
        ("NCDHW", "FRACTAL_Z_3D", (8, 2, 3, 3, 3), 4, (27, 1, 16, 16)),
        ("NCHW", "FRACTAL_Z", (8, -1, 3, 3), 4, (-1, 1, 16, 16)),
        ("NCHW", "FRACTAL_Z", (-1, 2, 3, 3), 4, (-1, -1, 16, 16)),
        ("NCHW", "FRACTAL_Z", (8, 2, 3, 3), 1, (9, 1, 16, 16)),
    ],
)
def test_transfer_shape_groups(origin, storage, shape, groups, expected):
    assert transfer_shape(shape, origin, storage, "float16", groups=groups) == expected


# ---------------------------------------------------------------------------
# Expanding dims (§3.4, §3.5)
# ---------------------------------------------------------------------------

EXPAND_CASES = [
    # not expanded
    ("NCHW", "NC1HWC0", (5,), "FORBIDDEN", (5,)),
    ("NCHW", "FRACTAL_NZ", (5,), None, (5,)),
    ("NCHW", "ND", (5,), None, (5,)),
    ("NCHW", "NC1HWC0", (1, 2, 3, 4), "C", (1, 2, 3, 4)),
    ("ND", "FRACTAL_Z", (8, 9), "CN", (8, 9)),
    ("ND", "NC1HWC0", (5,), "C", (5,)),
    ("ND", "NC1HWC0", (5, 6), None, (5, 6)),
    ("NCHW", "NC1HWC0", (3, 4), "C", (3, 4)),
    # scalars become all ones
    ("NCHW", "NC1HWC0", (), None, (1, 1, 1, 1)),
    ("NCHW", "NC1HWC0", (), "C", (1, 1, 1, 1)),
    ("NCHW", "NC1HWC0", (), "XYZ", (1, 1, 1, 1)),
    ("NDHWC", "NDC1HWC0", (), "CHW", (1, 1, 1, 1, 1)),
    ("ND", "NC1HWC0", (), "", (1, 1, 1, 1)),
    # rank 1, default
    ("NCHW", "NC1HWC0", (5,), None, (1, 5, 1, 1)),
    ("NHWC", "NC1HWC0", (5,), None, (1, 1, 1, 5)),
    ("HWCN", "NC1HWC0", (5,), None, (1, 1, 5, 1)),
    ("CHWN", "NC1HWC0", (5,), None, (5, 1, 1, 1)),
    ("NDHWC", "NDC1HWC0", (5,), None, (1, 1, 1, 1, 5)),
    ("NCDHW", "NDC1HWC0", (5,), None, (1, 5, 1, 1, 1)),
    ("DHWCN", "NDC1HWC0", (5,), None, (1, 1, 1, 5, 1)),
    # rank 1, invalid reshape type "WN" falls back to the default
    ("NCHW", "NC1HWC0", (5,), "WN", (1, 5, 1, 1)),
    ("NHWC", "NC1HWC0", (5,), "WN", (1, 1, 1, 5)),
    ("NDHWC", "NDC1HWC0", (5,), "WN", (1, 1, 1, 1, 5)),
    ("NCDHW", "NDC1HWC0", (5,), "WN", (1, 5, 1, 1, 1)),
    # rank 2 and 3, default
    ("NCHW", "NC1HWC0", (5, 6), None, (1, 5, 6, 1)),
    ("NHWC", "NC1HWC0", (5, 6), None, (1, 5, 6, 1)),
    ("HWCN", "NC1HWC0", (5, 6), None, (1, 1, 5, 6)),
    ("NCHW", "NC1HWC0", (3, 8, 8), "CHW", (1, 3, 8, 8)),
    ("NHWC", "NC1HWC0", (5,), None, (1, 1, 1, 5)),
    # valid explicit reshape types
    ("NDHWC", "NDC1HWC0", (5,), "N", (5, 1, 1, 1, 1)),
    ("NDHWC", "NDC1HWC0", (6, 5), "HW", (1, 1, 6, 5, 1)),
    ("NDHWC", "NDC1HWC0", (6, 5), "NC", (6, 1, 1, 1, 5)),
    ("NDHWC", "NDC1HWC0", (8, 7, 6, 5), "NDHW", (8, 7, 6, 5, 1)),
    ("NCHW", "NC1HWC0", (5,), "CH", (1, 5, 1, 1)),
]


@pytest.mark.parametrize("origin, storage, shape, reshape_type, expected", EXPAND_CASES)
def test_expand_dims(origin, storage, shape, reshape_type, expected):
    assert expand_dims_to_full_rank(shape, origin, storage, reshape_type) == expected


def test_expand_dims_without_storage_format():
    assert expand_dims_to_full_rank((5, 6), "HWCN") == (1, 1, 5, 6)
    assert expand_dims_to_full_rank((-2,), "NCHW") == (-2,)
    assert expand_dims_to_full_rank((5,), "NC1HWC0") == (5,)


@pytest.mark.parametrize(
    "fmt, rank, expected",
    [
        ("NCHW", 0, ""),
        ("NCHW", 2, "CH"),
        ("CHWN", 3, "HWN"),
        ("NCDHW", 4, "CDHW"),
        ("DHWCN", 2, "CN"),
        ("NCHW", 4, None),
        ("ND", 1, None),
        ("NC1HWC0", 1, None),
    ],
)
def test_default_reshape_type(fmt, rank, expected):
    assert default_reshape_type(fmt, rank) == expected


def test_reshape_type_masks():
    # "1000" for NCHW rank 3: N is inserted (bit 0), full rank 4.
    mask = 0b0001 | (4 << 56)
    assert reshape_type_mask("NCHW", "NC1HWC0", 3, "CHW") == mask
    assert reshape_type_mask("NCHW", "NC1HWC0", 3) == mask
    assert reshape_type_from_mask("NCHW", 3, mask) == "CHW"
    assert expand_dims_by_mask((3, 8, 8), mask) == (1, 3, 8, 8)
    assert reshape_type_mask("HWCN", "FRACTAL_Z", 2) == 0b0011 | (4 << 56)
    assert expand_dims_by_mask((5, 6), 0b0011 | (4 << 56)) == (1, 1, 5, 6)
    assert reshape_type_from_mask("NCHW", 4, 0) == "NCHW"
    assert reshape_type_from_mask("ND", 2, 0) == ""
    for storage, reshape_type in [
        ("ND", None),
        ("FRACTAL_NZ", None),
        ("NC1HWC0", "FORBIDDEN"),
    ]:
        assert reshape_type_mask("NCHW", storage, 1, reshape_type) == 0
    assert expand_dims_by_mask((3, 8, 8), 0) == (3, 8, 8)


@pytest.mark.parametrize(
    "fmt, rank, mask, message",
    [
        ("ND", 2, 1, "ND has no axes"),
        ("NCHW", 3, 0b0001 | (5 << 56), "full rank 5"),
        ("NCHW", 2, 0b0001 | (4 << 56), "keeps 3 axes"),
        ("NC1HWC0", 2, 0, "does not support"),
    ],
)
def test_reshape_type_from_mask_errors(fmt, rank, mask, message):
    with pytest.raises(FormatError, match=message):
        reshape_type_from_mask(fmt, rank, mask)


# ---------------------------------------------------------------------------
# Data layouts against the SPEC formulas and element-wise references
# ---------------------------------------------------------------------------


def test_nc1hwc0_spec_formulas():
    n, c, h, w, c0 = 2, 19, 3, 4, 16
    c1 = ceil_div(c, c0)
    x = numbered((n, c, h, w))
    padded = np.pad(x, [(0, 0), (0, c1 * c0 - c), (0, 0), (0, 0)])
    expected = padded.reshape(n, c1, c0, h, w).transpose(0, 1, 3, 4, 2)
    np.testing.assert_array_equal(to_storage(x, "NCHW", "NC1HWC0", target=GE), expected)
    nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    padded = np.pad(nhwc, [(0, 0), (0, 0), (0, 0), (0, c1 * c0 - c)])
    expected_nhwc = padded.reshape(n, h, w, c1, c0).transpose(0, 3, 1, 2, 4)
    np.testing.assert_array_equal(expected_nhwc, expected)
    np.testing.assert_array_equal(
        to_storage(nhwc, "NHWC", "NC1HWC0", target=GE), expected
    )


def test_fractal_z_spec_formulas():
    n, c, h, w, c0 = 20, 5, 2, 3, 16
    n1, c1 = ceil_div(n, 16), ceil_div(c, c0)
    x = numbered((n, c, h, w))
    padded = np.pad(x, [(0, n1 * 16 - n), (0, c1 * c0 - c), (0, 0), (0, 0)])
    expected = (
        padded.reshape(n1, 16, c1, c0, h, w)
        .transpose(2, 4, 5, 0, 1, 3)
        .reshape(c1 * h * w, n1, 16, c0)
    )
    np.testing.assert_array_equal(
        to_storage(x, "NCHW", "FRACTAL_Z", target=GE), expected
    )
    hwcn = np.ascontiguousarray(x.transpose(2, 3, 1, 0))
    padded = np.pad(hwcn, [(0, 0), (0, 0), (0, c1 * c0 - c), (0, n1 * 16 - n)])
    expected_hwcn = (
        padded.reshape(h, w, c1, c0, n1, 16)
        .transpose(2, 0, 1, 4, 5, 3)
        .reshape(c1 * h * w, n1, 16, c0)
    )
    np.testing.assert_array_equal(expected_hwcn, expected)
    np.testing.assert_array_equal(
        to_storage(hwcn, "HWCN", "FRACTAL_Z", target=GE), expected
    )


def test_atc_worked_example_data():
    x = numbered((2, 2, 32, 32), "float16")
    storage = to_storage(x, "HWCN", "FRACTAL_Z")
    assert storage.shape == (8, 2, 16, 16)
    # Row (c1, h, w), column n = n1 * 16 + n0, lane c0 holds x[h, w, c1 * 16 + c0, n].
    for c1, h, w, n, c0 in [(0, 0, 0, 0, 0), (1, 1, 0, 17, 3), (1, 1, 1, 31, 15)]:
        row = (c1 * 2 + h) * 2 + w
        assert storage[row, n // 16, n % 16, c0] == x[h, w, c1 * 16 + c0, n]


def test_fractal_nz_spec_formula():
    b, rows, cols, m0, c0 = 3, 20, 37, 16, 8
    x = numbered((b, rows, cols))
    h1, w1 = ceil_div(rows, m0), ceil_div(cols, c0)
    padded = np.pad(x, [(0, 0), (0, h1 * m0 - rows), (0, w1 * c0 - cols)])
    expected = padded.reshape(b, h1, m0, w1, c0).transpose(0, 3, 1, 2, 4)
    np.testing.assert_array_equal(to_storage(x, "ND", "FRACTAL_NZ"), expected)


def reference_storage(x, origin, storage, c0, groups=1, m0=16):
    """Element-wise layouts from the format definitions (GE's index formulas)."""
    if storage == "FRACTAL_NZ":
        if x.ndim == 1:
            x = x[:, None]
        *batch, rows, cols = x.shape
        out = np.zeros(
            (*batch, ceil_div(cols, c0), ceil_div(rows, m0), m0, c0), x.dtype
        )
        for index in np.ndindex(*x.shape):
            *b, r, k = index
            out[(*b, k // c0, r // m0, r % m0, k % c0)] = x[index]
        return out
    if storage == "FRACTAL_Z" and x.ndim == 2:
        d0, d1 = x.shape
        out = np.zeros((ceil_div(d0, c0), ceil_div(d1, 16), 16, c0), x.dtype)
        for k, n in np.ndindex(*x.shape):
            out[k // c0, n // 16, n % 16, k % c0] = x[k, n]
        return out
    reference = "NCHW" if x.ndim == 4 else "NCDHW"
    axes = reference if origin == "ND" else origin
    canon = x.transpose([axes.index(a) for a in reference])
    if canon.ndim == 4 and storage == "NDC1HWC0":
        canon = canon[:, :, None]
    if storage in ("FRACTAL_Z", "FRACTAL_Z_3D"):
        return reference_fractal_z(canon, c0, groups)
    if canon.ndim == 4:
        n, c, h, w = canon.shape
    else:
        n, c, d, h, w = canon.shape
    if storage in ("NC1HWC0", "NC1HWC0_C04"):
        out = np.zeros((n, ceil_div(c, c0), h, w, c0), x.dtype)
        for i, j, k, m in np.ndindex(*canon.shape):
            out[i, j // c0, k, m, j % c0] = canon[i, j, k, m]
    elif storage == "NDC1HWC0":
        out = np.zeros((n, d, ceil_div(c, c0), h, w, c0), x.dtype)
        for i, j, dd, k, m in np.ndindex(*canon.shape):
            out[i, dd, j // c0, k, m, j % c0] = canon[i, j, dd, k, m]
    elif storage == "FRACTAL_Z_C04":
        out = np.zeros((ceil_div(4 * h * w, c0), ceil_div(n, 16), 16, c0), x.dtype)
        for i, j, k, m in np.ndindex(*canon.shape):
            kk = (k * w + m) * 4 + j
            out[kk // c0, i // 16, i % 16, kk % c0] = canon[i, j, k, m]
    elif storage == "C1HWNCoC0":
        out = np.zeros((ceil_div(c, c0), h, w, ceil_div(n, 16), c0, c0), x.dtype)
        for i, j, k, m in np.ndindex(*canon.shape):
            out[j // c0, k, m, i, j % c0, j % c0] = canon[i, j, k, m]
    return out


def reference_fractal_z(canon, c0, groups):
    """GE's grouped FRACTAL_Z(_3D) index formula, element by element."""
    n, c, *spatial = canon.shape
    per_group = n // groups
    e = min(math.lcm(c0 // math.gcd(c, c0), 16 // math.gcd(per_group, 16)), groups)
    g_blocks, c1 = ceil_div(groups, e), ceil_div(c * e, c0)
    n_padded = ceil_div(per_group * e, 16) * 16
    # layout (G', [D], C1, H, W, N1*16, C0)
    *depth, h, w = spatial
    out = np.zeros((g_blocks, *depth, c1, h, w, n_padded, c0), canon.dtype)
    for index in np.ndindex(*canon.shape):
        co, ci, *pos = index
        g, n_in_group = divmod(co, per_group)
        e_val = g % e
        dst_ci, dst_co = e_val * c + ci, e_val * per_group + n_in_group
        *dd, hh, ww = pos
        out[(g // e, *dd, dst_ci // c0, hh, ww, dst_co, dst_ci % c0)] = canon[index]
    return out.reshape(-1, n_padded // 16, 16, c0)


REFERENCE_CASES = [
    ("NCHW", "NC1HWC0", (2, 19, 3, 2), 1),
    ("CHWN", "NC1HWC0_C04", (6, 2, 3, 2), 1),
    ("NHWC", "NDC1HWC0", (2, 3, 2, 19), 1),
    ("NDHWC", "NDC1HWC0", (2, 2, 3, 2, 19), 1),
    ("HWCN", "FRACTAL_Z", (2, 3, 19, 18), 1),
    ("NCHW", "FRACTAL_Z", (12, 5, 2, 3), 4),
    ("HWCN", "FRACTAL_Z", (3, 2, 3, 40), 8),
    ("ND", "FRACTAL_Z", (6, 3, 2, 2), 3),
    ("NCHW", "FRACTAL_Z", (64, 1, 2, 2), 32),
    ("NCDHW", "FRACTAL_Z_3D", (18, 19, 2, 2, 3), 1),
    ("DHWCN", "FRACTAL_Z_3D", (2, 2, 3, 5, 12), 4),
    ("ND", "FRACTAL_Z", (37, 19), 1),
    ("NHWC", "FRACTAL_Z_C04", (18, 3, 5, 3), 1),
    ("HWCN", "C1HWNCoC0", (2, 3, 19, 1), 1),
    ("ND", "FRACTAL_NZ", (37,), 1),
    ("NCHW", "FRACTAL_NZ", (2, 3, 20, 37), 1),
]


@pytest.mark.parametrize("origin, storage, shape, groups", REFERENCE_CASES)
@pytest.mark.parametrize(
    "dtype, target", [("float16", None), ("float32", None), ("int8", GE)]
)
def test_layout_matches_reference(origin, storage, shape, groups, dtype, target):
    x = numbered(shape, dtype)
    c0 = c0_for(dtype, target, storage_format=storage)
    expected = reference_storage(x, origin, storage, c0, groups)
    storage_array = to_storage(x, origin, storage, groups=groups, target=target)
    assert storage_array.shape == transfer_shape(
        shape, origin, storage, dtype, groups=groups, target=target
    )
    np.testing.assert_array_equal(storage_array, expected)
    back = from_storage(
        storage_array, origin, storage, shape, groups=groups, target=target
    )
    np.testing.assert_array_equal(back, x)


def test_grouped_weights_are_block_diagonal():
    # 4 groups of 2 output and 2 input channels, fp16: e = 4, one packed block.
    w = numbered((8, 2, 1, 1), "float16")
    storage = to_storage(w, "NCHW", "FRACTAL_Z", groups=4)
    assert storage.shape == (1, 1, 16, 16)
    block = storage[0, 0].T  # [C0 (input channel), N0 (output channel)]
    for g in range(4):
        np.testing.assert_array_equal(
            block[2 * g : 2 * g + 2, 2 * g : 2 * g + 2], w[2 * g : 2 * g + 2, :, 0, 0].T
        )
    assert np.count_nonzero(block) == 16
    assert not block[8:].any() and not block[:, 8:].any()


def test_int4_uses_its_own_c0():
    x = numbered((1, 70, 1, 1), "int4")
    storage = to_storage(x, "NCHW", "NC1HWC0", dtype="int4")
    assert storage.shape == (1, 2, 1, 1, 64) and storage.dtype == np.int8
    assert to_storage(x, "NCHW", "NC1HWC0").shape == (1, 3, 1, 1, 32)
    back = from_storage(storage, "NCHW", "NC1HWC0", x.shape, dtype="int4")
    np.testing.assert_array_equal(back, x)


def test_under_rank_data_expands():
    bias = numbered((20,))
    storage = to_storage(bias, "NCHW", "NC1HWC0", target=GE)
    assert storage.shape == (1, 2, 1, 1, 16)
    np.testing.assert_array_equal(storage.reshape(-1)[:20], bias)
    back = from_storage(storage, "NCHW", "NC1HWC0", (20,), target=GE)
    np.testing.assert_array_equal(back, bias)
    scalar = np.array(3.0, dtype=np.float32)
    assert to_storage(scalar, "NCHW", "NC1HWC0").shape == (1, 1, 1, 1, 8)
    assert to_storage(scalar, "ND", "FRACTAL_NZ").shape == ()


def test_results_own_their_memory():
    x = numbered((1, 16, 1, 1))
    storage = to_storage(x, "NCHW", "NC1HWC0", target=GE)
    assert not np.shares_memory(storage, x)
    assert not np.shares_memory(to_storage(x, "NCHW", "NCHW"), x)
    back = from_storage(storage, "NCHW", "NC1HWC0", x.shape, target=GE)
    assert not np.shares_memory(back, storage)


def test_convert_between_storage_formats():
    x = numbered((5, 19, 3, 2), "float16")
    five_hd = to_storage(x, "NCHW", "NC1HWC0")
    fz = convert(five_hd, "NCHW", "NC1HWC0", "FRACTAL_Z", x.shape)
    np.testing.assert_array_equal(fz, to_storage(x, "NCHW", "FRACTAL_Z"))
    nhwc = convert(five_hd, "NCHW", "NC1HWC0", "NHWC", x.shape)
    np.testing.assert_array_equal(nhwc, x.transpose(0, 2, 3, 1))
    grouped = convert(fz, "NCHW", "FRACTAL_Z", "FRACTAL_Z", x.shape, dst_groups=1)
    np.testing.assert_array_equal(grouped, fz)
    w = numbered((8, 3, 2, 2), "float16")
    packed = to_storage(w, "NCHW", "FRACTAL_Z", groups=4)
    plain = convert(packed, "NCHW", "FRACTAL_Z", "NCHW", w.shape, src_groups=4)
    np.testing.assert_array_equal(plain, w)


def test_resnet_sized_tensors():
    activation = (
        np.random.default_rng(0).standard_normal((16, 64, 56, 56)).astype(np.float16)
    )
    storage = to_storage(activation, "NCHW", "NC1HWC0")
    assert storage.shape == (16, 4, 56, 56, 16)
    np.testing.assert_array_equal(
        from_storage(storage, "NCHW", "NC1HWC0", activation.shape), activation
    )
    weight = (
        np.random.default_rng(1).standard_normal((512, 256, 3, 3)).astype(np.float32)
    )
    storage = to_storage(weight, "NCHW", "FRACTAL_Z", target=GE)
    assert storage.shape == (144, 32, 16, 16)
    np.testing.assert_array_equal(
        from_storage(storage, "NCHW", "FRACTAL_Z", weight.shape, target=GE), weight
    )


# ---------------------------------------------------------------------------
# Round-trip properties over every (origin, storage) pair
# ---------------------------------------------------------------------------

DTYPES = [
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "int8",
    "uint8",
    "int16",
    "int32",
    "int64",
    "uint64",
    "bool",
    "int4",
]
FOUR_D = ("NCHW", "NHWC", "HWCN", "CHWN")
FIVE_D = ("NCDHW", "NDHWC", "DHWCN")


def origin_ranks(storage: str) -> dict[str, list[int]]:
    """Origin formats that can be stored as `storage`, with the ranks to try."""
    full = {fmt: list(range(full_rank(fmt) + 1)) for fmt in FOUR_D + FIVE_D}
    under = {fmt: ranks[:-1] for fmt, ranks in full.items()}
    if storage in FOUR_D + FIVE_D:
        family = FOUR_D if storage in FOUR_D else FIVE_D
        return {**under, **{f: full[f] for f in family}, "ND": [0, 1, 2, 3, 4, 5]}
    if storage in ("ND", "FRACTAL_NZ"):
        return {**full, "ND": [0, 1, 2, 3, 4, 5]}
    if storage == "FRACTAL_Z_3D":
        return {**{f: full[f] for f in FIVE_D}, "ND": [5]}
    if storage == "NDC1HWC0":
        return {**full, "ND": [0, 4, 5]}
    four_d = {f: full[f] for f in FOUR_D}
    return {**four_d, "ND": [0, 2, 4] if storage == "FRACTAL_Z" else [0, 4]}


@st.composite
def conversion_cases(draw, storage: str):
    choices = origin_ranks(storage)
    origin = draw(st.sampled_from(sorted(choices)))
    rank = draw(st.sampled_from(choices[origin]))
    if storage == "C1HWNCoC0":
        dim = st.sampled_from([1, 1, 1, 3, 17])
    elif storage == "FRACTAL_Z_C04":
        dim = st.integers(1, 4)
    else:
        dim = st.sampled_from([1, 2, 3, 5, 16, 17, 33])
    shape = tuple(draw(st.lists(dim, min_size=rank, max_size=rank)))
    assume(math.prod(shape) <= 20000)
    if storage == "C1HWNCoC0":
        expanded = expand_dims_to_full_rank(shape, origin, storage)
        axes = "NCHW" if origin == "ND" else origin
        assume(expanded[axes.index("N")] <= 1)
    dtype = draw(st.sampled_from(DTYPES))
    target = draw(st.sampled_from([None, GE]))
    return origin, shape, dtype, target


def check_round_trip(x, origin, storage, dtype, **kwargs):
    storage_array = to_storage(x, origin, storage, dtype=dtype, **kwargs)
    assert storage_array.shape == transfer_shape(
        x.shape, origin, storage, dtype, **kwargs
    )
    assert storage_array.dtype == x.dtype
    assert storage_array.flags.c_contiguous
    # Every value is kept once; everything else is zero padding.
    assert np.count_nonzero(storage_array) == x.size
    kept = np.sort(storage_array[storage_array != 0].astype(np.float64))
    np.testing.assert_array_equal(kept, np.sort(x.ravel().astype(np.float64)))
    back = from_storage(storage_array, origin, storage, x.shape, dtype=dtype, **kwargs)
    assert back.shape == x.shape and back.dtype == x.dtype
    assert back.tobytes() == x.tobytes()


STORAGES = [f.value for f in Format if f is not F.RESERVED]


@pytest.mark.parametrize("storage", STORAGES)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_round_trip_every_pair(storage, data):
    origin, shape, dtype, target = data.draw(conversion_cases(storage))
    check_round_trip(numbered(shape, dtype), origin, storage, dtype, target=target)


@settings(max_examples=60, deadline=None)
@given(
    origin=st.sampled_from(["NCHW", "NHWC", "HWCN", "CHWN", "ND", "NCDHW", "DHWCN"]),
    groups=st.integers(1, 6),
    per_group=st.sampled_from([1, 2, 3, 5, 17]),
    channels=st.sampled_from([1, 2, 3, 5, 17]),
    spatial=st.lists(st.integers(1, 3), min_size=3, max_size=3),
    dtype=st.sampled_from(["float16", "float32", "int8"]),
    target=st.sampled_from([None, GE]),
)
def test_grouped_fractal_z_properties(
    origin, groups, per_group, channels, spatial, dtype, target
):
    storage = "FRACTAL_Z_3D" if origin in FIVE_D else "FRACTAL_Z"
    sizes = {"N": groups * per_group, "C": channels, "D": spatial[0]}
    sizes |= {"H": spatial[1], "W": spatial[2]}
    axes = "NCHW" if origin == "ND" else origin
    x = numbered(tuple(sizes[a] for a in axes), dtype)
    check_round_trip(x, origin, storage, dtype, groups=groups, target=target)
    c0 = c0_for(dtype, target)
    expected = reference_storage(x, origin, storage, c0, groups)
    storage_array = to_storage(
        x, origin, storage, groups=groups, target=target, dtype=dtype
    )
    np.testing.assert_array_equal(storage_array, expected)


# ---------------------------------------------------------------------------
# Errors and storage-shape checks
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        (((1, 2, 3, 4), "NCWH", "NHWC", "float16"), {}, "unknown format 'NCWH'"),
        (((1, 2, 3, 4), "NCHW", "NC1HWC0", "float8"), {}, "unsupported dtype 'float8'"),
        (((1, 2, 3, 4), "NCHW", "NC1HWC0", "UNDEFINED"), {}, "unsupported dtype"),
        (
            ((1, 2, 3, 4), "RESERVED", "NC1HWC0", "float16"),
            {},
            "RESERVED is not a usable origin",
        ),
        (
            ((1, 2, 3, 4), "NCHW", "RESERVED", "float16"),
            {},
            "RESERVED is not a usable storage",
        ),
        (((1, 2, 3, 4, 5), "NC1HWC0", "NCHW", "float16"), {}, "storage-only format"),
        (((1, 2, 3, 4, 5), "NCHW", "NHWC", "float16"), {}, "rank 5, more than the 4"),
        (
            ((1, 2, 3, 4, 5), "NCHW", "NC1HWC0", "float16"),
            {},
            "rank 5, more than the 4",
        ),
        (
            ((1, 2, 3, 4), "NCHW", "NCDHW", "float16"),
            {},
            "4-D NCHW tensor as 5-D NCDHW",
        ),
        (((1, 2, 3, 4, 5), "NCDHW", "NC1HWC0", "float16"), {}, "needs a 4-D origin"),
        (((1, 2, 3, 4), "NCHW", "FRACTAL_Z_3D", "float16"), {}, "needs a 5-D origin"),
        (((5,), "ND", "NC1HWC0", "float16"), {}, "ND tensor of rank 1"),
        (((3, 4, 5), "ND", "FRACTAL_Z", "float16"), {}, "ND tensor of rank 3"),
        (((2, 3), "ND", "FRACTAL_Z_3D", "float16"), {}, "ND tensor of rank 2"),
        (
            ((5,), "NCHW", "NC1HWC0", "float16"),
            {"reshape_type": "FORBIDDEN"},
            "reshape type 'FORBIDDEN' cannot expand",
        ),
        (
            ((48, 8, 3, 3), "NCHW", "FRACTAL_Z", "float16"),
            {"groups": 5},
            "groups=5 must divide N=48",
        ),
        (
            ((2, 8, 3, 3), "NCHW", "FRACTAL_Z", "float16"),
            {"groups": 4},
            "must divide N=2",
        ),
        (
            ((1, 8, 3, 3), "NCHW", "NC1HWC0", "float16"),
            {"groups": 2},
            "only applies to FRACTAL_Z",
        ),
        (((8, 8), "ND", "FRACTAL_Z", "float16"), {"groups": 2}, "2-D FRACTAL_Z"),
        (((8, 8, 3, 3), "NCHW", "FRACTAL_Z", "float16"), {"groups": 0}, "positive int"),
        (
            ((8, 8, 3, 3), "NCHW", "FRACTAL_Z", "float16"),
            {"groups": 1.5},
            "positive int",
        ),
        (((8, 5, 3, 3), "NCHW", "FRACTAL_Z_C04", "float16"), {}, "C <= 4, got C=5"),
        (((-3, 4), "ND", "FRACTAL_NZ", "float16"), {}, "invalid shape"),
        (((1.5, 4), "ND", "FRACTAL_NZ", "float16"), {}, "sequence of ints"),
        (
            ((1, 2, 3, 4), "NCHW", "NC1HWC0", "float16"),
            {"target": "Ascend999"},
            "unknown target",
        ),
    ],
)
def test_transfer_shape_errors(args, kwargs, message):
    with pytest.raises(FormatError, match=message):
        transfer_shape(*args, **kwargs)


def test_error_messages_are_one_line():
    for call in [
        lambda: parse_format("bogus"),
        lambda: canonical_dtype("bogus"),
        lambda: get_target("bogus"),
        lambda: transfer_shape((5,), "ND", "NC1HWC0", "float16"),
    ]:
        with pytest.raises(FormatError) as info:
            call()
        assert "\n" not in str(info.value)
        assert isinstance(info.value, ValueError)


def test_conversion_errors():
    x = numbered((2, 3, 4, 4))
    with pytest.raises(FormatError, match=r"storage array has shape \[2, 3, 4, 4\]"):
        from_storage(x, "NCHW", "NC1HWC0", (2, 3, 4, 4))
    with pytest.raises(FormatError, match="must be fully known"):
        from_storage(x, "NCHW", "NCHW", (-1, 3, 4, 4))
    with pytest.raises(FormatError, match="Python objects"):
        to_storage(np.array([object()]), "ND", "FRACTAL_NZ")
    with pytest.raises(FormatError, match="unsupported dtype"):
        to_storage(np.zeros(4, np.complex64), "ND", "FRACTAL_NZ")
    # C1HWNCoC0: GE's shape rule keeps ceil(N/16) blocks, its data rule N rows.
    assert transfer_shape((2, 3, 4, 4), "NCHW", "C1HWNCoC0", "float32") == (
        1,
        4,
        4,
        1,
        8,
        8,
    )
    with pytest.raises(FormatError, match="C1HWNCoC0 data conversion needs N <= 1"):
        to_storage(x, "NCHW", "C1HWNCoC0")


def test_storage_shape_checks():
    args = ((8, 3, 4, 4), "NCHW", "NC1HWC0", "float16")
    assert storage_shape_is_valid((8, 1, 4, 4, 16), *args)
    assert storage_shape_is_valid((8, -1, 4, 4, 16), *args)
    assert not storage_shape_is_valid((8, 1, 4, 4, 8), *args)
    assert not storage_shape_is_valid((8, 1, 4, 4), *args)
    assert storage_shape_is_valid(
        (8, 1, 4, 4, 32), (8, 3, 4, 4), "NCHW", "NC1HWC0", "int8"
    )
    assert storage_shape_is_valid((8, 1, 4, 4, 8), *args[:3], "float32")
    assert not storage_shape_is_valid((8, 1, 4, 4, 8), *args[:3], "float32", target=GE)
    assert storage_shape_is_valid((-1, 1, 4, 4, 16), (-1, 3, 4, 4), *args[1:])
    check_storage_shape((8, 1, 4, 4, 16), *args)
    with pytest.raises(
        FormatError, match=r"storage shape \[8, 2, 4, 4, 16\] does not match"
    ):
        check_storage_shape((8, 2, 4, 4, 16), *args)
    with pytest.raises(FormatError, match="unknown format"):
        storage_shape_is_valid((8, 1, 4, 4, 16), (8, 3, 4, 4), "NCHW", "5HD", "float16")
