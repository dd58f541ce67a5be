"""Write DIR/gather.onnx (a Gather named `lookup`), DIR/table.npy and
DIR/ids.npy, whose second index is out of range."""

import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

folder = Path(sys.argv[1])
graph = helper.make_graph(
    [helper.make_node("Gather", ["table", "ids"], ["out"], name="lookup", axis=0)],
    "g",
    [
        helper.make_tensor_value_info("table", TensorProto.FLOAT, [4, 3]),
        helper.make_tensor_value_info("ids", TensorProto.INT64, [2]),
    ],
    [helper.make_tensor_value_info("out", TensorProto.FLOAT, [2, 3])],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.save(model, folder / "gather.onnx")
np.save(folder / "table.npy", np.ones((4, 3), np.float32))
np.save(folder / "ids.npy", np.array([0, 9], np.int64))
