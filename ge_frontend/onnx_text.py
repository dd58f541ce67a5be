"""ONNX's text ops: the string ops (`ge_dialect/ops/strings.py`, run on the
host) and TfIdfVectorizer over integers, a decomposition into comparisons,
sums and a matmul that runs on the JIT.

StringConcat, RegexFullMatch, StringNormalizer and StringSplit map to their
`ge` ops one to one (an empty `delimiter` or none: whitespace), and so does
ImageDecoder (bytes in, `ge.image_decoder`).

TfIdfVectorizer:

`ge` has no n-gram op: the count of each n-gram of the pool is a sum of
elementwise matches, which are plain tensor ops the JIT runs. For an n-gram
`g` of size n read with skip distance d (d - 1 items skipped between its
items), its count in a row is

    sum over s of  prod over j < n of  [x[s + j * d] == g[j]]

over the starts s whose window fits the row. Unigrams are counted at d = 1
only; longer n-grams at every d from 1 to `max_skip_count + 1` (as the
ONNX reference and onnxruntime do). Per (n, d), one `ge.equal` per item
position compares `[B, 1, L]` windows of x with the `[1, P, 1]` pool column,
`ge.logical_and` joins them and `ge.reduce_sum` counts them: `[B, P]`. The
counts of every n-gram go to the output column `ngram_indexes` gives it
through a constant matmul that also weighs them by the mode (TF: counts;
IDF: the n-gram's weight (or 1) where its count is nonzero; TFIDF: counts
times weights; `weights` has one per pool n-gram, as the ONNX spec says and
onnxruntime does).

Pool n-grams holding a value x's integer type cannot hold never match and
are dropped; an n-gram given twice counts in its last place, as the ONNX
reference's n-gram trie keeps it. Refused: a string pool (`pool_strings`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ge_frontend.importing import Unsupported, Value, registrar
from ge_frontend.onnx_context import NodeContext

TEXT_CONVERTERS: dict[str, Callable[[NodeContext], Sequence[Value]]] = {}
"""ONNX text op -> converter (merged into `onnx_ops.CONVERTERS`)."""

converts = registrar(TEXT_CONVERTERS)


@converts("ImageDecoder")
def convert_image_decoder(ctx: NodeContext) -> list[Value]:
    pixel_format = ctx.attr("pixel_format", "RGB")
    return [ctx.op("image_decoder", ctx.input(0), pixel_format=pixel_format)]


@converts("StringConcat")
def convert_string_concat(ctx: NodeContext) -> list[Value]:
    return [ctx.op("string_concat", ctx.input(0), ctx.input(1))]


@converts("RegexFullMatch")
def convert_regex_full_match(ctx: NodeContext) -> list[Value]:
    return [ctx.op("regex_full_match", ctx.input(0), pattern=ctx.attr("pattern", ""))]


@converts("StringNormalizer")
def convert_string_normalizer(ctx: NodeContext) -> list[Value]:
    return [
        ctx.op(
            "string_normalizer",
            ctx.input(0),
            case_change_action=ctx.attr("case_change_action", "NONE"),
            is_case_sensitive=bool(ctx.attr("is_case_sensitive", 0)),
            stopwords=ctx.attr("stopwords") or None,
        )
    ]


@converts("StringSplit")
def convert_string_split(ctx: NodeContext) -> list[Value]:
    return ctx.op(
        "string_split",
        ctx.input(0),
        delimiter=ctx.attr("delimiter", ""),
        maxsplit=ctx.attr("maxsplit"),
    )


def pool_ngrams(
    pool: Sequence[int], counts: Sequence[int], sizes: range
) -> dict[tuple[int, ...], int]:
    """Each n-gram of the pool whose size is in `sizes` -> its place among all
    the pool's n-grams (the index into `ngram_indexes`; a repeated n-gram
    keeps its last place)."""
    places: dict[tuple[int, ...], int] = {}
    place = 0
    for size, start in enumerate(counts, start=1):
        end = counts[size] if size < len(counts) else len(pool)
        for first in range(start, end - size + 1, size):
            if size in sizes:
                places[tuple(pool[first : first + size])] = place
            place += 1
    return places


@converts("TfIdfVectorizer")
def convert_tfidf_vectorizer(ctx: NodeContext) -> list[Value]:
    if ctx.attr("pool_strings") is not None:
        raise Unsupported("over strings")
    shape = ctx.static_shape(0)
    if len(shape) > 2:
        raise ValueError(f"input must be [C] or [B, C], got {list(shape)}")
    rows, width = (1, *shape)[-2:] if shape else (1, 1)
    sizes = range(ctx.attr("min_gram_length"), ctx.attr("max_gram_length") + 1)
    indexes = list(ctx.attr("ngram_indexes"))
    outputs = max(indexes) + 1
    limits = np.iinfo(ctx.dtype(0))
    places = {
        gram: place
        for gram, place in pool_ngrams(
            ctx.attr("pool_int64s"), ctx.attr("ngram_counts"), sizes
        ).items()
        if all(limits.min <= item <= limits.max for item in gram)
    }
    x = ctx.op("reshape", ctx.input(0), shape=[rows, 1, width], suffix="rows")
    counts: list[Value] = []
    places_found: list[int] = []
    for size in sizes:
        grams = [gram for gram in places if len(gram) == size]
        if not grams:
            continue
        pool = ctx.array(grams).T.reshape(size, 1, len(grams), 1)
        total = None
        for skip in range(1, ctx.attr("max_skip_count", 0) + 2 if size > 1 else 2):
            length = width - skip * (size - 1)
            if length <= 0:
                break
            found = None
            for item in range(size):
                begin = item * skip
                window = ctx.op(
                    "slice",
                    x,
                    begins=[begin],
                    ends=[begin + length],
                    axes=[2],
                    suffix=f"n{size}d{skip}/x{item}",
                )
                match = ctx.op(
                    "equal", window, pool[item], suffix=f"n{size}d{skip}/eq{item}"
                )
                found = (
                    match
                    if found is None
                    else ctx.op(
                        "logical_and", found, match, suffix=f"n{size}d{skip}/and{item}"
                    )
                )
            hits = ctx.op("cast", found, dst_type="float32", suffix=f"n{size}d{skip}/f")
            count = ctx.op(
                "reduce_sum", hits, axes=[2], keep_dims=False, suffix=f"n{size}d{skip}"
            )
            total = (
                count
                if total is None
                else ctx.op("add", total, count, suffix=f"n{size}d{skip}/sum")
            )
        if total is not None:
            counts.append(total)
            places_found += [places[gram] for gram in grams]
    if not counts:
        zeros: Value = np.zeros(out_shape(shape, rows, outputs), np.float32)
        return [zeros]
    found = counts[0] if len(counts) == 1 else ctx.op("concat", counts, axis=1)
    scatter = np.zeros((len(places_found), outputs), np.float32)
    scatter[np.arange(len(places_found)), [indexes[p] for p in places_found]] = 1
    weighed, scatter = weigh(ctx, found, scatter, places_found)
    y = ctx.op("matmul", weighed, scatter, suffix="columns")
    return [ctx.op("reshape", y, shape=out_shape(shape, rows, outputs))]


def out_shape(shape: Sequence[int], rows: int, outputs: int) -> list[int]:
    """`[B, O]` for a `[B, C]` input, else `[O]`."""
    return [rows, outputs] if len(shape) == 2 else [outputs]


def weigh(
    ctx: NodeContext, counts: Value, scatter: np.ndarray, places: Sequence[int]
) -> tuple[Value, np.ndarray]:
    """The per-n-gram values `[B, P]` the node's `mode` sums into the output
    columns, and the `[P, O]` matrix that does (each n-gram's weight in its
    column): TF, counts; IDF, 1 where the count is nonzero; TFIDF, counts;
    weighed by `weights`, one per pool n-gram (the ONNX spec and
    onnxruntime; the ONNX reference reads them by output column instead)."""
    mode = ctx.attr("mode")
    if mode not in ("TF", "IDF", "TFIDF"):
        raise ValueError(f"mode must be TF, IDF or TFIDF, got '{mode}'")
    weights = ctx.attr("weights")
    if mode != "TF" and weights is not None:
        weights = np.asarray(weights, np.float32)
        if len(weights) <= max(places):
            raise ValueError(f"weights has {len(weights)} values, fewer than the pool")
        scatter = scatter * weights[list(places)][:, None]
    if mode != "IDF":
        return counts, scatter
    present = ctx.op("greater", counts, np.zeros((), np.float32), suffix="present")
    return ctx.op("cast", present, dst_type="float32", suffix="present/f"), scatter
