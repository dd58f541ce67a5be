// RUN: ge-opt %s --split-input-file --fold-transpose-into-matmul | filecheck %s

// Attention's k^T: transpose (0,2,3,1) moves k's innermost axis to
// second-to-last. The swap becomes adj_x2 and the transpose left over,
// (0,2,1,3), keeps the innermost axis innermost (a head split).
// CHECK-LABEL: ge.graph @key_transposed
// CHECK-NEXT:    %q = ge.data
// CHECK-NEXT:    %k = ge.data
// CHECK-NEXT:    %[[KH:.*]] = ge.transpose %k {perm = array<i64: 0, 2, 1, 3>, name = "kt"} : tensor<2x11x4x16xf32> -> tensor<2x4x11x16xf32>
// CHECK-NEXT:    %[[S:.*]] = ge.batch_matmul %q, %[[KH]] {adj_x2 = true} : (tensor<2x4x11x16xf32>, tensor<2x4x11x16xf32>) -> tensor<2x4x11x11xf32>
// CHECK-NEXT:    ge.netoutput %[[S]]
ge.graph @key_transposed {
  %q = ge.data {index = 0 : i64} : tensor<2x4x11x16xf32>
  %k = ge.data {index = 1 : i64} : tensor<2x11x4x16xf32>
  %kt = ge.transpose %k {perm = array<i64: 0, 2, 3, 1>, name = "kt"} : tensor<2x11x4x16xf32> -> tensor<2x4x16x11xf32>
  %s = ge.batch_matmul %q, %kt : (tensor<2x4x11x16xf32>, tensor<2x4x16x11xf32>) -> tensor<2x4x11x11xf32>
  ge.netoutput %s : tensor<2x4x11x11xf32>
}

// -----

// A plain transpose of a 2-D operand disappears: transpose_x1 flips.
// CHECK-LABEL: ge.graph @matrix_transposed
// CHECK-NEXT:    %a = ge.data
// CHECK-NEXT:    %b = ge.data
// CHECK-NEXT:    %[[P:.*]] = ge.matmul %a, %b {transpose_x1 = true} : (tensor<17x3xf32>, tensor<17x5xf32>) -> tensor<3x5xf32>
// CHECK-NEXT:    ge.netoutput %[[P]]
ge.graph @matrix_transposed {
  %a = ge.data {index = 0 : i64} : tensor<17x3xf32>
  %b = ge.data {index = 1 : i64} : tensor<17x5xf32>
  %t = ge.transpose %a {perm = array<i64: 1, 0>} : tensor<17x3xf32> -> tensor<3x17xf32>
  %p = ge.matmul %t, %b : (tensor<3x17xf32>, tensor<17x5xf32>) -> tensor<3x5xf32>
  ge.netoutput %p : tensor<3x5xf32>
}

// -----

// An operand already transposed by the product: the flip turns it off
// (the default, false, is not printed).
// CHECK-LABEL: ge.graph @adjoint_cancelled
// CHECK-NEXT:    %a = ge.data
// CHECK-NEXT:    %b = ge.data
// CHECK-NEXT:    %[[P:.*]] = ge.batch_matmul %a, %b : (tensor<3x4x5xf32>, tensor<3x5x6xf32>) -> tensor<3x4x6xf32>
ge.graph @adjoint_cancelled {
  %a = ge.data {index = 0 : i64} : tensor<3x4x5xf32>
  %b = ge.data {index = 1 : i64} : tensor<3x5x6xf32>
  %t = ge.transpose %b {perm = array<i64: 0, 2, 1>} : tensor<3x5x6xf32> -> tensor<3x6x5xf32>
  %p = ge.batch_matmul %a, %t {adj_x2 = true} : (tensor<3x4x5xf32>, tensor<3x6x5xf32>) -> tensor<3x4x6xf32>
  ge.netoutput %p : tensor<3x4x6xf32>
}

// -----

// The transposed value has another user: it stays, and so does the product.
// CHECK-LABEL: ge.graph @no_fold_other_user
// CHECK:         %t = ge.transpose %b
// CHECK-NEXT:    ge.batch_matmul %a, %t :
ge.graph @no_fold_other_user {
  %a = ge.data {index = 0 : i64} : tensor<3x4x5xf32>
  %b = ge.data {index = 1 : i64} : tensor<3x6x5xf32>
  %t = ge.transpose %b {perm = array<i64: 0, 2, 1>} : tensor<3x6x5xf32> -> tensor<3x5x6xf32>
  %p = ge.batch_matmul %a, %t : (tensor<3x4x5xf32>, tensor<3x5x6xf32>) -> tensor<3x4x6xf32>
  ge.netoutput %p, %t : tensor<3x4x6xf32>, tensor<3x5x6xf32>
}

// -----

// A head split (0,2,1,3) keeps the innermost axis innermost: nothing to fold.
// CHECK-LABEL: ge.graph @no_fold_innermost_kept
// CHECK:         %v = ge.transpose %x {perm = array<i64: 0, 2, 1, 3>}
// CHECK-NEXT:    ge.batch_matmul %p, %v :
ge.graph @no_fold_innermost_kept {
  %p = ge.data {index = 0 : i64} : tensor<2x4x11x11xf32>
  %x = ge.data {index = 1 : i64} : tensor<2x11x4x16xf32>
  %v = ge.transpose %x {perm = array<i64: 0, 2, 1, 3>} : tensor<2x11x4x16xf32> -> tensor<2x4x11x16xf32>
  %c = ge.batch_matmul %p, %v : (tensor<2x4x11x11xf32>, tensor<2x4x11x16xf32>) -> tensor<2x4x11x16xf32>
  ge.netoutput %c : tensor<2x4x11x16xf32>
}

// -----

// An exported scaled_dot_product_attention scales k^T by a scalar between
// the head split and the product: the scale moves above the split (reshape
// and transpose), then the transpose folds.
// CHECK-LABEL: ge.graph @scaled_key
// CHECK-NEXT:    %q = ge.data
// CHECK-NEXT:    %k = ge.data
// CHECK-NEXT:    %c = ge.const
// CHECK-NEXT:    %[[M:.*]] = ge.mul %k, %c {name = "scale"} : (tensor<2x11x32xf32>, tensor<f32>) -> tensor<2x11x32xf32>
// CHECK-NEXT:    %[[R:.*]] = ge.reshape %[[M]] {shape = array<i64: 2, 11, 4, 8>}
// CHECK-NEXT:    %[[KH:.*]] = ge.transpose %[[R]] {perm = array<i64: 0, 2, 1, 3>, name = "kt"} : tensor<2x11x4x8xf32> -> tensor<2x4x11x8xf32>
// CHECK-NEXT:    %[[S:.*]] = ge.batch_matmul %q, %[[KH]] {adj_x2 = true}
ge.graph @scaled_key {
  %q = ge.data {index = 0 : i64} : tensor<2x4x11x8xf32>
  %k = ge.data {index = 1 : i64} : tensor<2x11x32xf32>
  %c = ge.const {value = dense<0.5> : tensor<f32>} : tensor<f32>
  %r = ge.reshape %k {shape = array<i64: 2, 11, 4, 8>} : tensor<2x11x32xf32> -> tensor<2x11x4x8xf32>
  %kt = ge.transpose %r {perm = array<i64: 0, 2, 3, 1>, name = "kt"} : tensor<2x11x4x8xf32> -> tensor<2x4x8x11xf32>
  %ks = ge.mul %kt, %c {name = "scale"} : (tensor<2x4x8x11xf32>, tensor<f32>) -> tensor<2x4x8x11xf32>
  %s = ge.batch_matmul %q, %ks : (tensor<2x4x11x8xf32>, tensor<2x4x8x11xf32>) -> tensor<2x4x11x11xf32>
  ge.netoutput %s : tensor<2x4x11x11xf32>
}

// -----

// GPT-2's export computes k^T per head over [B*H, S, D]: a reshape of the
// batch axes, the swap, a reshape back, then the scale. The reshape trades
// places with the swap, the scale moves above, and the swap goes into the
// product: the reshapes left ([2, 4, 11, 16] -> [8, 11, 16] -> [2, 4, 11, 16])
// change nothing a head split sees.
// CHECK-LABEL: ge.graph @batch_reshape_between
// CHECK-NEXT:    %q = ge.data
// CHECK-NEXT:    %k = ge.data
// CHECK-NEXT:    %c = ge.const
// CHECK-NEXT:    %{{.*}} = ge.mul %k, %c : (tensor<2x4x11x16xf32>, tensor<f32>) -> tensor<2x4x11x16xf32>
// CHECK-NEXT:    %{{.*}} = ge.reshape %{{.*}} {shape = array<i64: 8, 11, 16>} : tensor<2x4x11x16xf32> -> tensor<8x11x16xf32>
// CHECK-NEXT:    %{{.*}} = ge.reshape %{{.*}} {shape = array<i64: 2, 4, 11, 16>} : tensor<8x11x16xf32> -> tensor<2x4x11x16xf32>
// CHECK-NEXT:    %s = ge.batch_matmul %q, %{{.*}} {adj_x2 = true} : (tensor<2x4x11x16xf32>, tensor<2x4x11x16xf32>) -> tensor<2x4x11x11xf32>
ge.graph @batch_reshape_between {
  %q = ge.data {index = 0 : i64} : tensor<2x4x11x16xf32>
  %k = ge.data {index = 1 : i64} : tensor<2x4x11x16xf32>
  %r = ge.reshape %k {shape = array<i64: 8, 11, 16>} : tensor<2x4x11x16xf32> -> tensor<8x11x16xf32>
  %t = ge.transpose %r {perm = array<i64: 0, 2, 1>} : tensor<8x11x16xf32> -> tensor<8x16x11xf32>
  %b = ge.reshape %t {shape = array<i64: 2, 4, 16, 11>} : tensor<8x16x11xf32> -> tensor<2x4x16x11xf32>
  %c = ge.const {value = dense<0.5> : tensor<f32>} : tensor<f32>
  %m = ge.mul %b, %c : (tensor<2x4x16x11xf32>, tensor<f32>) -> tensor<2x4x16x11xf32>
  %s = ge.batch_matmul %q, %m : (tensor<2x4x11x16xf32>, tensor<2x4x16x11xf32>) -> tensor<2x4x11x11xf32>
  ge.netoutput %s : tensor<2x4x11x11xf32>
}

// -----

// The reshape regroups a matrix axis ([8, 16, 11] -> [2, 4, 4, 44]): it
// cannot trade places with the swap, nothing changes.
// CHECK-LABEL: ge.graph @no_commute_matrix_reshape
// CHECK:         ge.transpose
// CHECK-NEXT:    ge.reshape
// CHECK-NEXT:    ge.batch_matmul %q, %b : 
ge.graph @no_commute_matrix_reshape {
  %q = ge.data {index = 0 : i64} : tensor<2x4x11x4xf32>
  %k = ge.data {index = 1 : i64} : tensor<8x11x16xf32>
  %t = ge.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<8x11x16xf32> -> tensor<8x16x11xf32>
  %b = ge.reshape %t {shape = array<i64: 2, 4, 4, 44>} : tensor<8x16x11xf32> -> tensor<2x4x4x44xf32>
  %s = ge.batch_matmul %q, %b : (tensor<2x4x11x4xf32>, tensor<2x4x4x44xf32>) -> tensor<2x4x11x44xf32>
  ge.netoutput %s : tensor<2x4x11x44xf32>
}
