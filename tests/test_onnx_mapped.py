"""Large ONNX initializers read in place (`ge_frontend.onnx_mapped`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from ge_frontend.onnx_import import import_onnx
from ge_frontend.onnx_mapped import MAPPED_BYTES, map_external_data, strip_initializers


def matmul_model(weight: np.ndarray, small: np.ndarray) -> onnx.ModelProto:
    """y = (x @ w) + b with `w` large (mapped) and `b` small (kept)."""
    rows, cols = weight.shape
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, rows])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, cols])
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["p"]),
        helper.make_node("Add", ["p", "b"], ["y"]),
    ]
    initializers = [
        numpy_helper.from_array(weight, "w"),
        numpy_helper.from_array(small, "b"),
    ]
    graph = helper.make_graph(nodes, "g", [x], [y], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_large_initializers_are_arrays_over_the_file(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    weight = rng.standard_normal((128, 256)).astype(np.float32)
    assert weight.nbytes >= MAPPED_BYTES
    small = rng.standard_normal(256).astype(np.float32)
    path = tmp_path / "m.onnx"
    onnx.save(matmul_model(weight, small), path)
    stripped = strip_initializers(path)
    assert stripped is not None
    message, arrays = stripped
    assert set(arrays) == {"w"}  # the small one stays in the message
    assert len(message) < path.stat().st_size - weight.nbytes + 1024
    np.testing.assert_array_equal(arrays["w"], weight)
    assert not arrays["w"].flags.owndata
    imported = import_onnx(path)
    (w,) = [a for a in imported.weights.values() if a.shape == weight.shape]
    np.testing.assert_array_equal(w, weight)
    assert not w.flags.owndata  # the mapped array, not a copy
    from_proto = import_onnx(matmul_model(weight, small))
    assert str(imported.module) == str(from_proto.module)


def test_what_it_cannot_read_exactly_stays_in_the_message(tmp_path: Path) -> None:
    weight = np.ones((64, 512), np.float16)
    model = matmul_model(weight.astype(np.float32), np.zeros(512, np.float32))
    tensor = model.graph.initializer[0]
    tensor.raw_data = tensor.raw_data[:-4]  # shorter than its dims say
    path = tmp_path / "short.onnx"
    onnx.save(
        model,
        path,
    )
    assert strip_initializers(path) is None
    (tmp_path / "garbage.onnx").write_bytes(b"\xff" * 100)
    assert strip_initializers(tmp_path / "garbage.onnx") is None


def test_external_data_is_mapped_not_loaded(tmp_path: Path) -> None:
    """A large model's `.onnx.data`: its tensors are arrays over the mapped
    data file, as the onnx loader would give them."""
    rng = np.random.default_rng(1)
    weight = rng.standard_normal((64, 96)).astype(np.float32)
    small = rng.standard_normal(96).astype(np.float32)
    path = tmp_path / "m.onnx"
    onnx.save(
        matmul_model(weight, small),
        path,
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location="m.onnx.data",
        size_threshold=0,
    )
    imported = import_onnx(path)
    arrays = {a.shape: a for a in imported.weights.values()}
    np.testing.assert_array_equal(arrays[weight.shape], weight)
    assert not arrays[weight.shape].flags.owndata  # over the mapped file
    from_proto = import_onnx(matmul_model(weight, small))
    assert str(imported.module) == str(from_proto.module)


def test_external_data_it_cannot_map_is_loaded(tmp_path: Path) -> None:
    """A length that is not what the dims say: loaded (and refused) by onnx."""
    weight = np.ones((8, 4), np.float32)
    model = matmul_model(weight, np.zeros(4, np.float32))
    onnx.save(
        model,
        tmp_path / "m.onnx",
        save_as_external_data=True,
        location="d.bin",
        size_threshold=0,
    )
    assert map_external_data(
        onnx.load(tmp_path / "m.onnx", load_external_data=False), str(tmp_path), "m"
    ).keys() == {"w", "b"}
    model = onnx.load(tmp_path / "m.onnx", load_external_data=False)
    for entry in model.graph.initializer[0].external_data:
        if entry.key == "length":
            entry.value = "12"
    assert "w" not in map_external_data(model, str(tmp_path), "m")
