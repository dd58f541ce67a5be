// RUN: ge-run %s --random-inputs --check --output-dir %t | filecheck %s
// RUN: ge-opt %s -p convert-ge-to-loops -o %t.loops.mlir
// RUN: ge-run %t.loops.mlir --random-inputs --output-dir %t | filecheck %s --check-prefix=LOOPS
// RUN: not ge-run %t.loops.mlir --random-inputs --check --output-dir %t 2>&1 | filecheck %s --check-prefix=NOCHECK

// `ge-run` lowers a graph on the fly and runs it through the JIT; `--check`
// compares with the reference evaluator on the same graph. A loop module
// runs as it is, on storage-layout arrays.

// CHECK: check output_0: max abs error {{.*}} max |reference| {{.*}}: ok
// CHECK: output_0.npy: shape [1, 17, 3, 3], dtype float32
// LOOPS: output_0.npy: shape [1, 17, 3, 3], dtype float32
// NOCHECK: ge-run: error: --check needs a ge graph (this module is already lowered)
ge.graph @main {
  %x = ge.data {index = 0 : i64} : tensor<1x17x5x5xf32, #ge.layout<NCHW>>
  %t = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x5x5xf32, #ge.layout<NCHW>> -> tensor<1x17x5x5xf32, #ge.layout<NCHW, NC1HWC0>>
  %p = ge.max_pool %t {data_format = "NCHW", ksize = array<i64: 1, 1, 3, 3>, strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x17x5x5xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  %s = ge.sigmoid %p : tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  %y = ge.transdata %s {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xf32, #ge.layout<NCHW>>
  ge.netoutput %y : tensor<1x17x3x3xf32, #ge.layout<NCHW>>
}
