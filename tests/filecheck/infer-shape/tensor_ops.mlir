// RUN: ge-opt %s --split-input-file --infer-shape | filecheck %s

// Elementwise broadcasting, dtype changes, and the data-movement ops.

// NumPy broadcasting with unknown dims, once an upstream shape is known;
// layouts of same-rank results are kept.
// CHECK-LABEL: ge.graph @broadcast
// CHECK:         %x = ge.reshape %x0 {{.*}} -> tensor<2x3x4x5xf32, #ge.layout<NCHW>>
// CHECK:         %a = ge.add %x, %b : {{.*}} -> tensor<2x3x4x5xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %m = ge.mul %a, %u : {{.*}} -> tensor<2x3x4x5xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %s = ge.add_n %x, %b, %u : {{.*}} -> tensor<2x3x4x5xf32>
// CHECK-NEXT:    %c = ge.cast %s {dst_type = f16} : tensor<2x3x4x5xf32> -> tensor<2x3x4x5xf16>
ge.graph @broadcast {
  %x0 = ge.data {index = 0 : i64} : tensor<120xf32>
  %x = ge.reshape %x0 {shape = array<i64: 2, 3, 4, 5>} : tensor<120xf32> -> tensor<?x?x?x?xf32, #ge.layout<NCHW>>
  %b = ge.data {index = 1 : i64} : tensor<5xf32>
  %u = ge.data {index = 2 : i64} : tensor<?x1x1x1xf32>
  %a = ge.add %x, %b : (tensor<?x?x?x?xf32, #ge.layout<NCHW>>, tensor<5xf32>) -> tensor<?x?x?x5xf32, #ge.layout<NCHW>>
  %m = ge.mul %a, %u : (tensor<?x?x?x5xf32, #ge.layout<NCHW>>, tensor<?x1x1x1xf32>) -> tensor<?x?x?x5xf32, #ge.layout<NCHW>>
  %s = ge.add_n %x, %b, %u : (tensor<?x?x?x?xf32, #ge.layout<NCHW>>, tensor<5xf32>, tensor<?x1x1x1xf32>) -> tensor<?x?x?x?xf32>
  %c = ge.cast %s {dst_type = f16} : tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf16>
  ge.netoutput %m, %c : tensor<?x?x?x5xf32, #ge.layout<NCHW>>, tensor<?x?x?x?xf16>
}

// -----

// An unknown input dim stays unknown unless the declared result knows it.
// CHECK-LABEL: ge.graph @unknown_dims
// CHECK:         %y = ge.conv2d {{.*}} -> tensor<?x4x6x6xf32>
// CHECK-NEXT:    %z = ge.conv2d {{.*}} -> tensor<8x4x6x6xf32>
ge.graph @unknown_dims {
  %x = ge.data {index = 0 : i64} : tensor<?x3x8x8xf32>
  %w = ge.const {value = dense<1.0> : tensor<4x3x3x3xf32>} : tensor<4x3x3x3xf32>
  %y = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x?x?x?xf32>
  %z = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<8x?x?x?xf32>
  ge.netoutput %y, %z : tensor<?x?x?x?xf32>, tensor<8x?x?x?xf32>
}

// -----

// CHECK-LABEL: ge.graph @concat_split
// CHECK:         %c = ge.concat %x, %y {{.*}} -> tensor<2x7x4xf32>
// CHECK-NEXT:    %a, %b, %d = ge.split %c {{.*}} -> (tensor<2x1x4xf32>, tensor<2x4x4xf32>, tensor<2x2x4xf32>)
ge.graph @concat_split {
  %x = ge.data {index = 0 : i64} : tensor<2x3x4xf32>
  %y = ge.data {index = 1 : i64} : tensor<2x4x4xf32>
  %c = ge.concat %x, %y {axis = -2 : i64} : (tensor<2x3x4xf32>, tensor<2x4x4xf32>) -> tensor<?x?x?xf32>
  %a, %b, %d = ge.split %c {axis = 1 : i64, sizes = array<i64: 1, 4, 2>} : (tensor<?x?x?xf32>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>)
  ge.netoutput %a, %b, %d : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>
}

// -----

// ONNX Slice (negative and clamped bounds, negative steps), gather, tile, pad.
// CHECK-LABEL: ge.graph @slice_gather_tile_pad
// CHECK:         %s = ge.slice %x {{.*}} -> tensor<4x3x3xf32>
// CHECK-NEXT:    %r = ge.slice %x {{.*}} -> tensor<10x6x2xf32>
// CHECK:         %g = ge.gather %x, %i {{.*}} -> tensor<10x2x3x5xf32>
// CHECK-NEXT:    %t = ge.tile %x {{.*}} -> tensor<20x6x15xf32>
// CHECK-NEXT:    %p = ge.pad %x {{.*}} -> tensor<11x8x4xf32>
ge.graph @slice_gather_tile_pad {
  %x = ge.data {index = 0 : i64} : tensor<10x6x5xf32>
  %s = ge.slice %x {begins = array<i64: 2, -3, 0>, ends = array<i64: 6, 100, 5>, axes = array<i64: 0, 1, 2>, steps = array<i64: 1, 1, 2>} : tensor<10x6x5xf32> -> tensor<?x?x?xf32>
  %r = ge.slice %x {begins = array<i64: -1>, ends = array<i64: -100>, axes = array<i64: 2>, steps = array<i64: -3>} : tensor<10x6x5xf32> -> tensor<?x?x?xf32>
  %i = ge.data {index = 1 : i64} : tensor<2x3xi32>
  %g = ge.gather %x, %i {axis = 1 : i64} : (tensor<10x6x5xf32>, tensor<2x3xi32>) -> tensor<?x?x?x?xf32>
  %t = ge.tile %x {multiples = array<i64: 2, 1, 3>} : tensor<10x6x5xf32> -> tensor<?x?x?xf32>
  %p = ge.pad %x {paddings = array<i64: 1, 0, -1, 0, 2, 0>} : tensor<10x6x5xf32> -> tensor<?x?x?xf32>
  ge.netoutput %s, %r, %g, %t, %p : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>
}

// -----

// Reshape with 0 (copy) and -1 (inferred), flatten, squeeze, unsqueeze,
// expand_dims, transpose, permute.
// CHECK-LABEL: ge.graph @shape_ops
// CHECK:         %x = ge.reshape %x0 {{.*}} -> tensor<2x3x4x5xf32>
// CHECK-NEXT:    %a = ge.reshape %x {{.*}} -> tensor<2x3x20xf32>
// CHECK-NEXT:    %b = ge.reshape %x : tensor<2x3x4x5xf32> -> tensor<6x20xf32>
// CHECK-NEXT:    %f = ge.flatten %x {{.*}} -> tensor<24x5xf32>
// CHECK:         %q = ge.squeeze %y : tensor<1x3x1x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT:    %q2 = ge.squeeze %y {{.*}} -> tensor<3x1x4xf32>
// CHECK-NEXT:    %u = ge.unsqueeze %q {{.*}} -> tensor<1x3x4x1xf32>
// CHECK-NEXT:    %e = ge.expand_dims %q {{.*}} -> tensor<3x4x1xf32>
// CHECK-NEXT:    %t = ge.transpose %x {{.*}} -> tensor<2x4x5x3xf32>
// CHECK-NEXT:    %p = ge.permute %x {{.*}} -> tensor<5x4x3x2xf32>
ge.graph @shape_ops {
  %x0 = ge.data {index = 0 : i64} : tensor<120xf32>
  %x = ge.reshape %x0 {shape = array<i64: 2, 3, 4, 5>} : tensor<120xf32> -> tensor<?x?x?x?xf32>
  %a = ge.reshape %x {shape = array<i64: 0, 0, -1>} : tensor<?x?x?x?xf32> -> tensor<?x?x?xf32>
  %b = ge.reshape %x : tensor<?x?x?x?xf32> -> tensor<6x20xf32>
  %f = ge.flatten %x {axis = 3 : i64} : tensor<?x?x?x?xf32> -> tensor<?x?xf32>
  %y = ge.data {index = 1 : i64} : tensor<1x3x1x4xf32>
  %q = ge.squeeze %y : tensor<1x3x1x4xf32> -> tensor<?x?xf32>
  %q2 = ge.squeeze %y {axes = array<i64: 0>} : tensor<1x3x1x4xf32> -> tensor<?x?x?xf32>
  %u = ge.unsqueeze %q {axes = array<i64: 0, -1>} : tensor<?x?xf32> -> tensor<?x?x?x?xf32>
  %e = ge.expand_dims %q {axis = -1 : i64} : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %t = ge.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  %p = ge.permute %x {order = array<i64: 3, 2, 1, 0>} : tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  ge.netoutput %a, %b, %f, %q2, %u, %e, %t, %p : tensor<?x?x?xf32>, tensor<6x20xf32>, tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>
}

// -----

// Reductions and matrix products.
// CHECK-LABEL: ge.graph @reductions_and_products
// CHECK:         %s = ge.reduce_sum %x {{.*}} -> tensor<2x1x1x5xf32>
// CHECK-NEXT:    %m = ge.reduce_mean %x {{.*}} -> tensor<2x5xf32>
// CHECK-NEXT:    %a = ge.reduce_max %x {{.*}} -> tensor<f32>
// CHECK:         %mm = ge.matmul %l, %r, %bias {{.*}} -> tensor<3x5xf32>
// CHECK:         %bm = ge.batch_matmul %bl, %br {{.*}} -> tensor<4x2x3x5xf32>
// CHECK-NEXT:    %g = ge.gemm %l, %r, %bias {{.*}} -> tensor<3x5xf32>
ge.graph @reductions_and_products {
  %x = ge.data {index = 0 : i64} : tensor<2x3x4x5xf32>
  %s = ge.reduce_sum %x {axes = array<i64: 1, -2>} : tensor<2x3x4x5xf32> -> tensor<?x?x?x?xf32>
  %m = ge.reduce_mean %x {axes = array<i64: 1, 2>, keep_dims = false} : tensor<2x3x4x5xf32> -> tensor<?x?xf32>
  %a = ge.reduce_max %x {keep_dims = false} : tensor<2x3x4x5xf32> -> tensor<f32>
  %l = ge.data {index = 1 : i64} : tensor<4x3xf32>
  %r = ge.data {index = 2 : i64} : tensor<4x5xf32>
  %bias = ge.data {index = 3 : i64} : tensor<5xf32>
  %mm = ge.matmul %l, %r, %bias {transpose_x1 = true} : (tensor<4x3xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<?x?xf32>
  %bl = ge.data {index = 4 : i64} : tensor<4x1x3x6xf32>
  %br = ge.data {index = 5 : i64} : tensor<2x5x6xf32>
  %bm = ge.batch_matmul %bl, %br {adj_x2 = true} : (tensor<4x1x3x6xf32>, tensor<2x5x6xf32>) -> tensor<?x?x?x?xf32>
  %g = ge.gemm %l, %r, %bias {trans_a = true} : (tensor<4x3xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<?x?xf32>
  ge.netoutput %s, %m, %a, %mm, %bm, %g : tensor<?x?x?x?xf32>, tensor<?x?xf32>, tensor<f32>, tensor<?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?xf32>
}
