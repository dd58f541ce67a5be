// RUN: ge-opt %s --split-input-file -p convert-ge-to-loops | filecheck %s

// An NC1HWC0 value with 17 channels (C0 = 16 for f16) has padding: lanes
// 1..15 of its last C1 block are zero-filled, then the op computes the valid
// elements only, as two nests: the full C1 block and the one-channel tail.
// f16 computes in f32.

// CHECK-LABEL: func.func @relu_5hd(
// CHECK-SAME:      %[[X:.*]]: memref<1x2x3x3x16xf16> {ge.input = 0 : i64}) -> memref<1x2x3x3x16xf16> {
// CHECK-DAG:     %[[ZERO32:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[ZERO16:.*]] = arith.constant 0.000000e+00 : f16
// CHECK:         %[[Y:.*]] = memref.alloc() : memref<1x2x3x3x16xf16>
// CHECK:           affine.for %[[P:.*]] = 0 to 15 {
// CHECK-NEXT:        affine.store %[[ZERO16]], %[[Y]][0, 1, %{{.*}}, %{{.*}}, %[[P]] + 1]
// CHECK:         affine.for %[[H:.*]] = 0 to 3 {
// CHECK-NEXT:      affine.for %[[W:.*]] = 0 to 3 {
// CHECK-NEXT:        affine.for %[[C0:.*]] = 0 to 16 {
// CHECK-NEXT:          %[[V:.*]] = affine.load %[[X]][0, 0, %[[H]], %[[W]], %[[C0]]]
// CHECK-NEXT:          %[[E:.*]] = arith.extf %[[V]] : f16 to f32
// CHECK-NEXT:          %[[R:.*]] = arith.maximumf %[[E]], %[[ZERO32]] : f32
// CHECK-NEXT:          %[[T:.*]] = arith.truncf %[[R]] : f32 to f16
// CHECK-NEXT:          affine.store %[[T]], %[[Y]][0, 0, %[[H]], %[[W]], %[[C0]]]
// CHECK:         affine.for %[[H2:.*]] = 0 to 3 {
// CHECK-NEXT:      affine.for %[[W2:.*]] = 0 to 3 {
// CHECK-NEXT:        %{{.*}} = affine.load %[[X]][0, 1, %[[H2]], %[[W2]], 0]
// CHECK:             affine.store %{{.*}}, %[[Y]][0, 1, %[[H2]], %[[W2]], 0]
// CHECK:         func.return %[[Y]] : memref<1x2x3x3x16xf16>
ge.graph @relu_5hd {
  %x = ge.data {index = 0 : i64} : tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
  %y = ge.relu %x : tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %y : tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// A [C, 1, 1] bias stored as NC1HWC0 broadcasts onto the activation: its
// index keeps only C1 and C0.

// CHECK-LABEL: func.func @bias_broadcast(
// CHECK-SAME:      %[[X:.*]]: memref<2x1x4x4x16xf16> {ge.input = 0 : i64},
// CHECK-SAME:      %[[B:.*]]: memref<1x1x1x1x16xf16> {ge.input = 1 : i64})
// CHECK:         affine.for %[[N:.*]] = 0 to 2 {
// CHECK-NEXT:      affine.for %[[H:.*]] = 0 to 4 {
// CHECK-NEXT:        affine.for %[[W:.*]] = 0 to 4 {
// CHECK-NEXT:          affine.for %[[C:.*]] = 0 to 16 {
// CHECK-NEXT:            affine.load %[[X]][%[[N]], 0, %[[H]], %[[W]], %[[C]]]
// CHECK-NEXT:            arith.extf
// CHECK-NEXT:            affine.load %[[B]][0, 0, 0, 0, %[[C]]]
// CHECK-NEXT:            arith.extf
// CHECK-NEXT:            arith.addf
ge.graph @bias_broadcast {
  %x = ge.data {index = 0 : i64} : tensor<2x16x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %b = ge.data {index = 1 : i64} : tensor<16x1x1xf16, #ge.layout<NCHW, NC1HWC0>>
  %y = ge.add %x, %b : (tensor<2x16x4x4xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<16x1x1xf16, #ge.layout<NCHW, NC1HWC0>>) -> tensor<2x16x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %y : tensor<2x16x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// Values without a layout are plain row-major buffers; no padding, no fill.

// CHECK-LABEL: func.func @plain(
// CHECK-SAME:      %[[X:.*]]: memref<3x4xf32> {ge.input = 0 : i64, ge.name = "x"}) -> memref<3x4xf32> {
// CHECK-NEXT:    %[[Y:.*]] = memref.alloc() : memref<3x4xf32>
// CHECK-NEXT:    affine.for %[[I:.*]] = 0 to 3 {
// CHECK-NEXT:      affine.for %[[J:.*]] = 0 to 4 {
// CHECK-NEXT:        %[[V:.*]] = affine.load %[[X]][%[[I]], %[[J]]] : memref<3x4xf32>
// CHECK-NEXT:        %[[T:.*]] = math.tanh %[[V]] : f32
// CHECK-NEXT:        affine.store %[[T]], %[[Y]][%[[I]], %[[J]]] : memref<3x4xf32>
ge.graph @plain {
  %x = ge.data {index = 0 : i64, name = "x"} : tensor<3x4xf32>
  %y = ge.tanh %x : tensor<3x4xf32> -> tensor<3x4xf32>
  ge.netoutput %y : tensor<3x4xf32>
}
