// RUN: ge-opt %s --split-input-file --verify-diagnostics --refine-running-format | filecheck %s

// Invalid user storage requests are one-line errors.

// CHECK: errors.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: 'ge.data' op 'storage_format' needs 'storage_shape' (GE E14002); an empty storage_shape derives it
ge.graph @format_without_shape {
  %x = ge.data {index = 0 : i64, storage_format = #ge.format<NC1HWC0>} : tensor<1x3x4x4xf16, #ge.layout<NCHW>>
  ge.netoutput %x : tensor<1x3x4x4xf16, #ge.layout<NCHW>>
}

// -----

// A user shape must agree with the one derived from a static origin shape.
// CHECK: error: 'ge.data' op cannot store it as FRACTAL_Z: storage_shape [5, 6, 7, 8, 9] does not match the FRACTAL_Z shape [64, 1, 16, 16] derived from [3, 8, 8]
ge.graph @wrong_user_dims {
  %x = ge.data {index = 0 : i64, storage_format = #ge.format<FRACTAL_Z>, storage_shape = array<i64: 5, 6, 7, 8, 9>} : tensor<3x8x8xf16, #ge.layout<NCHW>>
  ge.netoutput %x : tensor<3x8x8xf16, #ge.layout<NCHW>>
}

// -----

// NC1HWC0 cannot hold an ND tensor of rank 2 (no reshape type expands it).
// CHECK: error: 'ge.data' op cannot store it as NC1HWC0:
ge.graph @no_expansion {
  %x = ge.data {index = 0 : i64, storage_format = #ge.format<NC1HWC0>, storage_shape = array<i64>} : tensor<4x4xf16>
  ge.netoutput %x : tensor<4x4xf16>
}

// -----

// CHECK: error: 'ge.const' op a constant placeholder needs both 'storage_format' and 'storage_shape'
ge.graph @placeholder_without_shape {
  %c = ge.const {value = dense<1.0> : tensor<1x16x16xf16>, storage_format = #ge.format<FRACTAL_NZ>} : tensor<1x16x16xf16>
  ge.netoutput %c : tensor<1x16x16xf16>
}

// -----

// GE does not refresh While body inputs; here that is an error, not a no-op.
// CHECK: error: 'ge.data' op 'storage_format' on a 'ge.while' subgraph input is not supported
ge.graph @while_data {
  %x = ge.data {index = 0 : i64} : tensor<16x16xf16>
  %y = ge.while %x : (tensor<16x16xf16>) -> tensor<16x16xf16> cond {
    %c = ge.data {parent_index = 0 : i64} : tensor<16x16xf16>
    %b = ge.const {value = dense<false> : tensor<i1>} : tensor<i1>
    ge.netoutput %b : tensor<i1>
  } body {
    %d = ge.data {parent_index = 0 : i64, storage_format = #ge.format<FRACTAL_NZ>, storage_shape = array<i64>} : tensor<16x16xf16>
    ge.netoutput %d : tensor<16x16xf16>
  }
  ge.netoutput %y : tensor<16x16xf16>
}

// -----

// CHECK: error: 'ge.netoutput' op output #0: {{.*}}
ge.graph @bad_output_storage {
  %x = ge.data {index = 0 : i64} : tensor<4x4xf16>
  ge.netoutput %x : tensor<4x4xf16> {storage_formats = [#ge.format<NC1HWC0>]}
}
