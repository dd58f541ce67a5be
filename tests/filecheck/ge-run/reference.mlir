// RUN: ge-run --reference %s --random-inputs --seed 7 --output-dir %t | filecheck %s
// RUN: ge-run --reference %s --random-inputs --stored-outputs --output-dir %t.stored | filecheck %s --check-prefix=STORED
// RUN: not ge-run --reference %s --output-dir %t.missing 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not ge-run --reference %s --random-inputs --graph other --output-dir %t.other 2>&1 | filecheck %s --check-prefix=GRAPH

// `ge-run --reference` runs a graph whose activations are held in NC1HWC0
// between explicit transdata ops; outputs are written in origin layout
// unless --stored-outputs asks for the storage layout.

// CHECK:      output_0.npy: shape [1, 17, 4, 4], dtype float16
// CHECK-NEXT: output_1.npy: shape [1, 17, 4, 4], dtype float16
// CHECK-NOT:  output_2

// STORED:      output_0.npy: shape [1, 17, 4, 4], dtype float16
// STORED-NEXT: output_1.npy: shape [1, 2, 4, 4, 16], dtype float16

// MISSING: reference.mlir:[[# @LINE + 3]]:3: error: 'ge.data' op input #0 ('x') is missing
// GRAPH: {{.*}}reference.mlir:1:1: error: no graph @other to run (graphs: @main)
ge.graph @main {
  %x = ge.data {index = 0 : i64, name = "x"} : tensor<1x17x4x4xf16, #ge.layout<NCHW>>
  %a = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x4x4xf16, #ge.layout<NCHW>> -> tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.relu %a : tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %y = ge.transdata %r {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x4x4xf16, #ge.layout<NCHW>>
  ge.netoutput %y, %r : tensor<1x17x4x4xf16, #ge.layout<NCHW>>, tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
}
