// Shrunk by hypothesis from a failing differential fuzz case (the long
// profile, blocks: unary, unary, while, chain). The second pipeline run
// (idempotence) failed with:
//   invalid IR after infer-origin-format: 'ge.transdata' op perm must permute
//   the axis letters of NCHW into NCHW
// The first run fuses the NCHW -> NHWC transpose into a TransData with `perm`;
// infer-origin-format then tied that TransData's operand and result as one
// origin format and wrote NCHW over its NHWC result when it set the while
// loop's results (fixed in passes/infer_origin_format.py: a TransData with
// `perm` ties nothing).
// RUN: python %S/../../fuzz/differential.py %s --options "data-format=NCHW spread=false beyond-ge=false" --seed 0 | filecheck %s
// CHECK: ok: {{[0-9]+}} outputs agree

builtin.module {
  ge.graph @main {
    %0 = ge.data {index = 0 : i64, name = "x"} : tensor<1x1x1x1xf32, #ge.layout<NCHW>>
    %1 = ge.relu %0 : tensor<1x1x1x1xf32, #ge.layout<NCHW>> -> tensor<1x1x1x1xf32, #ge.layout<NCHW>>
    %2 = ge.relu %1 : tensor<1x1x1x1xf32, #ge.layout<NCHW>> -> tensor<1x1x1x1xf32, #ge.layout<NCHW>>
    %3 = ge.const {value = dense<0> : tensor<i32>} : tensor<i32>
    %4, %5 = ge.while %3, %2 : (tensor<i32>, tensor<1x1x1x1xf32, #ge.layout<NCHW>>) -> (tensor<i32>, tensor<1x1x1x1xf32, #ge.layout<NCHW>>) cond {
      %6 = ge.data {parent_index = 0 : i64} : tensor<i32>
      %7 = ge.data {parent_index = 1 : i64} : tensor<1x1x1x1xf32, #ge.layout<NCHW>>
      %8 = ge.const {value = dense<1> : tensor<i32>} : tensor<i32>
      %9 = ge.sub %8, %6 : (tensor<i32>, tensor<i32>) -> tensor<i32>
      ge.netoutput %9 : tensor<i32>
    } body {
      %10 = ge.data {parent_index = 0 : i64} : tensor<i32>
      %11 = ge.data {parent_index = 1 : i64} : tensor<1x1x1x1xf32, #ge.layout<NCHW>>
      %12 = ge.const {value = dense<1> : tensor<i32>} : tensor<i32>
      %13 = ge.add %10, %12 : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %14 = ge.tanh %11 : tensor<1x1x1x1xf32, #ge.layout<NCHW>> -> tensor<1x1x1x1xf32, #ge.layout<NCHW>>
      ge.netoutput %13, %14 : tensor<i32>, tensor<1x1x1x1xf32, #ge.layout<NCHW>>
    }
    %6 = ge.transpose %5 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x1x1x1xf32, #ge.layout<NCHW>> -> tensor<1x1x1x1xf32, #ge.layout<NHWC>>
    %7 = ge.transdata %6 {src_format = #ge.format<NHWC>, dst_format = #ge.format<NC1HWC0>} : tensor<1x1x1x1xf32, #ge.layout<NHWC>> -> tensor<1x1x1x1xf32, #ge.layout<NHWC, NC1HWC0>>
    ge.netoutput %5, %0, %1, %2, %7 : tensor<1x1x1x1xf32, #ge.layout<NCHW>>, tensor<1x1x1x1xf32, #ge.layout<NCHW>>, tensor<1x1x1x1xf32, #ge.layout<NCHW>>, tensor<1x1x1x1xf32, #ge.layout<NCHW>>, tensor<1x1x1x1xf32, #ge.layout<NHWC, NC1HWC0>> {storage_formats = [#ge.format<NC1HWC0>, #ge.format<ND>, #ge.format<ND>, #ge.format<ND>, #ge.format<ND>]}
  }
}
