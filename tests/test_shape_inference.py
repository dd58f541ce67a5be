"""Shape functions (`ge_dialect.shape_inference`) on plain Python shapes.

Result shapes are checked against the NumPy host kernels (which follow ONNX)
on concrete inputs, against hand-computed values with unknown dims, and on
invalid inputs, which must raise a `ShapeError` that names the problem.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

import kernel_calls  # noqa: E402
import numpy as np
import pytest
from xdsl.dialects.builtin import TensorType

from ge_dialect.builder import tensor_type
from ge_dialect.formats import Format
from ge_dialect.layout import layout_of, shape_of
from ge_dialect.ops import Conv2DOp, default_attributes
from ge_dialect.shape_inference import (
    PLUGIN_DEFAULTS,
    PLUGIN_LAYOUT_KEEPING,
    PLUGIN_SHAPE_FUNCTIONS,
    ShapeError,
    infer_result_types,
    infer_shapes,
    register_shape_function,
)

_rng = np.random.default_rng(0)


def shapes_of(op: str, *inputs: np.ndarray, **attrs: Any) -> list[tuple[int, ...]]:
    results = infer_shapes(
        f"ge.{op}", [x.shape for x in inputs], [x.dtype.name for x in inputs], attrs
    )
    return [shape for shape, _ in results]


def rand(*shape: int, dtype: Any = np.float32) -> np.ndarray:
    return _rng.standard_normal(shape).astype(dtype)


# ---------------------------------------------------------------------------
# Against the host kernels, on concrete shapes
# ---------------------------------------------------------------------------

KERNEL_CASES: list[tuple[str, tuple[np.ndarray, ...], dict[str, Any]]] = [
    (
        "conv2d",
        (rand(2, 4, 9, 9), rand(6, 4, 3, 3)),
        {"strides": [1, 1, 2, 2], "pads": [1, 0, 2, 1]},
    ),
    (
        "conv2d",
        (rand(1, 4, 9, 9), rand(8, 2, 3, 2)),
        {"groups": 2, "dilations": [1, 1, 2, 3]},
    ),
    (
        "conv2d",
        (rand(1, 7, 7, 3), rand(3, 3, 3, 5), rand(5)),
        {"data_format": "NHWC", "filter_format": "HWCN"},
    ),
    (
        "conv2d",
        (rand(1, 7, 7, 3), rand(5, 2, 2, 3)),
        {"data_format": "NHWC", "filter_format": "NHWC", "strides": [1, 2, 2, 1]},
    ),
    (
        "conv2d_transpose",
        (rand(1, 4, 5, 6), rand(4, 3, 3, 2)),
        {
            "strides": [1, 1, 2, 3],
            "pads": [1, 0, 0, 1],
            "output_padding": [1, 2],
            "groups": 2,
        },
    ),
    (
        "conv2d_transpose",
        (rand(1, 5, 6, 4), rand(4, 3, 2, 2)),
        {"data_format": "NHWC", "dilations": [1, 2, 2, 1]},
    ),
    ("max_pool", (rand(1, 3, 7, 8),), {"ksize": [1, 1, 3, 2], "strides": [1, 1, 2, 2]}),
    (
        "max_pool",
        (rand(1, 3, 7, 8),),
        {
            "ksize": [1, 1, 2, 2],
            "strides": [1, 1, 2, 3],
            "ceil_mode": True,
            "pads": [0, 1, 1, 0],
        },
    ),
    (
        "avg_pool",
        (rand(2, 6, 6, 3),),
        {
            "ksize": [1, 3, 3, 1],
            "strides": [1, 2, 2, 1],
            "pads": [1, 1, 1, 1],
            "data_format": "NHWC",
            "ceil_mode": True,
        },
    ),
    ("global_avg_pool", (rand(2, 3, 5, 4),), {}),
    ("global_max_pool", (rand(2, 5, 4, 3),), {"data_format": "NHWC"}),
    ("batch_norm", (rand(1, 3, 2, 2), rand(3), rand(3), rand(3), np.abs(rand(3))), {}),
    ("bias_add", (rand(2, 5), rand(5)), {}),
    ("bias_add", (rand(1, 2, 2, 2, 4), rand(4)), {"data_format": "NHWC"}),
    ("matmul", (rand(3, 4), rand(5, 4), rand(5)), {"transpose_x2": True}),
    ("batch_matmul", (rand(2, 1, 4, 3), rand(5, 4, 6)), {"adj_x1": True}),
    ("gemm", (rand(4, 3), rand(5, 4), rand(3, 1)), {"trans_a": True, "trans_b": True}),
    ("add", (rand(2, 1, 4), rand(3, 1)), {}),
    ("prelu", (rand(2, 3, 4), rand(4)), {}),
    ("concat", ([rand(2, 3), rand(2, 5)],), {"axis": -1}),
    ("split", (rand(6, 4),), {"axis": 0, "sizes": [1, 2, 3]}),
    ("slice", (rand(10, 8),), {"begins": [-3, 1], "ends": [100, -1], "steps": [1, 3]}),
    (
        "slice",
        (rand(10, 8),),
        {"begins": [9], "ends": [-100], "axes": [0], "steps": [-4]},
    ),
    ("slice", (rand(10, 8),), {"begins": [5], "ends": [2], "axes": [1]}),
    ("gather", (rand(4, 5, 6), np.array([[0, 1, 2]])), {"axis": -2}),
    ("tile", (rand(2, 3),), {"multiples": [3, 2]}),
    ("pad", (rand(4, 5),), {"paddings": [1, -1, 2, 0]}),
    ("reshape", (rand(2, 3, 4),), {"shape": [0, -1]}),
    ("flatten", (rand(2, 3, 4),), {"axis": 0}),
    ("flatten", (rand(2, 3, 4),), {"axis": 3}),
    ("squeeze", (rand(1, 3, 1, 2),), {}),
    ("squeeze", (rand(1, 3, 1, 2),), {"axes": [-2]}),
    ("unsqueeze", (rand(3, 2),), {"axes": [0, 3]}),
    ("expand_dims", (rand(3, 2),), {"axis": -1}),
    ("transpose", (rand(2, 3, 4),), {"perm": [2, 0, 1]}),
    ("permute", (rand(2, 3, 4, 5),), {"order": [0, 3, 1, 2]}),
    ("reduce_sum", (rand(2, 3, 4),), {"axes": [0, -1], "keep_dims": True}),
    ("reduce_mean", (rand(2, 3, 4),), {"axes": [1], "keep_dims": False}),
    ("reduce_max", (rand(2, 3, 4),), {"keep_dims": False}),
    ("softmax", (rand(2, 3),), {"axis": 0}),
    ("cast", (rand(2, 3),), {"dst_type": "float16"}),
]


@pytest.mark.parametrize(
    ("op", "inputs", "attrs"),
    KERNEL_CASES,
    ids=[f"{case[0]}-{i}" for i, case in enumerate(KERNEL_CASES)],
)
def test_shapes_match_the_host_kernels(op: str, inputs: tuple, attrs: dict[str, Any]):
    accepted = inspect.signature(kernel_calls.RAW[op]).parameters
    out = kernel_calls.HOST_OPS[op](*inputs, **attrs)
    expected = [y.shape for y in (out if isinstance(out, list) else [out])]
    flat = [*inputs[0], *inputs[1:]] if isinstance(inputs[0], list) else list(inputs)
    if "data_format" in accepted:
        attrs = {"data_format": "NCHW", **attrs}
    assert shapes_of(op, *flat, **attrs) == expected


def test_functions_run_on_plain_lists_and_give_dtypes():
    assert infer_shapes("ge.cast", [[2, 3]], ["float32"], {"dst_type": "int8"}) == [
        ((2, 3), "int8")
    ]
    assert infer_shapes("ge.gather", [[4, 5], [3]], ["float16", "int32"], {}) == [
        ((3, 5), "float16")
    ]


# ---------------------------------------------------------------------------
# Unknown dims and defaults
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("op", "shapes", "attrs", "expected"),
    [
        (
            "ge.conv2d",
            [(-1, 3, 8, 8), (4, 3, 3, 3)],
            {"data_format": "NCHW"},
            (-1, 4, 6, 6),
        ),
        (
            "ge.conv2d",
            [(1, 3, -1, 8), (4, 3, 3, 3)],
            {"data_format": "NCHW"},
            (1, 4, -1, 6),
        ),
        (
            "ge.conv2d",
            [(1, -1, 8, 8), (4, 3, 3, 3)],
            {"data_format": "NCHW"},
            (1, 4, 6, 6),
        ),
        (
            "ge.max_pool",
            [(1, 3, -1, 4)],
            {"data_format": "NCHW", "ksize": [1, 1, 2, 2]},
            (1, 3, -1, 3),
        ),
        ("ge.add", [(-1, 3), (4, 1)], {}, (4, 3)),
        ("ge.add", [(-1, 3), (1, 3)], {}, (-1, 3)),
        ("ge.concat", [(2, -1), (2, 3)], {"axis": 1}, (2, -1)),
        ("ge.concat", [(-1, 3), (2, 3)], {"axis": 1}, (2, 6)),
        ("ge.reshape", [(-1, 3, 4)], {"shape": [0, -1]}, (-1, 12)),
        ("ge.reshape", [(2, -1)], {"shape": [-1, 2]}, (-1, 2)),
        ("ge.flatten", [(2, -1, 4)], {"axis": 2}, (-1, 4)),
        ("ge.slice", [(-1, 8)], {"begins": [0, 2], "ends": [3, 8]}, (-1, 6)),
        ("ge.tile", [(-1, 2)], {"multiples": [2, 2]}, (-1, 4)),
        ("ge.squeeze", [(1, -1, 3)], {"axes": [1]}, (1, 3)),
        ("ge.batch_matmul", [(-1, 2, 3), (3, 4)], {}, (-1, 2, 4)),
    ],
)
def test_unknown_dims(op: str, shapes, attrs, expected):
    dtypes = ["float32"] * len(shapes)
    assert infer_shapes(op, shapes, dtypes, attrs)[0][0] == expected


def test_absent_attributes_take_the_op_defaults():
    assert default_attributes(Conv2DOp)["strides"] == [1, 1, 1, 1]
    assert infer_shapes(
        "ge.conv2d",
        [(1, 3, 5, 5), (2, 3, 3, 3)],
        ["float32"] * 2,
        {"data_format": "NCHW", "pads": None},
    ) == [((1, 2, 3, 3), "float32")]


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("op", "shapes", "attrs", "message"),
    [
        (
            "ge.conv2d",
            [(1, 3, 8, 8), (4, 2, 3, 3)],
            {"data_format": "NCHW"},
            "input has 3 channels, filter expects 2 (groups = 1)",
        ),
        (
            "ge.conv2d",
            [(1, 4, 8, 8), (3, 2, 3, 3)],
            {"data_format": "NCHW", "groups": 2},
            "3 filters are not divisible by groups 2",
        ),
        (
            "ge.conv2d",
            [(1, 3, 2, 2), (4, 3, 3, 3)],
            {"data_format": "NCHW"},
            "window 3 (dilation 1) does not fit input size 2",
        ),
        (
            "ge.conv2d",
            [(1, 3, 8, 8), (4, 3, 3, 3), (5,)],
            {"data_format": "NCHW"},
            "bias has 5 entries for 4 filters",
        ),
        (
            "ge.conv2d",
            [(1, 3, 8, 8), (4, 3, 3, 3)],
            {"data_format": "NDHWC"},
            "data_format must be NCHW or NHWC",
        ),
        (
            "ge.conv2d",
            [(1, 3, 8), (4, 3, 3, 3)],
            {"data_format": "NCHW"},
            "input must have rank 4, got 3",
        ),
        (
            "ge.conv2d",
            [(1, 3, 8, 8), (4, 3, 3, 3)],
            {},
            "missing attribute 'data_format'",
        ),
        (
            "ge.conv2d_transpose",
            [(1, 3, 8, 8), (4, 3, 3, 3)],
            {"data_format": "NCHW"},
            "input has 3 channels, filter expects 4",
        ),
        (
            "ge.max_pool",
            [(1, 3, 4, 4)],
            {"data_format": "NCHW", "ksize": [1, 1, 3]},
            "'ksize' must have 4 values, got 3",
        ),
        (
            "ge.batch_norm",
            [(1, 3, 2, 2), (3,), (3, 1), (3,), (3,)],
            {"data_format": "NCHW"},
            "offset must have rank 1, got 2",
        ),
        (
            "ge.bias_add",
            [(2, 3), (4,)],
            {"data_format": "NCHW"},
            "bias has 4 entries for 3 channels",
        ),
        (
            "ge.add",
            [(2, 3), (2, 4)],
            {},
            "shapes [2, 3] and [2, 4] do not broadcast",
        ),
        ("ge.matmul", [(2, 3), (4, 5)], {}, "contraction sizes differ: 3 vs 4"),
        ("ge.matmul", [(2, 3, 1), (3, 5)], {}, "x1 must have rank 2, got 3"),
        (
            "ge.gemm",
            [(2, 3), (3, 5), (3,)],
            {},
            "c of shape [3] does not broadcast to [2, 5]",
        ),
        ("ge.batch_matmul", [(2, 3), (4,)], {}, "inputs must have rank >= 2"),
        (
            "ge.concat",
            [(2, 3), (3, 3)],
            {"axis": 1},
            "input #1 has 3 at dim 0, input #0 has 2",
        ),
        (
            "ge.concat",
            [(2, 3), (2, 3, 1)],
            {"axis": 0},
            "input #1 has rank 3, expected 2",
        ),
        ("ge.concat", [(2, 3)], {"axis": 2}, "axis 2 is out of range for rank 2"),
        (
            "ge.split",
            [(6, 2)],
            {"axis": 0, "sizes": [1, 2]},
            "sizes [1, 2] do not add up to dim 0 of size 6",
        ),
        (
            "ge.slice",
            [(6, 2)],
            {"begins": [0], "ends": [1], "steps": [0]},
            "'steps' cannot contain 0",
        ),
        ("ge.slice", [(6, 2)], {"begins": [0, 1], "ends": [1]}, "differ in length"),
        (
            "ge.tile",
            [(6, 2)],
            {"multiples": [2]},
            "'multiples' has 1 entries for rank 2",
        ),
        (
            "ge.pad",
            [(2, 2)],
            {"paddings": [0, -3, 0, 0]},
            "padding makes dim 1 negative",
        ),
        (
            "ge.reshape",
            [(2, 6)],
            {"shape": [5, -1]},
            "cannot reshape [2, 6] into [5, -1]",
        ),
        ("ge.reshape", [(2, 6)], {"shape": [-1, -1]}, "more than one -1"),
        (
            "ge.reshape",
            [(2, 6)],
            {"shape": [0, 0, 0]},
            "0 at 2 has no input dim to copy",
        ),
        ("ge.squeeze", [(2, 1)], {"axes": [0]}, "cannot squeeze axis 0 of size 2"),
        ("ge.unsqueeze", [(2, 1)], {"axes": [0, 0]}, "repeat an axis"),
        (
            "ge.transpose",
            [(2, 1, 3)],
            {"perm": [0, 1, 1]},
            "is not a permutation of rank 3",
        ),
        ("ge.gather", [(2, 3), (2,)], {"axis": 3}, "axis 3 is out of range for rank 2"),
        ("ge.softmax", [(2, 3)], {"axis": -3}, "axis -3 is out of range for rank 2"),
        (
            "ge.no_such_op",
            [(2, 3)],
            {},
            "no shape function is registered for 'ge.no_such_op'",
        ),
    ],
)
def test_invalid_inputs_raise_precise_errors(op, shapes, attrs, message):
    with pytest.raises(ShapeError, match=re.escape(message)):
        infer_shapes(op, shapes, ["float32"] * len(shapes), attrs)


def test_dtypes_must_agree():
    with pytest.raises(ShapeError, match="operand dtypes differ: float32, float16"):
        infer_shapes("ge.add", [(2, 3), (2, 3)], ["float32", "float16"], {})
    with pytest.raises(ShapeError, match="filter dtype float16 differs from input"):
        infer_shapes(
            "ge.conv2d",
            [(1, 3, 4, 4), (2, 3, 1, 1)],
            ["float32", "float16"],
            {"data_format": "NCHW"},
        )


def test_gather_indices_must_be_integers():
    with pytest.raises(ShapeError, match="indices must be integers, got float32"):
        infer_shapes("ge.gather", [(4, 5), (3,)], ["float32", "float32"], {})


# ---------------------------------------------------------------------------
# Result types and registration
# ---------------------------------------------------------------------------


def test_result_types_keep_the_input_layout_where_the_op_does():
    x = tensor_type([1, 3, 8, 8], "float16", "NCHW")
    w = tensor_type([3, 3, 3, 4], "float16", "HWCN")
    (y,) = infer_result_types("ge.conv2d", [x, w], {"data_format": "NCHW"})
    assert shape_of(y) == (1, 4, 6, 6) and layout_of(y) == (Format.NCHW, Format.NCHW)
    (f,) = infer_result_types("ge.flatten", [x], {})
    assert shape_of(f) == (1, 192) and layout_of(f) == (Format.ND, Format.ND)
    (t,) = infer_result_types(
        "ge.transdata", [x], {"src_format": "NCHW", "dst_format": "NC1HWC0"}
    )
    assert layout_of(t) == (Format.NCHW, Format.NC1HWC0)
    (r,) = infer_result_types("ge.reduce_sum", [x], {"axes": [1], "keep_dims": False})
    assert shape_of(r) == (1, 8, 8) and layout_of(r) == (Format.ND, Format.ND)


def test_result_types_print_unknown_dims():
    x = tensor_type([-1, 3, 8, 8], "float32")
    (y,) = infer_result_types("ge.relu", [x], {})
    assert isinstance(y, TensorType)
    assert str(y) == "tensor<?x3x8x8xf32>"


def test_user_shape_function_with_defaults():
    @register_shape_function("user.double", defaults={"factor": 2}, keeps_layout=True)
    def double(shapes, dtypes, attrs):
        return [(tuple(d * attrs["factor"] for d in shapes[0]), dtypes[0])]

    try:
        assert infer_shapes("user.double", [(2, 3)], ["int8"], {}) == [((4, 6), "int8")]
        x = tensor_type([1, 2, 2, 2], "float32", "NHWC")
        (y,) = infer_result_types("user.double", [x], {"factor": 3})
        assert shape_of(y) == (3, 6, 6, 6) and layout_of(y)[0] == Format.NHWC
    finally:
        PLUGIN_SHAPE_FUNCTIONS.pop("user.double")
        PLUGIN_DEFAULTS.pop("user.double")
        PLUGIN_LAYOUT_KEEPING.discard("user.double")


def test_shape_function_attributes_of_an_op():
    from xdsl.context import Context
    from xdsl.dialects.builtin import Builtin

    from ge_dialect.dialect import GE
    from ge_dialect.parsing import parse_module
    from ge_dialect.shape_inference import shape_function_attributes

    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(GE)
    module = parse_module(
        ctx,
        """
        ge.graph @g {
          %x = ge.data {index = 0 : i64} : tensor<1x3x5x5xf32>
          %w = ge.data {index = 1 : i64} : tensor<3x3x3x2xf32, #ge.layout<HWCN>>
          %y = ge.conv2d %x, %w {data_format = "NCHW"}
             : (tensor<1x3x5x5xf32>, tensor<3x3x3x2xf32, #ge.layout<HWCN>>)
             -> tensor<1x2x3x3xf32>
          %r = ge.reshape %y : tensor<1x2x3x3xf32> -> tensor<2x9xf32>
          ge.netoutput %r : tensor<2x9xf32>
        }
        """,
    )
    ops = {op.name: op for op in module.walk()}
    conv = shape_function_attributes(ops["ge.conv2d"])
    assert conv["data_format"] == "NCHW" and conv["filter_format"] == "HWCN"
    assert conv["strides"] == [1, 1, 1, 1]  # the op's default
    assert shape_function_attributes(ops["ge.reshape"]) == {"shape": [2, 9]}
