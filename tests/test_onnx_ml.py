"""ONNX-ML's tensor ops and TfIdfVectorizer on integers: one-node models
through `ge-atc` + `ge-run` (JIT and reference) against onnxruntime, or the
ONNX reference evaluator where onnxruntime lacks the type, at odd sizes and
special values; every op runs on the JIT."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import numpy_helper
from onnx.reference import ReferenceEvaluator
from onnx_jit import (
    assert_runs_on_the_jit,
    atc_error,
    one_node_model,
    with_output_types,
)

from ge_frontend.onnx_text import pool_ngrams

ML = "ai.onnx.ml"
RNG = np.random.default_rng(37)


def specials(*shape: int) -> np.ndarray:
    x = RNG.normal(size=shape).astype(np.float32)
    x.flat[:6] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5]
    return x


@pytest.mark.parametrize("threshold", [0.5, -0.25, 0.0])
def test_binarizer_float_matches_onnxruntime(threshold, tmp_path):
    x = specials(3, 5, 7)
    x[0, 0, 0] = 1.0  # onnxruntime refuses NaN
    model = one_node_model("Binarizer", {"x": x}, domain=ML, threshold=threshold)
    assert_runs_on_the_jit(model, {"x": x}, tmp_path)


def test_binarizer_maps_nan_to_zero_as_the_onnx_reference(tmp_path):
    x = specials(5, 3)
    model = one_node_model("Binarizer", {"x": x}, domain=ML, threshold=-1.0)
    expected = ReferenceEvaluator(model).run(None, {"x": x})
    assert expected[0][0, 0] == 0
    assert_runs_on_the_jit(model, {"x": x}, tmp_path, expected)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float64])
def test_binarizer_other_types_match_the_onnx_reference(dtype, tmp_path):
    x = RNG.integers(-4, 5, size=(7, 3)).astype(dtype)
    model = one_node_model("Binarizer", {"x": x}, domain=ML, threshold=1.5)
    expected = ReferenceEvaluator(model).run(None, {"x": x})
    np.testing.assert_array_equal(expected[0], (x > 1.5).astype(dtype))
    assert_runs_on_the_jit(model, {"x": x}, tmp_path, expected)


@pytest.mark.parametrize(
    ("shape", "indices"),
    [
        ((3, 7), np.array([6, 0, 3, 3, 1], np.int64)),
        ((2, 3, 5), np.array([[4, 0, 2]], np.int64)),
        ((2, 5), np.array([[1, 4], [0, 0]], np.int64)),
        ((9,), np.array([8, 2, 5], np.int64)),
    ],
)
def test_array_feature_extractor_matches_onnxruntime(shape, indices, tmp_path):
    x = specials(*shape)
    inputs = {"x": x, "indices": indices}
    model = one_node_model("ArrayFeatureExtractor", inputs, domain=ML)
    assert_runs_on_the_jit(model, inputs, tmp_path)


def test_array_feature_extractor_takes_integers(tmp_path):
    inputs = {
        "x": RNG.integers(-9, 9, size=(5, 3)).astype(np.int64),
        "indices": np.array([2, 2, 0], np.int64),
    }
    model = one_node_model("ArrayFeatureExtractor", inputs, domain=ML)
    assert_runs_on_the_jit(model, inputs, tmp_path)


def tfidf_model(x: np.ndarray, **attributes: object):
    return one_node_model("TfIdfVectorizer", {"x": x}, opset=9, **attributes)


POOL = {
    # unigrams 2, 3, 5, 7; bigrams (2 3) (5 2) (7 7) (3 3); trigram (2 3 5)
    "pool_int64s": [2, 3, 5, 7, 2, 3, 5, 2, 7, 7, 3, 3, 2, 3, 5],
    "ngram_counts": [0, 4, 12],
    "ngram_indexes": [8, 0, 1, 2, 3, 4, 5, 6, 7],
}


@pytest.mark.parametrize("mode", ["TF", "IDF", "TFIDF"])
@pytest.mark.parametrize(("low", "high", "skip"), [(1, 1, 0), (1, 3, 2), (2, 3, 4)])
def test_tfidf_vectorizer_matches_onnxruntime(mode, low, high, skip, tmp_path):
    x = RNG.choice([2, 3, 5, 7, 11], size=(5, 13)).astype(np.int32)
    attributes = {
        **POOL,
        "mode": mode,
        "min_gram_length": low,
        "max_gram_length": high,
        "max_skip_count": skip,
    }
    if mode != "TF":
        attributes["weights"] = list(RNG.uniform(0.5, 2, size=9).astype(np.float32))
    assert_runs_on_the_jit(tfidf_model(x, **attributes), {"x": x}, tmp_path)


@pytest.mark.parametrize("mode", ["IDF", "TFIDF"])
def test_tfidf_vectorizer_without_weights_on_a_row(mode, tmp_path):
    x = RNG.choice([2, 3, 5, 7], size=11).astype(np.int64)
    attributes = {**POOL, "mode": mode, "min_gram_length": 1, "max_gram_length": 2}
    attributes["max_skip_count"] = 1
    assert_runs_on_the_jit(tfidf_model(x, **attributes), {"x": x}, tmp_path)


def test_tfidf_vectorizer_pool_values_out_of_int32_never_match(tmp_path):
    x = np.array([[1, 2, 1, 2, 3]], np.int32)
    attributes = {
        "pool_int64s": [1, 2**32 + 1, 2, 1],
        "ngram_counts": [0, 2],
        "ngram_indexes": [0, 1, 2],
        "mode": "TF",
        "min_gram_length": 1,
        "max_gram_length": 2,
        "max_skip_count": 0,
    }
    expected = [np.array([[2, 0, 1]], np.float32)]
    assert_runs_on_the_jit(tfidf_model(x, **attributes), {"x": x}, tmp_path, expected)


def test_tfidf_vectorizer_window_longer_than_the_row_counts_nothing(tmp_path):
    x = np.array([[2, 3], [3, 5]], np.int64)
    attributes = {**POOL, "mode": "TF", "min_gram_length": 3, "max_gram_length": 3}
    attributes["max_skip_count"] = 2
    expected = [np.zeros((2, 9), np.float32)]
    assert_runs_on_the_jit(tfidf_model(x, **attributes), {"x": x}, tmp_path, expected)


def test_pool_ngrams_places_every_ngram_and_keeps_sizes_asked_for():
    places = pool_ngrams(POOL["pool_int64s"], POOL["ngram_counts"], range(2, 3))
    assert places == {(2, 3): 4, (5, 2): 5, (7, 7): 6, (3, 3): 7}
    repeated = pool_ngrams([4, 4, 9], [0], range(1, 2))
    assert repeated == {(4,): 1, (9,): 2}


@pytest.mark.parametrize(
    ("x", "attributes"),
    [
        (
            RNG.integers(-3, 4, size=(5, 7)).astype(np.int64),
            {"keys_int64s": [2, -3, 0, 2], "values_int64s": [7, 8, 9, 10]},
        ),
        (
            specials(3, 5),
            {
                "keys_floats": [np.nan, 0.0, np.inf, 0.5],
                "values_int64s": [1, 2, 3, 4],
                "default_int64": -5,
            },
        ),
        (
            RNG.integers(0, 3, size=(9,)).astype(np.int64),
            {"keys_int64s": [1], "values_floats": [2.5], "default_float": 0.25},
        ),
    ],
)
def test_label_encoder_over_numbers_runs_on_the_jit(x, attributes, tmp_path):
    model = one_node_model("LabelEncoder", {"x": x}, domain=ML, **attributes)
    assert_runs_on_the_jit(model, {"x": x}, tmp_path)


def test_label_encoder_nan_keys_match_nan_from_opset_4(tmp_path):
    x = specials(3, 5)
    attributes = {"keys_floats": [np.nan, 0.5], "values_int64s": [1, 2]}
    model = one_node_model("LabelEncoder", {"x": x}, domain=ML, **attributes)
    model.opset_import[1].version = 4
    expected = np.where(np.isnan(x), 1, np.where(x == 0.5, 2, -1))
    assert_runs_on_the_jit(model, {"x": x}, tmp_path, [expected])


def random_forest(trees: int, depth: int, features: int, dtype):
    """TreeEnsemble attributes of `trees` full trees of `depth` with random
    modes (all six comparisons and set membership), splits and leaves."""
    attrs = {k: [] for k in ("feat", "mode", "split", "t", "f", "tl", "fl", "miss")}
    members, leaf_targets, leaf_weights, roots = [], [], [], []

    def grow(level: int) -> tuple[int, bool]:
        if level == depth:
            leaf_targets.append(int(RNG.integers(0, 3)))
            leaf_weights.append(float(RNG.normal()))
            return len(leaf_targets) - 1, True
        node = len(attrs["mode"])
        mode = int(RNG.integers(0, 7))
        attrs["feat"].append(int(RNG.integers(0, features)))
        attrs["mode"].append(mode)
        attrs["split"].append(float(RNG.integers(-4, 5)) / 2)
        attrs["miss"].append(int(RNG.integers(0, 2)))
        if mode == 6:
            # onnxruntime takes small positive integer members only (the ONNX
            # reference stops a set at a 0.0)
            members.extend([*RNG.choice([1.0, 2.0, 3.0, 4.0], size=3), np.nan])
        for key in ("t", "f", "tl", "fl"):
            attrs[key].append(0)
        for side in ("t", "f"):
            child, leaf = grow(level + 1)
            attrs[side][node], attrs[f"{side}l"][node] = child, int(leaf)
        return node, False

    for _ in range(trees):
        roots.append(grow(0)[0])
    tensor = np.dtype(dtype)
    result = {
        "nodes_featureids": attrs["feat"],
        "nodes_modes": numpy_helper.from_array(np.array(attrs["mode"], np.uint8)),
        "nodes_splits": numpy_helper.from_array(np.array(attrs["split"], tensor)),
        "nodes_truenodeids": attrs["t"],
        "nodes_falsenodeids": attrs["f"],
        "nodes_trueleafs": attrs["tl"],
        "nodes_falseleafs": attrs["fl"],
        "nodes_missing_value_tracks_true": attrs["miss"],
        "leaf_targetids": leaf_targets,
        "leaf_weights": numpy_helper.from_array(np.array(leaf_weights, tensor)),
        "tree_roots": roots,
        "n_targets": 3,
    }
    if members:
        result["membership_values"] = numpy_helper.from_array(np.array(members, tensor))
    return result


@pytest.mark.parametrize("aggregate", [0, 1])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tree_ensemble_matches_onnxruntime(aggregate, dtype, tmp_path):
    x = (RNG.integers(-4, 5, size=(11, 5)) / 2).astype(dtype)  # ties with splits
    x[0, :] = np.nan
    attributes = random_forest(4, 3, 5, dtype)
    model = one_node_model(
        "TreeEnsemble", {"x": x}, domain=ML, aggregate_function=aggregate, **attributes
    )
    model.opset_import[1].version = 5
    assert_runs_on_the_jit(model, {"x": x}, tmp_path)


def test_tree_ensemble_min_aggregation_is_refused(tmp_path, capsys):
    x = np.zeros((2, 5), np.float32)
    attributes = random_forest(2, 1, 5, np.float32)
    model = one_node_model(
        "TreeEnsemble", {"x": x}, domain=ML, aggregate_function=2, **attributes
    )
    model.opset_import[1].version = 5
    typed = with_output_types(model, [np.zeros((2, 3), np.float32)])
    assert "TreeEnsemble with MIN or MAX aggregation" in atc_error(
        typed, tmp_path, capsys
    )
