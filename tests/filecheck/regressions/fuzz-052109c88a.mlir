// Shrunk by hypothesis from a failing differential fuzz case
// (tests/test_fuzz.py, blocks chain, unary, unary, chain, conv, reduce). It failed with:
//   Mismatch: pipeline: <unknown>: error: 'ge.conv2d' op input has 5 channels, filter expects 1 (groups = 1)
// RUN: python %S/../../fuzz/differential.py %s --options "data-format=NHWC spread=false beyond-ge=false" --seed 0 | filecheck %s
// CHECK: ok: {{[0-9]+}} outputs agree
// RUN: ge-opt %s --ge-format-pipeline="data-format=NHWC spread=false beyond-ge=false" --convert-ge-to-loops | filecheck %s --check-prefix=LOOPS
// LOOPS: func.func @main

builtin.module {
  ge.graph @main {
    %0 = ge.data {index = 0 : i64, storage_format = #ge.format<NC1HWC0>, storage_shape = array<i64>, name = "x"} : tensor<1x1x1x5xf32, #ge.layout<NHWC>>
    %1 = ge.transdata %0 {src_format = #ge.format<NHWC>, dst_format = #ge.format<NC1HWC0>} : tensor<1x1x1x5xf32, #ge.layout<NHWC>> -> tensor<1x1x1x5xf32, #ge.layout<NHWC, NC1HWC0>>
    %2 = ge.relu %0 : tensor<1x1x1x5xf32, #ge.layout<NHWC>> -> tensor<1x1x1x5xf32, #ge.layout<NHWC>>
    %3 = ge.relu %2 : tensor<1x1x1x5xf32, #ge.layout<NHWC>> -> tensor<1x1x1x5xf32, #ge.layout<NHWC>>
    %4 = ge.transdata %3 {src_format = #ge.format<NHWC>, dst_format = #ge.format<NC1HWC0>} : tensor<1x1x1x5xf32, #ge.layout<NHWC>> -> tensor<1x1x1x5xf32, #ge.layout<NHWC, NC1HWC0>>
    %5 = ge.const {value = dense<[[[[0.0562282652]], [[-0.059079092]], [[0.286405712]], [[0.0469127595]], [[-0.239558622]]]]> : tensor<1x5x1x1xf32>} : tensor<1x5x1x1xf32>
    %6 = ge.conv2d %3, %5 {data_format = "NHWC"} : (tensor<1x1x1x5xf32, #ge.layout<NHWC>>, tensor<1x5x1x1xf32>) -> tensor<1x1x1x1xf32, #ge.layout<NHWC>>
    %7 = ge.relu %6 : tensor<1x1x1x1xf32, #ge.layout<NHWC>> -> tensor<1x1x1x1xf32, #ge.layout<NHWC>>
    %8 = ge.softmax %7 {axis = 3 : i64} : tensor<1x1x1x1xf32, #ge.layout<NHWC>> -> tensor<1x1x1x1xf32, #ge.layout<NHWC>>
    ge.netoutput %7, %0, %2, %3, %1, %4, %8 : tensor<1x1x1x1xf32, #ge.layout<NHWC>>, tensor<1x1x1x5xf32, #ge.layout<NHWC>>, tensor<1x1x1x5xf32, #ge.layout<NHWC>>, tensor<1x1x1x5xf32, #ge.layout<NHWC>>, tensor<1x1x1x5xf32, #ge.layout<NHWC, NC1HWC0>>, tensor<1x1x1x5xf32, #ge.layout<NHWC, NC1HWC0>>, tensor<1x1x1x1xf32, #ge.layout<NHWC>> {storage_formats = [#ge.format<NC1HWC0>, #ge.format<ND>, #ge.format<ND>, #ge.format<ND>, #ge.format<ND>, #ge.format<ND>, #ge.format<ND>]}
  }
}
