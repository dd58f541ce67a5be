// RUN: ge-opt %s --ge-format-pipeline --convert-ge-to-loops -o %t.loops.mlir
// RUN: filecheck %s --input-file %t.loops.mlir
// RUN: iree-opt %t.loops.mlir -o /dev/null
// RUN: python -c "import numpy as np; np.save('%t.x.npy', np.random.default_rng(3).standard_normal((1, 17, 5, 5)).astype(np.float32))"
// RUN: ge-run %s --input x=%t.x.npy --stored-outputs --output-dir %t.graph
// RUN: ge-run %t.loops.mlir --input 0=%t.x.npy --output-dir %t.loops | filecheck %s --check-prefix=LOOPS
// RUN: python -c "import numpy as np, glob; a, b = (np.load(glob.glob(d + '/*.npy')[0]) for d in ('%t.graph', '%t.loops')); assert a.shape == b.shape and np.abs(a - b).max() <= 1e-5 * np.abs(a).max(), (a.shape, b.shape)"

// A lowered module is self-contained: every inline constant (the 3x3
// weights, 4293 elements, and the 33 biases) is a constant memref.global,
// so ge-run runs the loop IR alone and upstream MLIR accepts it.

// CHECK-DAG:   "memref.global"() <{sym_name = "main_const0", type = memref<{{.*}}xf32>, initial_value = dense<{{.*}}> : tensor<{{.*}}xf32>, sym_visibility = "private", constant}>
// CHECK-DAG:   "memref.global"() <{sym_name = "main_const1", type = memref<33xf32>, initial_value = dense<{{.*}}> : tensor<33xf32>, sym_visibility = "private", constant}>
// CHECK-LABEL: func.func @main(
// CHECK-NOT:     ge.weight
// CHECK:         memref.get_global @main_const0
// CHECK:         memref.get_global @main_const1

// LOOPS: output_0.npy: shape [1, 33, 5, 5], dtype float32
ge.graph @main {
  %x = ge.data {index = 0 : i64, name = "x"} : tensor<1x17x5x5xf32, #ge.layout<NCHW>>
  %w = ge.const {value = dense<0.25> : tensor<33x17x3x3xf32>} : tensor<33x17x3x3xf32, #ge.layout<NCHW>>
  %b = ge.const {value = dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0]> : tensor<33xf32>} : tensor<33xf32, #ge.layout<NCHW>>
  %y = ge.conv2d %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, data_format = "NCHW"} : (tensor<1x17x5x5xf32, #ge.layout<NCHW>>, tensor<33x17x3x3xf32, #ge.layout<NCHW>>, tensor<33xf32, #ge.layout<NCHW>>) -> tensor<1x33x5x5xf32, #ge.layout<NCHW>>
  %r = ge.relu %y : tensor<1x33x5x5xf32, #ge.layout<NCHW>> -> tensor<1x33x5x5xf32, #ge.layout<NCHW>>
  ge.netoutput %r : tensor<1x33x5x5xf32, #ge.layout<NCHW>>
}
