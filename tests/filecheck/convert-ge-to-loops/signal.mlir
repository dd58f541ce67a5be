// RUN: ge-opt %s --split-input-file -p convert-ge-to-loops | filecheck %s

// ge.dft: the twiddle matrix is a constant table W [out part, bin, in part,
// sample] (a real input has one in part); the transform is one reduction
// over the samples: y[0, k, c, o] += W[o, k, 0, j] * x[0, j, c, 0].

// CHECK:         memref.global{{.*}}sym_name = "dft_table0", type = memref<2x6x1x10xf32>
// CHECK-LABEL: func.func @dft(
// CHECK-SAME:      %[[X:.*]]: memref<1x10x3x1xf32> {ge.input = 0 : i64})
// CHECK:         %[[Y:.*]] = memref.alloc() : memref<1x6x3x2xf32>
// CHECK-NEXT:    %[[W:.*]] = memref.get_global @dft_table0 : memref<2x6x1x10xf32>
// CHECK:         affine.store %{{.*}}, %[[Y]]
// CHECK:         affine.for %[[K:.*]] = 0 to 6 {
// CHECK-NEXT:      affine.for %[[C:.*]] = 0 to 3 {
// CHECK-NEXT:        affine.for %[[O:.*]] = 0 to 2 {
// CHECK-NEXT:          affine.for %[[J:.*]] = 0 to 10 {
// CHECK-NEXT:            %[[T:.*]] = affine.load %[[W]][%[[O]], %[[K]], 0, %[[J]]]
// CHECK-NEXT:            %[[V:.*]] = affine.load %[[X]][0, %[[J]], %[[C]], 0]
// CHECK-NEXT:            %[[P:.*]] = arith.mulf %[[T]], %[[V]] : f32
// CHECK-NEXT:            %[[A:.*]] = affine.load %[[Y]][0, %[[K]], %[[C]], %[[O]]]
// CHECK-NEXT:            %[[S:.*]] = arith.addf %[[A]], %[[P]] : f32
// CHECK-NEXT:            affine.store %[[S]], %[[Y]][0, %[[K]], %[[C]], %[[O]]]
ge.graph @dft {
  %x = ge.data {index = 0 : i64} : tensor<1x10x3x1xf32>
  %y = ge.dft %x {axis = 1 : i64, length = 10 : i64, onesided = true} : tensor<1x10x3x1xf32> -> tensor<1x6x3x2xf32>
  ge.netoutput %y : tensor<1x6x3x2xf32>
}

// -----

// Truncated to 4 points of 7 samples: only samples 0..3 are read.

// CHECK-LABEL: func.func @dft_truncated(
// CHECK:         memref.get_global @dft_truncated_table0 : memref<2x4x2x4xf32>
// CHECK:         affine.for %{{.*}} = 0 to 4 {
// CHECK-NOT:     affine.for %{{.*}} = 0 to 7 {
ge.graph @dft_truncated {
  %x = ge.data {index = 0 : i64} : tensor<7x2xf32>
  %y = ge.dft %x {axis = 0 : i64, length = 4 : i64} : tensor<7x2xf32> -> tensor<4x2xf32>
  ge.netoutput %y : tensor<4x2xf32>
}
