"""ONNX-ML (`ai.onnx.ml`) op -> `ge` op conversion rules.

The classical machine-learning domain has its own opset; the driver looks
its nodes up here (`ML_CONVERTERS`) and checks their inputs against that
opset's schemas. What is a plain tensor op becomes one:

- Binarizer: `ge.binarizer` (elementwise);
- ArrayFeatureExtractor: `ge.gather` on the last axis of the flattened
  indices; a 1-D input gives one row `[1, k]`, as onnxruntime does;
- LabelEncoder: numbers to numbers, a chain of `ge.select`s the JIT runs
  (`lookup_by_selects`); with strings on either side `ge.label_encoder`, on
  the host (keys, values and default from the `*_strings`, `*_int64s`,
  `*_floats` or `*_tensor` attributes);
- TreeEnsemble: every tree's conditions and leaves as comparisons and two
  matmuls (`convert_tree_ensemble`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ge_frontend.importing import Unsupported, Value, registrar
from ge_frontend.onnx_context import NodeContext

ML_DOMAIN = "ai.onnx.ml"

ML_CONVERTERS: dict[str, Callable[[NodeContext], Sequence[Value]]] = {}
"""ONNX-ML op type -> converter."""

converts = registrar(ML_CONVERTERS)


@converts("Binarizer")
def convert_binarizer(ctx: NodeContext) -> list[Value]:
    return [ctx.op("binarizer", ctx.input(0), threshold=ctx.attr("threshold", 0.0))]


@converts("ArrayFeatureExtractor")
def convert_array_feature_extractor(ctx: NodeContext) -> list[Value]:
    x, shape = ctx.input(0), ctx.static_shape(0)
    count = math.prod(ctx.static_shape(1))
    indices = ctx.input(1)
    if len(ctx.shape(1)) != 1:
        indices = ctx.op("reshape", indices, shape=[count], suffix="indices")
    y = ctx.op("gather", x, indices, axis=len(shape) - 1)
    if len(shape) == 1:
        return [ctx.op("reshape", y, shape=[1, count], suffix="row")]
    return [y]


LABEL_KINDS = {"strings": "string", "int64s": "int64", "floats": "float32"}
"""LabelEncoder's attribute suffix -> the dtype of what it lists."""

LABEL_DEFAULTS = {"string": "_Unused", "int64": -1, "float32": -0.0}
"""LabelEncoder's default value per value dtype (ONNX's)."""


def label_list(ctx: NodeContext, role: str) -> tuple[list[Any], str]:
    """LabelEncoder's `keys` or `values`: the listed items and their dtype."""
    if (tensor := ctx.attr(f"{role}_tensor")) is not None:
        dtype = "string" if tensor.dtype == object else tensor.dtype.name
        return tensor.ravel().tolist(), dtype
    for suffix, dtype in LABEL_KINDS.items():
        if (items := ctx.attr(f"{role}_{suffix}")) is not None:
            return list(items), dtype
    raise ValueError(f"no {role}: set one of {role}_strings, _int64s, _floats, _tensor")


@converts("LabelEncoder")
def convert_label_encoder(ctx: NodeContext) -> list[Value]:
    keys, key_dtype = label_list(ctx, "keys")
    values, dtype = label_list(ctx, "values")
    if (key_dtype == "string") != (ctx.dtype(0) == "string"):
        raise ValueError(f"keys are {key_dtype}, x is {ctx.dtype(0)}")
    if len(keys) != len(values):
        raise ValueError(f"{len(keys)} keys but {len(values)} values")
    if ctx.opset < 4:  # NaN keys match NaN from opset 4 on (onnxruntime)
        kept = [i for i, key in enumerate(keys) if not is_nan(key)]
        keys, values = [keys[i] for i in kept], [values[i] for i in kept]
    if (tensor := ctx.attr("default_tensor")) is not None:
        default = tensor.ravel().tolist()[0]
    elif dtype in LABEL_DEFAULTS:
        suffix = next(s for s, d in LABEL_KINDS.items() if d == dtype)
        default = ctx.attr(f"default_{suffix[:-1]}", LABEL_DEFAULTS[dtype])
    else:  # a values_tensor's type: ONNX's default for its kind
        default = -1 if np.dtype(dtype).kind in "iu" else -0.0
    if dtype != "string":
        default = np.asarray(default, dtype).item()
    if "string" not in (key_dtype, dtype):
        return [lookup_by_selects(ctx, keys, values, default, dtype)]
    return [
        ctx.op(
            "label_encoder",
            ctx.input(0),
            keys=keys,
            values=values,
            default=default,
            dst_type=dtype,
        )
    ]


def lookup_by_selects(
    ctx: NodeContext,
    keys: Sequence[Any],
    values: Sequence[Any],
    default: Any,
    dtype: str,
) -> Value:
    """LabelEncoder over numbers as tensor ops the JIT runs: starting from
    the default, one `ge.select` per key where x equals it (`ge.is_nan` for
    a NaN key), the last key first so the first of equal keys wins. A key x's
    dtype cannot hold never matches."""
    x = ctx.input(0)
    y: Value = np.asarray(default, dtype)
    for index in range(len(keys) - 1, -1, -1):
        key = np.asarray(keys[index], ctx.dtype(0))
        if key.item() != keys[index] and not is_nan(keys[index]):
            continue
        found = (
            ctx.op("is_nan", x, suffix=f"key{index}")
            if is_nan(keys[index])
            else ctx.op("equal", x, key, suffix=f"key{index}")
        )
        value = np.asarray(values[index], dtype)
        y = ctx.op("select", found, value, y, suffix=f"value{index}")
    if isinstance(y, np.ndarray):  # no key can match
        return ctx.op("fill", np.asarray(ctx.static_shape(0), np.int64), y)
    return y


def is_nan(key: Any) -> bool:
    """Whether a LabelEncoder key is a float NaN."""
    return isinstance(key, float) and math.isnan(key)


COMPARISONS = ("less_equal", "less", "greater_equal", "greater", "equal", "not_equal")
"""TreeEnsemble's `nodes_modes` 0-5 (BRANCH_LEQ ... BRANCH_NEQ) as `ge` ops;
6 is BRANCH_MEMBER (set membership)."""

MEMBER = 6


@dataclass(frozen=True)
class TreeNodes:
    """A TreeEnsemble's interior nodes and leaves, as its attributes give them."""

    features: list[int]
    modes: list[int]
    true_ids: list[int]
    false_ids: list[int]
    true_leafs: list[int]
    false_leafs: list[int]

    def paths(self, root: int) -> list[tuple[int, list[tuple[int, bool]]]]:
        """Each leaf of the tree at `root` and the (node, outcome) pairs on
        its path; a root whose both branches are one leaf is that leaf."""
        if (
            self.true_leafs[root]
            and self.false_leafs[root]
            and self.true_ids[root] == self.false_ids[root]
        ):
            return [(self.true_ids[root], [])]
        found: list[tuple[int, list[tuple[int, bool]]]] = []
        stack: list[tuple[int, list[tuple[int, bool]]]] = [(root, [])]
        while stack:
            node, path = stack.pop()
            if len(path) > len(self.modes):
                raise ValueError("the trees' nodes form a cycle")
            for outcome, ids, leafs in (
                (True, self.true_ids, self.true_leafs),
                (False, self.false_ids, self.false_leafs),
            ):
                step = [*path, (node, outcome)]
                if leafs[node]:
                    found.append((ids[node], step))
                else:
                    stack.append((ids[node], step))
        return found


@converts("TreeEnsemble")
def convert_tree_ensemble(ctx: NodeContext) -> list[Value]:
    """Every tree at once, as tensor ops the JIT runs: each interior node's
    condition over the batch (`[B, N]`, its feature gathered, one comparison
    per mode, set membership as any equal member, NaN taking the true
    branch where `nodes_missing_value_tracks_true` says), then each leaf
    fires where all conditions on its path hold: counted by a matmul with
    +1/-1 path weights (exact small integers) and compared with the path's
    length; a matmul of the fired leaves with their weights sums them into
    their targets (SUM, AVERAGE divides by the trees). Refused: MIN and MAX
    aggregation and a post transform."""
    if ctx.attr("post_transform", 0) != 0:
        raise Unsupported("with a post_transform")
    aggregate = ctx.attr("aggregate_function", 1)
    if aggregate not in (0, 1):
        raise Unsupported("with MIN or MAX aggregation")
    if len(ctx.static_shape(0)) != 2:
        raise ValueError(f"X must be [N, F], got {list(ctx.shape(0))}")
    dtype = ctx.dtype(0)
    nodes = TreeNodes(
        ctx.attr("nodes_featureids"),
        [int(m) for m in ctx.attr("nodes_modes")],
        ctx.attr("nodes_truenodeids"),
        ctx.attr("nodes_falsenodeids"),
        ctx.attr("nodes_trueleafs"),
        ctx.attr("nodes_falseleafs"),
    )
    conditions = node_conditions(ctx, nodes)
    leaves = [
        path for root in ctx.attr("tree_roots") for path in nodes.paths(int(root))
    ]
    signs = np.zeros((len(nodes.modes), len(leaves)), np.float32)
    for column, (_, path) in enumerate(leaves):
        for node, outcome in path:
            signs[node, column] += 1 if outcome else -1
    needed = np.array(
        [sum(1 for _, outcome in path if outcome) for _, path in leaves], np.float32
    )
    held = ctx.op("matmul", conditions, signs, suffix="paths")
    fired = ctx.op("equal", held, needed, suffix="fired")
    weights = np.zeros((len(leaves), ctx.attr("n_targets")), dtype)
    leaf_weights = ctx.attr("leaf_weights").astype(dtype)
    targets = ctx.attr("leaf_targetids")
    for row, (leaf, _) in enumerate(leaves):
        weights[row, targets[leaf]] = leaf_weights[leaf]
    if aggregate == 0:
        weights /= np.asarray(len(ctx.attr("tree_roots")), dtype)
    fired_values = ctx.op("cast", fired, dst_type=dtype, suffix="fired/cast")
    return [ctx.op("matmul", fired_values, weights, suffix="targets")]


def node_conditions(ctx: NodeContext, nodes: TreeNodes) -> Value:
    """`[B, N]` float32: 1 where node n's condition holds for row b."""
    x = ctx.input(0)
    dtype = ctx.dtype(0)
    features = ctx.op(
        "gather", x, np.asarray(nodes.features, np.int64), axis=1, suffix="features"
    )
    splits = ctx.attr("nodes_splits").astype(dtype)
    holds = None
    for mode in sorted(set(nodes.modes)):
        mask = np.asarray([m == mode for m in nodes.modes])
        if mode == MEMBER:
            members = member_table(ctx.attr("membership_values"), nodes.modes, dtype)
            wide = ctx.op("unsqueeze", features, axes=[2], suffix="member/x")
            equal = ctx.op("equal", wide, members, suffix="member/eq")
            count = ctx.op("cast", equal, dst_type="float32", suffix="member/f")
            hits = ctx.op("reduce_max", count, axes=[2], keep_dims=False)
            found = ctx.op("greater", hits, np.zeros((), np.float32), suffix="member")
        else:
            found = ctx.op(COMPARISONS[mode], features, splits, suffix=f"mode{mode}")
        chosen = ctx.op("logical_and", found, mask, suffix=f"mode{mode}/mask")
        holds = (
            chosen
            if holds is None
            else ctx.op("logical_or", holds, chosen, suffix=f"mode{mode}/or")
        )
    assert holds is not None
    missing = ctx.attr("nodes_missing_value_tracks_true")
    if missing is not None and any(missing):
        nan = ctx.op("is_nan", features, suffix="missing")
        tracks = np.asarray([bool(m) for m in missing])
        taken = ctx.op("logical_and", nan, tracks, suffix="missing/mask")
        holds = ctx.op("logical_or", holds, taken, suffix="missing/or")
    return ctx.op("cast", holds, dst_type="float32", suffix="conditions")


def member_table(values: np.ndarray | None, modes: Sequence[int], dtype: str):
    """`[N, K]`: each set-membership node's members (NaN-delimited in
    `membership_values`, in the order of the nodes), NaN-padded (NaN equals
    nothing); other nodes' rows are NaN."""
    if values is None:
        raise ValueError("set membership nodes need membership_values")
    sets: list[list[float]] = [[]]
    for value in values.tolist():
        if math.isnan(value):
            sets.append([])
        else:
            sets[-1].append(value)
    member_nodes = [n for n, mode in enumerate(modes) if mode == MEMBER]
    if len(sets) - 1 != len(member_nodes):
        raise ValueError(
            f"{len(member_nodes)} set membership nodes, {len(sets) - 1} sets of members"
        )
    table = np.full((len(modes), max(1, *map(len, sets))), np.nan, dtype)
    for node, members in zip(member_nodes, sets, strict=False):
        table[node, : len(members)] = members
    return table
