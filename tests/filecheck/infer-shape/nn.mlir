// RUN: ge-opt %s --split-input-file --infer-shape | filecheck %s

// Result shapes of the neural-network ops follow data_format, strides,
// pads [top, bottom, left, right], dilations, groups and ceil_mode. Results
// declared fully unknown (?) are filled in; layouts are kept.

// CHECK-LABEL: ge.graph @conv2d_nchw
// CHECK:         %y = ge.conv2d {{.*}} -> tensor<2x8x8x8xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %z = ge.conv2d {{.*}} -> tensor<2x8x12x12xf32>
// CHECK:         %g = ge.conv2d {{.*}} -> tensor<2x4x16x16xf32>
ge.graph @conv2d_nchw {
  %x = ge.data {index = 0 : i64} : tensor<2x4x16x16xf32>
  %w = ge.const {value = dense<1.0> : tensor<8x4x3x3xf32>} : tensor<8x4x3x3xf32>
  %y = ge.conv2d %x, %w {data_format = "NCHW", strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x4x16x16xf32>, tensor<8x4x3x3xf32>) -> tensor<?x?x?x?xf32, #ge.layout<NCHW>>
  %z = ge.conv2d %x, %w {data_format = "NCHW", dilations = array<i64: 1, 1, 2, 2>} : (tensor<2x4x16x16xf32>, tensor<8x4x3x3xf32>) -> tensor<?x?x?x?xf32>
  %gw = ge.const {value = dense<1.0> : tensor<4x1x3x3xf32>} : tensor<4x1x3x3xf32>
  %g = ge.conv2d %x, %gw {data_format = "NCHW", groups = 4 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x4x16x16xf32>, tensor<4x1x3x3xf32>) -> tensor<?x?x?x?xf32>
  ge.netoutput %y, %z, %g : tensor<?x?x?x?xf32, #ge.layout<NCHW>>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>
}

// -----

// NHWC input with an HWCN (HWIO) filter, a bias, and an unknown batch.
// CHECK-LABEL: ge.graph @conv2d_nhwc_hwcn_filter
// CHECK:         %y = ge.conv2d {{.*}} -> tensor<?x7x5x6xf32, #ge.layout<NHWC>>
ge.graph @conv2d_nhwc_hwcn_filter {
  %x = ge.data {index = 0 : i64} : tensor<?x9x9x3xf32, #ge.layout<NHWC>>
  %w = ge.const {value = dense<1.0> : tensor<3x5x3x6xf32>} : tensor<3x5x3x6xf32, #ge.layout<HWCN>>
  %b = ge.const {value = dense<1.0> : tensor<6xf32>} : tensor<6xf32>
  %y = ge.conv2d %x, %w, %b {data_format = "NHWC"} : (tensor<?x9x9x3xf32, #ge.layout<NHWC>>, tensor<3x5x3x6xf32, #ge.layout<HWCN>>, tensor<6xf32>) -> tensor<?x?x?x?xf32, #ge.layout<NHWC>>
  ge.netoutput %y : tensor<?x?x?x?xf32, #ge.layout<NHWC>>
}

// -----

// ONNX ConvTranspose: stride * (size - 1) + output_padding + dilated kernel
// - pads; filter [Cin, Cout / groups, kh, kw].
// CHECK-LABEL: ge.graph @conv2d_transpose
// CHECK:         %y = ge.conv2d_transpose {{.*}} -> tensor<1x6x11x9xf32>
ge.graph @conv2d_transpose {
  %x = ge.data {index = 0 : i64} : tensor<1x4x5x5xf32>
  %w = ge.const {value = dense<1.0> : tensor<4x3x3x3xf32>} : tensor<4x3x3x3xf32>
  %y = ge.conv2d_transpose %x, %w {data_format = "NCHW", groups = 2 : i64, strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 1, 0, 1, 1>, output_padding = array<i64: 1, 0>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<?x?x?x?xf32>
  ge.netoutput %y : tensor<?x?x?x?xf32>
}

// -----

// Pools: floor mode; ceil mode keeps a partial last window; NHWC windows.
// CHECK-LABEL: ge.graph @pools
// CHECK:         %a = ge.max_pool {{.*}} -> tensor<1x3x3x3xf32>
// CHECK-NEXT:    %b = ge.max_pool {{.*}} -> tensor<1x3x4x4xf32>
// CHECK:         %c = ge.avg_pool {{.*}} -> tensor<1x4x4x3xf16, #ge.layout<NHWC>>
// CHECK-NEXT:    %d = ge.global_avg_pool {{.*}} -> tensor<1x3x1x1xf32>
// CHECK-NEXT:    %e = ge.global_max_pool {{.*}} -> tensor<1x1x1x3xf16, #ge.layout<NHWC>>
ge.graph @pools {
  %x = ge.data {index = 0 : i64} : tensor<1x3x7x7xf32>
  %a = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 3, 3>, strides = array<i64: 1, 1, 2, 2>} : tensor<1x3x7x7xf32> -> tensor<?x?x?x?xf32>
  %b = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>, ceil_mode = true} : tensor<1x3x7x7xf32> -> tensor<?x?x?x?xf32>
  %h = ge.data {index = 1 : i64} : tensor<1x8x8x3xf16, #ge.layout<NHWC>>
  %c = ge.avg_pool %h {data_format = "NHWC", ksize = array<i64: 1, 3, 3, 1>, strides = array<i64: 1, 2, 2, 1>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x8x8x3xf16, #ge.layout<NHWC>> -> tensor<?x?x?x?xf16, #ge.layout<NHWC>>
  %d = ge.global_avg_pool %x {data_format = "NCHW"} : tensor<1x3x7x7xf32> -> tensor<?x?x?x?xf32>
  %e = ge.global_max_pool %h {data_format = "NHWC"} : tensor<1x8x8x3xf16, #ge.layout<NHWC>> -> tensor<?x?x?x?xf16, #ge.layout<NHWC>>
  ge.netoutput %a, %b, %c, %d, %e : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf16, #ge.layout<NHWC>>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf16, #ge.layout<NHWC>>
}

// -----

// Shapes flow down a chain: each op's inferred result feeds the next.
// CHECK-LABEL: ge.graph @chain
// CHECK:         %c = ge.conv2d {{.*}} -> tensor<1x8x16x16xf32>
// CHECK:         %bn = ge.batch_norm {{.*}} -> tensor<1x8x16x16xf32>
// CHECK-NEXT:    %r = ge.relu %bn : tensor<1x8x16x16xf32> -> tensor<1x8x16x16xf32>
// CHECK-NEXT:    %p = ge.max_pool %r {{.*}} -> tensor<1x8x8x8xf32>
// CHECK-NEXT:    %f = ge.flatten %p : tensor<1x8x8x8xf32> -> tensor<1x512xf32>
// CHECK:         %m = ge.matmul %f, %fc : (tensor<1x512xf32>, tensor<512x10xf32>) -> tensor<1x10xf32>
// CHECK-NEXT:    %s = ge.softmax %m {{.*}} -> tensor<1x10xf32>
ge.graph @chain {
  %x = ge.data {index = 0 : i64} : tensor<1x3x16x16xf32>
  %w = ge.const {value = dense<1.0> : tensor<8x3x3x3xf32>} : tensor<8x3x3x3xf32>
  %c = ge.conv2d %x, %w {data_format = "NCHW", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x16x16xf32>, tensor<8x3x3x3xf32>) -> tensor<?x?x?x?xf32>
  %k = ge.const {value = dense<1.0> : tensor<8xf32>} : tensor<8xf32>
  %bn = ge.batch_norm %c, %k, %k, %k, %k {data_format = "NCHW"} : (tensor<?x?x?x?xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x?x?x?xf32>
  %r = ge.relu %bn : tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  %p = ge.max_pool %r {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>} : tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  %f = ge.flatten %p : tensor<?x?x?x?xf32> -> tensor<?x?xf32>
  %fc = ge.const {value = dense<1.0> : tensor<512x10xf32>} : tensor<512x10xf32>
  %m = ge.matmul %f, %fc : (tensor<?x?xf32>, tensor<512x10xf32>) -> tensor<?x?xf32>
  %s = ge.softmax %m : tensor<?x?xf32> -> tensor<?x?xf32>
  ge.netoutput %s : tensor<?x?xf32>
}
