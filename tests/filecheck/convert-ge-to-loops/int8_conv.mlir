// RUN: ge-opt %s --infer-origin-format --infer-shape --refine-running-format --select-storage-format --insert-transdata --convert-ge-to-loops | filecheck %s

// GE's int8 convolution: 8-bit input and filter stay 8-bit in storage
// (NC1HWC0 and FRACTAL_Z with the int8 C0 = 32; 64 channels are 2 blocks),
// each product is widened to i32 (unsigned x, signed filter) and summed in
// the int32 result (NC1HWC0 with C0 = 8), exact at any length.

// CHECK-LABEL: func.func @int8_conv(
// CHECK:         affine.for
// CHECK:                   %[[X:.*]] = affine.load %{{.*}}[0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x2x11x9x32xi8>
// CHECK-NEXT:              %[[W:.*]] = affine.load %{{.*}}[%{{.*}} * 9 + %{{.*}} * 3 + %{{.*}}, 0, %{{.*}}, %{{.*}}] : memref<18x1x16x32xi8>
// CHECK-NEXT:              %[[XW:.*]] = arith.extui %[[X]] : i8 to i32
// CHECK-NEXT:              %[[WW:.*]] = arith.extsi %[[W]] : i8 to i32
// CHECK-NEXT:              %[[P:.*]] = arith.muli %[[XW]], %[[WW]] : i32
// CHECK-NEXT:              %[[ACC:.*]] = affine.load %{{.*}} : memref<1x1x9x7x8xi32>
// CHECK-NEXT:              %[[S:.*]] = arith.addi %[[ACC]], %[[P]] : i32
// CHECK-NEXT:              affine.store %[[S]], %{{.*}} : memref<1x1x9x7x8xi32>
ge.graph @int8_conv {
  %x = ge.data {index = 0 : i64} : tensor<1x64x9x7xui8>
  %w = ge.data {index = 1 : i64} : tensor<5x64x3x3xi8>
  %y = ge.conv2d %x, %w {data_format = "NCHW", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x64x9x7xui8>, tensor<5x64x3x3xi8>) -> tensor<1x5x9x7xi32>
  ge.netoutput %y : tensor<1x5x9x7xi32>
}
