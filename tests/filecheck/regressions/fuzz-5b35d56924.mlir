// Shrunk by hypothesis from a failing differential fuzz case
// (tests/test_fuzz.py, blocks while). It failed with:
//   ValueError: zip() argument 2 is longer than argument 1
// RUN: python %S/../../fuzz/differential.py %s --options "data-format=NCHW spread=false beyond-ge=false" --seed 0 | filecheck %s
// CHECK: ok: {{[0-9]+}} outputs agree

builtin.module {
  ge.graph @main {
    %0 = ge.data {index = 0 : i64, name = "x"} : tensor<1x1x1x1xf32, #ge.layout<NCHW>>
    %1 = ge.const {value = dense<0> : tensor<i32>} : tensor<i32>
    %2, %3 = ge.while %1, %0 : (tensor<i32>, tensor<1x1x1x1xf32, #ge.layout<NCHW>>) -> (tensor<i32>, tensor<1x1x1x1xf32, #ge.layout<NCHW>>) cond {
      %4 = ge.data {parent_index = 0 : i64} : tensor<i32>
      %5 = ge.data {parent_index = 1 : i64} : tensor<1x1x1x1xf32, #ge.layout<NCHW>>
      %6 = ge.const {value = dense<1> : tensor<i32>} : tensor<i32>
      %7 = ge.sub %6, %4 : (tensor<i32>, tensor<i32>) -> tensor<i32>
      ge.netoutput %7 : tensor<i32>
    } body {
      %8 = ge.data {parent_index = 0 : i64} : tensor<i32>
      %9 = ge.data {parent_index = 1 : i64} : tensor<1x1x1x1xf32, #ge.layout<NCHW>>
      %10 = ge.const {value = dense<1> : tensor<i32>} : tensor<i32>
      %11 = ge.add %8, %10 : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %12 = ge.tanh %9 : tensor<1x1x1x1xf32, #ge.layout<NCHW>> -> tensor<1x1x1x1xf32, #ge.layout<NCHW>>
      ge.netoutput %11, %12 : tensor<i32>, tensor<1x1x1x1xf32, #ge.layout<NCHW>>
    }
    ge.netoutput %3, %0 : tensor<1x1x1x1xf32, #ge.layout<NCHW>>, tensor<1x1x1x1xf32, #ge.layout<NCHW>> {storage_formats = [#ge.format<NC1HWC0>, #ge.format<ND>]}
  }
}
