"""The offline model container: round trip, validation, JSON description."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import struct
from pathlib import Path

import numpy as np
import pytest
from xdsl.printer import Printer

from ge_dialect.builder import GraphBuilder
from ge_dialect.diagnostics import GEError
from ge_runtime.engines.reference import evaluate
from ge_runtime.jit import compiler
from ge_runtime.jit.cache import bundle
from ge_runtime.offline.om import (
    ALIGNMENT,
    DIGEST_SIZE,
    FORMAT_VERSION,
    HEADER,
    MAGIC,
    SECTION_ENTRY,
    WEIGHT_INDEX,
    load_offline_model,
    pack_sections,
)
from ge_runtime.offline.om_ir import (
    describe_model,
    make_offline_model,
    module_text,
    save_offline_model,
    write_offline_model,
)


def small_module():
    """conv (external weight "w") + relu on a 1x3x8x8 input, as imported."""
    b = GraphBuilder("main")
    x = b.data([1, 3, 8, 8], "float32", name="x")
    w = b.external_const("w", [17, 3, 3, 3], "float32", name="w")
    bias = b.const(np.linspace(-1, 1, 17, dtype=np.float32), name="bias")
    y = b.conv2d(x, w, bias, pads=[1, 1, 1, 1], data_format="NCHW", name="conv")
    b.output(b.relu(y, name="relu"))
    return b.build()


WEIGHTS = {"w": np.random.default_rng(0).standard_normal((17, 3, 3, 3), np.float32)}


@pytest.fixture
def om_file(tmp_path: Path) -> Path:
    path = tmp_path / "m.om"
    module = small_module()
    save_offline_model(
        path, module, WEIGHTS, {"compile_options": {"max_streams": 2}}, source=module
    )
    return path


def test_module_text_is_xdsls_printed_text() -> None:
    """The printer writing each attribute's (each type's) text once found
    prints what xDSL's does: signed zeros, shared and nested types, names
    to escape."""
    b = GraphBuilder("main")
    x = b.data([1, 3, 8, 8], "float32", name="x")
    zeros = b.const(np.array([0.0, -0.0, 0.0], np.float32).reshape(1, 3, 1, 1))
    y = b.add(b.relu(x, name='r"\\é'), b.add(zeros, b.const(np.float32(-0.0))))
    b.output(b.mul(y, y))
    module = b.build()
    stream = io.StringIO()
    Printer(stream=stream).print_op(module)
    assert module_text(module) == stream.getvalue() + "\n"


def test_round_trip(om_file: Path) -> None:
    model = load_offline_model(om_file)
    assert model.manifest["format_version"] == FORMAT_VERSION
    assert model.manifest["compile_options"] == {"max_streams": 2}
    assert model.manifest["graph"] == "main"
    (entry,) = model.manifest["inputs"]
    assert entry["name"] == "x" and entry["shape"] == [1, 3, 8, 8]
    assert entry["dtype"] == "float32"
    (out,) = model.manifest["outputs"]
    assert out["shape"] == [1, 17, 8, 8]
    assert set(model.weights) == {"w"}
    np.testing.assert_array_equal(model.weights["w"], WEIGHTS["w"])
    assert str(model.module()) == str(small_module())
    assert model.source_ir == model.ir
    x = np.ones((1, 3, 8, 8), np.float32)
    (ours,) = evaluate(model.module(), {"x": x}, weights=model.weights)
    (ref,) = evaluate(small_module(), {"x": x}, weights=WEIGHTS)
    np.testing.assert_array_equal(ours, ref)


def test_only_weights_the_graphs_read_are_stored(tmp_path: Path) -> None:
    weights = {**WEIGHTS, "unused": np.zeros(3)}
    model = save_offline_model(tmp_path / "m.om", small_module(), weights, {})
    assert set(model.weights) == {"w"}
    assert set(load_offline_model(tmp_path / "m.om").weights) == {"w"}


def test_big_endian_weights_read_back_as_their_values(tmp_path: Path) -> None:
    weights = {"w": WEIGHTS["w"].astype(">f4")}
    save_offline_model(tmp_path / "m.om", small_module(), weights, {})
    stored = load_offline_model(tmp_path / "m.om").weights["w"]
    np.testing.assert_array_equal(stored, WEIGHTS["w"])


def test_weight_keys_with_path_characters_survive(tmp_path: Path) -> None:
    b = GraphBuilder("main")
    x = b.data([2, 3], "float32", name="x")
    key = "/layer.1/w@FRACTAL_NZ:float32"
    b.output(b.add(x, b.external_const(key, [2, 3], "float32")))
    save_offline_model(tmp_path / "m.om", b.build(), {key: np.ones((2, 3))}, {})
    assert set(load_offline_model(tmp_path / "m.om").weights) == {key}


def test_missing_weight_is_an_error_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "m.om"
    with pytest.raises(GEError, match="weight 'w' is not in the weights"):
        save_offline_model(path, small_module(), {}, {})
    assert not path.exists()


def test_source_is_optional(tmp_path: Path) -> None:
    save_offline_model(tmp_path / "m.om", small_module(), WEIGHTS, {})
    model = load_offline_model(tmp_path / "m.om")
    assert model.source_ir is None
    with pytest.raises(GEError, match="no source graph"):
        model.source_module()


def rewrite(path: Path, data: bytes, *, fix_checksum: bool = False) -> None:
    if fix_checksum:
        body = data[:-DIGEST_SIZE]
        data = body + hashlib.sha256(body).digest()
    path.write_bytes(data)


def one_line_error(path: Path) -> str:
    with pytest.raises(GEError) as info:
        load_offline_model(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: error: ")
    return message


def test_garbage_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "bad.om"
    path.write_bytes(b"this is not a model at all, just text\n" * 4)
    assert "bad magic number" in one_line_error(path)


def test_empty_file_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "empty.om"
    path.write_bytes(b"")
    assert "truncated offline model (0 bytes, no complete header)" in one_line_error(
        path
    )


@pytest.mark.parametrize("keep", [10, HEADER.size + 3, 0.5, -1])
def test_truncation_is_rejected(om_file: Path, keep: float) -> None:
    data = om_file.read_bytes()
    cut = int(len(data) * keep) if isinstance(keep, float) else keep
    rewrite(om_file, data[:cut])
    assert "truncated offline model" in one_line_error(om_file)


def test_trailing_data_is_rejected(om_file: Path) -> None:
    rewrite(om_file, om_file.read_bytes() + b"\0")
    assert "trailing data" in one_line_error(om_file)


def test_wrong_version_is_rejected(om_file: Path) -> None:
    data = bytearray(om_file.read_bytes())
    struct.pack_into("<I", data, len(MAGIC), FORMAT_VERSION + 1)
    rewrite(om_file, bytes(data), fix_checksum=True)
    message = one_line_error(om_file)
    assert f"format version {FORMAT_VERSION + 1} is not supported" in message


@pytest.mark.parametrize("where", [HEADER.size + 40, 0.5, -DIGEST_SIZE - 1, -1])
def test_bad_checksum_is_rejected(om_file: Path, where: float) -> None:
    data = bytearray(om_file.read_bytes())
    index = int(len(data) * where) if isinstance(where, float) else where
    data[index] ^= 0x55
    rewrite(om_file, bytes(data))
    assert "checksum mismatch" in one_line_error(om_file)


def test_inconsistent_section_table_is_rejected(om_file: Path) -> None:
    data = bytearray(om_file.read_bytes())
    length_offset = HEADER.size + 8  # first section's length
    (length,) = struct.unpack_from("<Q", data, length_offset)
    struct.pack_into("<Q", data, length_offset, length + 1)
    rewrite(om_file, bytes(data), fix_checksum=True)
    assert "section lengths do not add up" in one_line_error(om_file)


def test_corrupt_manifest_with_valid_checksum_is_rejected(om_file: Path) -> None:
    data = bytearray(om_file.read_bytes())
    start = data.index(b"{")
    data[start] = ord("[")
    rewrite(om_file, bytes(data), fix_checksum=True)
    with pytest.raises(GEError, match=r"m\.om:manifest:\d+:\d+: error: manifest is"):
        load_offline_model(om_file)


def test_describe_model_lists_ops_descs_and_weights() -> None:
    module = small_module()
    model = make_offline_model(module, WEIGHTS, {}, source=module)
    described = json.loads(json.dumps(describe_model(model)))
    (graph,) = described["graph"]
    ops = {op["name"]: op for op in graph["op"]}
    assert ops["conv"]["type"] == "ge.conv2d"
    assert ops["conv"]["input"] == ["x:0", "w:0", "bias:0"]
    assert ops["conv"]["attr"]["pads"] == [1, 1, 1, 1]
    assert ops["w"]["attr"]["value"] == "external 'w'"
    assert ops["bias"]["attr"]["value"] == "dense float32[17]"
    assert ops["relu"]["output_desc"][0]["shape"] == [1, 17, 8, 8]
    assert described["weights"] == [
        {"name": "w", "dtype": "float32", "shape": [17, 3, 3, 3], "bytes": 1836}
    ]
    assert described["manifest"]["outputs"][0]["dtype"] == "float32"


BAD_INPUTS = Path(__file__).parent / "bad_inputs"


def compiled_small_cnn(tmp_path: Path):
    """`examples/small_cnn.onnx` compiled as `ge-atc` does, and its `.om` path."""
    from ge_xdsl.atc import compile_offline_model

    path = tmp_path / "cnn.om"
    offline, compiled = compile_offline_model(
        Path(__file__).parent.parent / "examples" / "small_cnn.onnx",
        input_shape="input:2,3,32,32",
        path=str(path),
    )
    with path.open("wb") as stream:
        write_offline_model(offline, stream)
    return offline, compiled, path


def test_each_weight_is_stored_once_in_the_layout_the_model_reads(
    tmp_path: Path,
) -> None:
    offline, compiled, path = compiled_small_cnn(tmp_path)
    model = load_offline_model(path)
    module = model.module()
    assert model.origins, "the small CNN has relaid-out weights only --check reads"
    stored = set(model.weights)
    assert not stored & set(model.origins)
    assert set(model.origins.values()) <= stored
    for key, array in model.source_weights(module).items():
        source = compiled.weights.weights[key] if key in model.origins else array
        np.testing.assert_array_equal(array, source)  # derived back exactly
    data_start = path.stat().st_size - sum(a.nbytes for a in model.weights.values())
    for array in model.weights.values():
        assert array.ctypes.data % ALIGNMENT == 0
        assert not array.flags.writeable  # over the read-only mapping
    assert data_start > 0


def test_check_reads_the_origin_weights_derived_from_storage(tmp_path: Path) -> None:
    from ge_xdsl.run import RunnableModel
    from ge_xdsl.serving import graph_inputs

    _, _, path = compiled_small_cnn(tmp_path)
    model = RunnableModel.load(path)
    graph = model.graph()
    inputs = graph_inputs(graph, {}, random=True, seed=1)
    outputs = model.compile(graph).run(inputs)
    (expected,) = model.expected(inputs)
    np.testing.assert_allclose(outputs[0], expected, rtol=1e-4, atol=1e-4)


def test_version_1_files_still_run() -> None:
    """A model written by format version 1 (`tests/data/om-version-1.om`: the
    corpus' valid model as it was, one `.npz` section holding both layouts)."""
    from ge_xdsl.run import RunnableModel
    from ge_xdsl.serving import graph_inputs

    path = Path(__file__).parent / "data" / "om-version-1.om"
    assert load_offline_model(path).manifest["format_version"] == 1
    model = RunnableModel.load(path)
    graph = model.graph()
    inputs = graph_inputs(graph, {}, random=True)
    (ours,) = model.compile(graph).run(inputs)
    (expected,) = model.expected(inputs)
    np.testing.assert_allclose(ours, expected, rtol=1e-4, atol=1e-4)


def forged_index(path: Path, change) -> None:
    """Rewrite the `.om` at `path` with its weight index changed by `change`
    (sections repacked, the checksum right: a forgery, not corruption)."""
    data = path.read_bytes()
    _, _, count, _ = HEADER.unpack_from(data)
    offset = HEADER.size + SECTION_ENTRY.size * count
    sections = []
    for i in range(count):
        tag, length = SECTION_ENTRY.unpack_from(
            data, HEADER.size + SECTION_ENTRY.size * i
        )
        payload = data[offset : offset + length]
        if tag == WEIGHT_INDEX:  # padded to its length: later sections stay aligned
            payload = json.dumps(change(json.loads(payload))).encode().ljust(length)
        sections.append((tag, payload))
        offset += length
    path.write_bytes(pack_sections(sections))


def test_forged_weight_index_is_refused(tmp_path: Path) -> None:
    _, _, path = compiled_small_cnn(tmp_path)

    def past_the_end(index):
        key = next(iter(index["arrays"]))
        index["arrays"][key]["offset"] = 1 << 40
        return index

    forged_index(path, past_the_end)
    assert "lies past the weight data" in one_line_error(path)

    _, _, path = compiled_small_cnn(tmp_path)

    def dangling_origin(index):
        key = next(iter(index["origins"]))
        index["origins"][key] = "x"
        return index

    forged_index(path, dangling_origin)
    assert "which is not stored" in one_line_error(path)

    _, _, path = compiled_small_cnn(tmp_path)

    def object_dtype(index):
        key = next(iter(index["arrays"]))
        index["arrays"][key]["dtype"] = "O"
        return index

    forged_index(path, object_dtype)
    with pytest.raises(GEError, match="weight index: error: invalid weight index"):
        load_offline_model(path)

    _, _, path = compiled_small_cnn(tmp_path)

    def thousands_of_dims(index):
        key = next(iter(index["arrays"]))
        index["arrays"][key]["shape"] = [1 << 62] * 5000
        return index

    forged_index(path, thousands_of_dims)
    with pytest.raises(GEError, match=r"shape: at most 64 items, got 5000"):
        load_offline_model(path)


def with_kernel_payload(tmp_path: Path, change=None) -> Path:
    """The small CNN compiled with its kernels (`with_kernels`), written with
    its kernel section changed by `change` (bytes -> bytes)."""
    from ge_xdsl.run import with_kernels

    offline, compiled, path = compiled_small_cnn(tmp_path)
    offline = with_kernels(offline, compiled.module)
    assert offline.kernels
    if change is not None:
        offline = dataclasses.replace(offline, kernels=change(bytes(offline.kernels)))
    with path.open("wb") as stream:
        write_offline_model(offline, stream)
    return path


def run_from_empty_cache(path: Path, tmp_path: Path, monkeypatch) -> tuple:
    """Load and run `path` with a new code cache: the model, how many code
    entries the run compiled, and the cache folder."""
    from ge_xdsl.run import RunnableModel
    from ge_xdsl.serving import graph_inputs

    cache = tmp_path / "cache"
    monkeypatch.setenv("GE_XDSL_CACHE", str(cache))
    monkeypatch.setattr(compiler, "_GRAPHS", {})
    compiled = []
    real = compiler._compile_new
    monkeypatch.setattr(
        compiler,
        "_compile_new",
        lambda *args, **kwargs: compiled.append(1) or real(*args, **kwargs),
    )
    model = RunnableModel.load(path)
    graph = model.graph()
    inputs = graph_inputs(graph, {}, random=True)
    (ours,) = model.compile(graph).run(inputs)
    (expected,) = model.expected(inputs)
    np.testing.assert_allclose(ours, expected, rtol=1e-4, atol=1e-4)
    return model, len(compiled)


def test_compiled_kernels_run_without_compiling(tmp_path: Path, monkeypatch) -> None:
    path = with_kernel_payload(tmp_path)
    model, compiled = run_from_empty_cache(path, tmp_path, monkeypatch)
    assert model.notes == [] and compiled == 0


def test_kernels_for_another_machine_are_said_and_compiled_again(
    tmp_path: Path, monkeypatch
) -> None:
    def for_riscv(payload: bytes) -> bytes:
        (length,) = bundle.LENGTH.unpack_from(payload)
        start = bundle.LENGTH.size
        index = json.loads(payload[start : start + length])
        index["built_for"]["machine"] = "riscv64|flags : rv64gc"
        text = json.dumps(index).encode()
        return bundle.LENGTH.pack(len(text)) + text + payload[start + length :]

    path = with_kernel_payload(tmp_path, for_riscv)
    model, compiled = run_from_empty_cache(path, tmp_path, monkeypatch)
    (note,) = model.notes
    assert note.startswith(f"{path}: note: the model's compiled kernels are not used")
    assert "built for riscv64, this is" in note and compiled > 0


def test_kernels_built_for_a_named_cpu_are_said_and_compiled_again(
    tmp_path: Path, monkeypatch
) -> None:
    """Kernels of `GE_XDSL_MARCH=haswell` (AVX2) are not this run's
    `-march=native` ones: the note names both, and they are built again."""
    monkeypatch.setenv("GE_XDSL_MARCH", "haswell")
    path = with_kernel_payload(tmp_path)
    monkeypatch.delenv("GE_XDSL_MARCH")
    model, compiled = run_from_empty_cache(path, tmp_path, monkeypatch)
    (note,) = model.notes
    assert "built for -march=haswell, this run builds for -march=native" in note
    assert compiled > 0


def test_a_malformed_target_cpu_is_refused(monkeypatch) -> None:
    from ge_runtime.jit import c_runtime
    from ge_runtime.jit.ops import UnusableSetup

    monkeypatch.setenv("GE_XDSL_MARCH", "haswell; rm -rf")
    with pytest.raises(UnusableSetup, match="is not a CPU name for -march"):
        c_runtime.kernel_choice("c")
    monkeypatch.setenv("GE_XDSL_MARCH", "skylake-avx512")
    assert "-march=skylake-avx512" in c_runtime.flags()
    assert c_runtime.machine().endswith("|-march=skylake-avx512")


def test_corrupt_kernel_section_is_refused(tmp_path: Path, monkeypatch) -> None:
    def flip_last_byte(payload: bytes) -> bytes:
        return payload[:-1] + bytes([payload[-1] ^ 1])

    path = with_kernel_payload(tmp_path, flip_last_byte)
    monkeypatch.setenv("GE_XDSL_CACHE", str(tmp_path / "cache"))
    from ge_xdsl.run import RunnableModel

    with pytest.raises(GEError) as info:
        RunnableModel.load(path)
    assert str(info.value).startswith(f"{path}: error: corrupt kernel section (file ")
    assert "does not match its digest" in str(info.value)
    assert not list((tmp_path / "cache").rglob("*.so"))  # nothing installed


def test_packed_weights_release_their_mapped_pages_only_when_read_only(
    tmp_path: Path,
) -> None:
    """`runtime.pack` drops a read-only mapping's pages once it copied them
    (read again from the page cache if touched); a copy-on-write mapping,
    whose pages may hold changes, is left alone."""
    import mmap

    from ge_runtime.jit.runtime import pack

    values = np.arange(64 * 1024, dtype=np.float32)
    path = tmp_path / "w.bin"
    path.write_bytes(values.tobytes())
    with path.open("rb") as stream:
        shared = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ)
        private = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_COPY)
    weight = np.frombuffer(memoryview(shared), np.float32).reshape(256, 256)
    packed = pack(weight.T, (256, 256))  # a column-major view: copied
    np.testing.assert_array_equal(packed, values.reshape(256, 256).T)
    np.testing.assert_array_equal(weight, values.reshape(256, 256))  # re-read
    changed = np.frombuffer(private, np.float32).reshape(256, 256)
    changed[0, 0] = -1
    pack(changed.T, (256, 256))
    assert changed[0, 0] == -1


def test_a_model_compiled_again_in_one_process_carries_its_kernels(
    tmp_path: Path,
) -> None:
    """A second compile of a model in one process reuses the kernels the
    first loaded (whose temporary code cache is gone): its `.om` carries
    their libraries all the same, and so the runtime's copy kernel."""
    from ge_xdsl.run import with_kernels

    names = []
    for run in ("first", "second"):
        folder = tmp_path / run
        folder.mkdir()
        offline, compiled, _ = compiled_small_cnn(folder)
        _, files = bundle.unpack(with_kernels(offline, compiled.module).kernels, run)
        names.append(sorted(path for path, _ in files))
    assert names[0] == names[1], names
    assert sum(path.endswith(".so") for path in names[1]) >= 2, names
