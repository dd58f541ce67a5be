// RUN: ge-opt %s --split-input-file | ge-opt --split-input-file | filecheck %s
// RUN: ge-opt %s --split-input-file --print-op-generic | ge-opt --split-input-file | filecheck %s

// The `ge` attributes: #ge.format, the #ge.layout tensor encoding and
// #ge.external weight references.

// Every format name parses and prints as itself.
// CHECK-LABEL: ge.graph @formats
// CHECK-SAME:    ge.all = [#ge.format<ND>, #ge.format<NCHW>, #ge.format<NHWC>, #ge.format<HWCN>, #ge.format<CHWN>, #ge.format<NCDHW>, #ge.format<NDHWC>, #ge.format<DHWCN>, #ge.format<NC1HWC0>, #ge.format<NDC1HWC0>, #ge.format<FRACTAL_Z>, #ge.format<FRACTAL_Z_3D>, #ge.format<FRACTAL_NZ>, #ge.format<C1HWNCoC0>, #ge.format<NC1HWC0_C04>, #ge.format<FRACTAL_Z_C04>, #ge.format<RESERVED>]
ge.graph @formats attributes {ge.all = [#ge.format<ND>, #ge.format<NCHW>, #ge.format<NHWC>, #ge.format<HWCN>, #ge.format<CHWN>, #ge.format<NCDHW>, #ge.format<NDHWC>, #ge.format<DHWCN>, #ge.format<NC1HWC0>, #ge.format<NDC1HWC0>, #ge.format<FRACTAL_Z>, #ge.format<FRACTAL_Z_3D>, #ge.format<FRACTAL_NZ>, #ge.format<C1HWNCoC0>, #ge.format<NC1HWC0_C04>, #ge.format<FRACTAL_Z_C04>, #ge.format<RESERVED>]} {
  ge.netoutput
}

// -----

// Origin formats with their own storage, and every internal storage format.
// CHECK-LABEL: ge.graph @layouts
// CHECK-NEXT:    ge.data {index = 0 : i64} : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    ge.data {index = 1 : i64} : tensor<1x8x8x3xf16, #ge.layout<NHWC>>
// CHECK-NEXT:    ge.data {index = 2 : i64} : tensor<3x3x2x4xf16, #ge.layout<HWCN>>
// CHECK-NEXT:    ge.data {index = 3 : i64} : tensor<2x3x3x4xf16, #ge.layout<CHWN>>
// CHECK-NEXT:    ge.data {index = 4 : i64} : tensor<1x3x2x4x4xf16, #ge.layout<NCDHW>>
// CHECK-NEXT:    ge.data {index = 5 : i64} : tensor<1x2x4x4x3xf16, #ge.layout<NDHWC>>
// CHECK-NEXT:    ge.data {index = 6 : i64} : tensor<2x3x3x4x8xf16, #ge.layout<DHWCN>>
// CHECK-NEXT:    ge.data {index = 7 : i64} : tensor<2x3xf32, #ge.layout<ND>>
// CHECK-NEXT:    ge.data {index = 8 : i64} : tensor<1x3x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    ge.data {index = 9 : i64} : tensor<1x8x8x3xf16, #ge.layout<NHWC, NC1HWC0>>
// CHECK-NEXT:    ge.data {index = 10 : i64} : tensor<4x3x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
// CHECK-NEXT:    ge.data {index = 11 : i64} : tensor<1x3x2x4x4xf16, #ge.layout<NCDHW, NDC1HWC0>>
// CHECK-NEXT:    ge.data {index = 12 : i64} : tensor<8x3x2x3x3xf16, #ge.layout<NCDHW, FRACTAL_Z_3D>>
// CHECK-NEXT:    ge.data {index = 13 : i64} : tensor<2x40x24xf16, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    ge.data {index = 14 : i64} : tensor<3x3x32x8xf16, #ge.layout<HWCN, C1HWNCoC0>>
// CHECK-NEXT:    ge.data {index = 15 : i64} : tensor<1x3x8x8xf16, #ge.layout<NCHW, NC1HWC0_C04>>
// CHECK-NEXT:    ge.data {index = 16 : i64} : tensor<8x3x3x3xf16, #ge.layout<NCHW, FRACTAL_Z_C04>>
// CHECK-NEXT:    ge.data {index = 17 : i64} : tensor<2x3x4x5xf16, #ge.layout<NCHW, HWCN>>
// CHECK-NEXT:    ge.data {index = 18 : i64} : tensor<32x16xf16, #ge.layout<ND, FRACTAL_Z>>
// CHECK-NEXT:    ge.data {index = 19 : i64} : tensor<1x3x8x8xf16, #ge.layout<ND, NC1HWC0>>
// CHECK-NEXT:    ge.netoutput{{$}}
ge.graph @layouts {
  %0 = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
  %1 = ge.data {index = 1 : i64} : tensor<1x8x8x3xf16, #ge.layout<NHWC, NHWC>>
  %2 = ge.data {index = 2 : i64} : tensor<3x3x2x4xf16, #ge.layout<HWCN>>
  %3 = ge.data {index = 3 : i64} : tensor<2x3x3x4xf16, #ge.layout<CHWN>>
  %4 = ge.data {index = 4 : i64} : tensor<1x3x2x4x4xf16, #ge.layout<NCDHW>>
  %5 = ge.data {index = 5 : i64} : tensor<1x2x4x4x3xf16, #ge.layout<NDHWC>>
  %6 = ge.data {index = 6 : i64} : tensor<2x3x3x4x8xf16, #ge.layout<DHWCN>>
  %7 = ge.data {index = 7 : i64} : tensor<2x3xf32, #ge.layout<ND>>
  %8 = ge.data {index = 8 : i64} : tensor<1x3x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
  %9 = ge.data {index = 9 : i64} : tensor<1x8x8x3xf16, #ge.layout<NHWC, NC1HWC0>>
  %10 = ge.data {index = 10 : i64} : tensor<4x3x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
  %11 = ge.data {index = 11 : i64} : tensor<1x3x2x4x4xf16, #ge.layout<NCDHW, NDC1HWC0>>
  %12 = ge.data {index = 12 : i64} : tensor<8x3x2x3x3xf16, #ge.layout<NCDHW, FRACTAL_Z_3D>>
  %13 = ge.data {index = 13 : i64} : tensor<2x40x24xf16, #ge.layout<ND, FRACTAL_NZ>>
  %14 = ge.data {index = 14 : i64} : tensor<3x3x32x8xf16, #ge.layout<HWCN, C1HWNCoC0>>
  %15 = ge.data {index = 15 : i64} : tensor<1x3x8x8xf16, #ge.layout<NCHW, NC1HWC0_C04>>
  %16 = ge.data {index = 16 : i64} : tensor<8x3x3x3xf16, #ge.layout<NCHW, FRACTAL_Z_C04>>
  %17 = ge.data {index = 17 : i64} : tensor<2x3x4x5xf16, #ge.layout<NCHW, HWCN>>
  %18 = ge.data {index = 18 : i64} : tensor<32x16xf16, #ge.layout<ND, FRACTAL_Z>>
  %19 = ge.data {index = 19 : i64} : tensor<1x3x8x8xf16, #ge.layout<ND, NC1HWC0>>
  ge.netoutput
}

// -----

// Explicit storage shapes (checked against the format library) and reshape
// types for tensors of lower rank than their origin format.
// CHECK-LABEL: ge.graph @storage_shape_and_reshape_type
// CHECK-NEXT:    ge.data {index = 0 : i64} : tensor<4x3x3x3xf16, #ge.layout<NCHW, FRACTAL_Z, storage_shape = [9, 1, 16, 16]>>
// CHECK-NEXT:    ge.data {index = 1 : i64} : tensor<1x3x2x4x4xf16, #ge.layout<NCDHW, NDC1HWC0, storage_shape = [1, 2, 1, 4, 4, 16]>>
// CHECK-NEXT:    ge.data {index = 2 : i64} : tensor<3x3x32x8xf16, #ge.layout<HWCN, C1HWNCoC0, storage_shape = [2, 3, 3, 1, 16, 16]>>
// CHECK-NEXT:    ge.data {index = 3 : i64} : tensor<2x40x24xf16, #ge.layout<ND, FRACTAL_NZ, storage_shape = [2, 2, 3, 16, 16]>>
// CHECK-NEXT:    ge.data {index = 4 : i64} : tensor<64xf32, #ge.layout<NCHW, NC1HWC0, reshape_type = "C">>
// CHECK-NEXT:    ge.data {index = 5 : i64} : tensor<5x7xf16, #ge.layout<NHWC, NC1HWC0, storage_shape = [1, 1, 1, 5, 16], reshape_type = "WC">>
// CHECK-NEXT:    ge.data {index = 6 : i64} : tensor<5x7xf16, #ge.layout<NHWC, NC1HWC0, storage_shape = [1, 1, 5, 7, 16]>>
// CHECK-NEXT:    ge.data {index = 7 : i64} : tensor<64xf32, #ge.layout<NCHW, NCHW, reshape_type = "C">>
// CHECK-NEXT:    ge.data {index = 8 : i64} : tensor<1x3x8x8xf32, #ge.layout<NCHW, NCHW, storage_shape = [1, 3, 8, 8]>>
// CHECK-NEXT:    ge.data {index = 9 : i64} : tensor<?x3x4x4xf16, #ge.layout<NCHW, NC1HWC0, storage_shape = [8, 1, 4, 4, 16]>>
// CHECK-NEXT:    ge.data {index = 10 : i64} : tensor<f32, #ge.layout<NCHW, NC1HWC0, reshape_type = "">>
// CHECK-NEXT:    ge.data {index = 11 : i64} : tensor<3xf16, #ge.layout<NCDHW, NDC1HWC0, reshape_type = "D">>
// CHECK-NEXT:    ge.netoutput{{$}}
ge.graph @storage_shape_and_reshape_type {
  %0 = ge.data {index = 0 : i64} : tensor<4x3x3x3xf16, #ge.layout<NCHW, FRACTAL_Z, storage_shape = [9, 1, 16, 16]>>
  %1 = ge.data {index = 1 : i64} : tensor<1x3x2x4x4xf16, #ge.layout<NCDHW, NDC1HWC0, storage_shape = [1, 2, 1, 4, 4, 16]>>
  %2 = ge.data {index = 2 : i64} : tensor<3x3x32x8xf16, #ge.layout<HWCN, C1HWNCoC0, storage_shape = [2, 3, 3, 1, 16, 16]>>
  %3 = ge.data {index = 3 : i64} : tensor<2x40x24xf16, #ge.layout<ND, FRACTAL_NZ, storage_shape = [2, 2, 3, 16, 16]>>
  %4 = ge.data {index = 4 : i64} : tensor<64xf32, #ge.layout<NCHW, NC1HWC0, reshape_type = "C">>
  %5 = ge.data {index = 5 : i64} : tensor<5x7xf16, #ge.layout<NHWC, NC1HWC0, storage_shape = [1, 1, 1, 5, 16], reshape_type = "WC">>
  %6 = ge.data {index = 6 : i64} : tensor<5x7xf16, #ge.layout<NHWC, NC1HWC0, storage_shape = [1, 1, 5, 7, 16]>>
  %7 = ge.data {index = 7 : i64} : tensor<64xf32, #ge.layout<NCHW, NCHW, reshape_type = "C">>
  %8 = ge.data {index = 8 : i64} : tensor<1x3x8x8xf32, #ge.layout<NCHW, NCHW, storage_shape = [1, 3, 8, 8]>>
  %9 = ge.data {index = 9 : i64} : tensor<?x3x4x4xf16, #ge.layout<NCHW, NC1HWC0, storage_shape = [8, 1, 4, 4, 16]>>
  %10 = ge.data {index = 10 : i64} : tensor<f32, #ge.layout<NCHW, NC1HWC0, reshape_type = "">>
  %11 = ge.data {index = 11 : i64} : tensor<3xf16, #ge.layout<NCDHW, NDC1HWC0, reshape_type = "D">>
  ge.netoutput
}

// -----

// External weights: the key is any string literal.
// CHECK-LABEL: ge.graph @external
// CHECK-NEXT:    ge.const {value = #ge.external<"conv1.weight">} : tensor<4x3x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
// CHECK-NEXT:    ge.const {value = #ge.external<"with \22quotes\22 and spaces">} : tensor<2xf32>
// CHECK-NEXT:    ge.const {value = #ge.external<"">} : tensor<f32>
// CHECK-NEXT:    ge.netoutput{{$}}
ge.graph @external {
  %0 = ge.const {value = #ge.external<"conv1.weight">} : tensor<4x3x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
  %1 = ge.const {value = #ge.external<"with \"quotes\" and spaces">} : tensor<2xf32>
  %2 = ge.const {value = #ge.external<"">} : tensor<f32>
  ge.netoutput
}
