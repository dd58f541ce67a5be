// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Invalid #ge.format / #ge.layout / #ge.external attributes and tensor
// encodings (ge_dialect/attributes.py and ge_dialect/layout.py).

ge.graph @internal_origin {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:3: error: 'ge.data' op internal format NC1HWC0 cannot be an origin format
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16, #ge.layout<NC1HWC0>>
  ge.netoutput
}

// -----

ge.graph @internal_origin_fractal {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:3: error: 'ge.data' op internal format FRACTAL_NZ cannot be an origin format
  %x = ge.data {index = 0 : i64} : tensor<16x16xf16, #ge.layout<FRACTAL_NZ, FRACTAL_NZ>>
  ge.netoutput
}

// -----

ge.graph @reserved_origin {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:3: error: 'ge.data' op RESERVED is not a valid origin format
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16, #ge.layout<RESERVED>>
  ge.netoutput
}

// -----

ge.graph @reserved_storage {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:3: error: 'ge.data' op result #0: RESERVED is not a usable storage format
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16, #ge.layout<NCHW, RESERVED>>
  ge.netoutput
}

// -----

ge.graph @rank_too_large {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:3: error: 'ge.data' op result #0: rank 5 is too large for origin format NCHW (rank 4)
  %x = ge.data {index = 0 : i64} : tensor<1x1x3x8x8xf16, #ge.layout<NCHW>>
  ge.netoutput
}

// -----

ge.graph @rank_too_large_5d {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:3: error: 'ge.const' op result #0: rank 6 is too large for origin format NDHWC (rank 5)
  %x = ge.const {value = #ge.external<"k">} : tensor<1x1x1x1x1x1xf16, #ge.layout<NDHWC>>
  ge.netoutput
}

// -----

ge.graph @reshape_type_unknown_letter {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:3: error: 'ge.data' op result #0: reshape_type "CX" does not describe a rank-2 NCHW tensor
  %x = ge.data {index = 0 : i64} : tensor<3x8xf16, #ge.layout<NCHW, NC1HWC0, reshape_type = "CX">>
  ge.netoutput
}

// -----

ge.graph @reshape_type_wrong_length {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:3: error: 'ge.data' op result #0: reshape_type "CHW" does not describe a rank-2 NCHW tensor
  %x = ge.data {index = 0 : i64} : tensor<3x8xf16, #ge.layout<NCHW, NC1HWC0, reshape_type = "CHW">>
  ge.netoutput
}

// -----

ge.graph @reshape_type_out_of_order {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:3: error: 'ge.data' op result #0: reshape_type "HC" does not describe a rank-2 NCHW tensor
  %x = ge.data {index = 0 : i64} : tensor<3x8xf16, #ge.layout<NCHW, NC1HWC0, reshape_type = "HC">>
  ge.netoutput
}

// -----

ge.graph @reshape_type_repeated_letter {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:3: error: 'ge.data' op result #0: reshape_type "CC" does not describe a rank-2 NCHW tensor
  %x = ge.data {index = 0 : i64} : tensor<3x8xf16, #ge.layout<NCHW, NCHW, reshape_type = "CC">>
  ge.netoutput
}

// -----

ge.graph @storage_shape_mismatch {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:3: error: 'ge.data' op result #0: storage_shape [1, 1, 8, 8, 16] does not match the NC1HWC0 shape [1, 1, 8, 8, 8] derived from [1, 3, 8, 8]
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32, #ge.layout<NCHW, NC1HWC0, storage_shape = [1, 1, 8, 8, 16]>>
  ge.netoutput
}

// -----

ge.graph @storage_shape_mismatch_same_format {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:3: error: 'ge.data' op result #0: storage_shape [1, 3, 8] does not match the NCHW shape [1, 3, 8, 8] derived from [1, 3, 8, 8]
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32, #ge.layout<NCHW, NCHW, storage_shape = [1, 3, 8]>>
  ge.netoutput
}

// -----

ge.graph @storage_shape_mismatch_reshape_type {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:3: error: 'ge.data' op result #0: storage_shape [1, 1, 5, 7, 16] does not match the NC1HWC0 shape [1, 1, 1, 5, 16] derived from [5, 7]
  %x = ge.data {index = 0 : i64} : tensor<5x7xf16, #ge.layout<NHWC, NC1HWC0, storage_shape = [1, 1, 5, 7, 16], reshape_type = "WC">>
  ge.netoutput
}

// -----

ge.graph @storage_not_derivable_c04 {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:3: error: 'ge.data' op result #0: FRACTAL_Z_C04 needs C <= 4, got C=8
  %x = ge.data {index = 0 : i64} : tensor<1x8x3x3xf16, #ge.layout<NCHW, FRACTAL_Z_C04>>
  ge.netoutput
}

// -----

ge.graph @storage_not_derivable_rank {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:3: error: 'ge.data' op result #0: NC1HWC0 needs a 4-D origin format; NCDHW is 5-D
  %x = ge.data {index = 0 : i64} : tensor<1x8x3x3x3xf16, #ge.layout<NCDHW, NC1HWC0>>
  ge.netoutput
}

// -----

ge.graph @storage_not_derivable_nd {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:3: error: 'ge.data' op result #0: an ND tensor of rank 2 cannot be stored as NC1HWC0 (needs rank 4)
  %x = ge.data {index = 0 : i64} : tensor<8x3xf16, #ge.layout<ND, NC1HWC0>>
  ge.netoutput
}

// -----

ge.graph @foreign_encoding {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:3: error: 'ge.data' op result #0: tensor encoding must be #ge.layout, got "foo"
  %x = ge.data {index = 0 : i64} : tensor<8x3xf16, "foo">
  ge.netoutput
}

// -----

ge.graph @unknown_format_in_layout {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:67: error: unknown format 'NCHX' (expected one of ND, NCHW, NHWC, HWCN, CHWN, NCDHW, NDHWC, DHWCN, NC1HWC0, NDC1HWC0, FRACTAL_Z, FRACTAL_Z_3D, FRACTAL_NZ, C1HWNCoC0, NC1HWC0_C04, FRACTAL_Z_C04, RESERVED)
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32, #ge.layout<NCHX>>
  ge.netoutput
}

// -----

ge.graph @unknown_storage_format {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:73: error: unknown format 'nc1hwc0'
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32, #ge.layout<NCHW, nc1hwc0>>
  ge.netoutput
}

// -----

ge.graph @unknown_format_attribute {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:62: error: unknown format 'BOGUS'
  %x = ge.data {index = 0 : i64, storage_format = #ge.format<BOGUS>} : tensor<2xf32>
  ge.netoutput
}

// -----

ge.graph @unknown_layout_parameter {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:73: error: unknown layout parameter 'foo' (expected 'storage_shape' or 'reshape_type')
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32, #ge.layout<NCHW, foo = 1>>
  ge.netoutput
}

// -----

ge.graph @storage_after_parameter {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:90: error: the storage format must follow the origin format
  %x = ge.data {index = 0 : i64} : tensor<8x3xf16, #ge.layout<NCHW, reshape_type = "CH", NC1HWC0>>
  ge.netoutput
}

// -----

ge.graph @two_storage_formats {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:78: error: the storage format must follow the origin format
  %x = ge.data {index = 0 : i64} : tensor<8x3xf16, #ge.layout<NCHW, NC1HWC0, NHWC>>
  ge.netoutput
}

// -----

ge.graph @bad_storage_shape_syntax {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:90: error: ']' expected
  %x = ge.data {index = 0 : i64} : tensor<8x3xf16, #ge.layout<NCHW, storage_shape = [1, 2>>
  ge.netoutput
}

// -----

ge.graph @reshape_type_not_a_string {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:84: error: string literal expected
  %x = ge.data {index = 0 : i64} : tensor<8x3xf16, #ge.layout<NCHW, reshape_type = C>>
  ge.netoutput
}

// -----

ge.graph @external_key_not_a_string {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:39: error: string literal expected (weight key)
  %x = ge.const {value = #ge.external<3>} : tensor<2xf32>
  ge.netoutput
}

// -----

ge.graph @empty_layout {
  // CHECK: {{.*}}invalid-layout.mlir:[[# @LINE + 1]]:61: error: identifier expected (format)
  %x = ge.data {index = 0 : i64} : tensor<2xf32, #ge.layout<>>
  ge.netoutput
}
