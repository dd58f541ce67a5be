// RUN: ge-opt %s --split-input-file -p convert-ge-to-loops | filecheck %s

// NCHW -> NC1HWC0 (f32: C0 = 8, 17 channels = 2 full blocks + 1): the channel
// loop is split into (c1, c0) so both sides are affine; the padding (lanes
// 1..7 of the last block) is zeroed.
// Back to NCHW reads only the valid channels.

// CHECK-LABEL: func.func @to_5hd(
// CHECK-SAME:      %[[X:.*]]: memref<1x17x2x2xf32> {ge.input = 0 : i64}) -> (memref<1x3x2x2x8xf32>, memref<1x17x2x2xf32>) {
// CHECK:         %[[Y:.*]] = memref.alloc() : memref<1x3x2x2x8xf32>
// CHECK:         affine.store %{{.*}}, %[[Y]][0, 2, %{{.*}}, %{{.*}}, %{{.*}} + 1]
// CHECK:         affine.for %[[C1:.*]] = 0 to 2 {
// CHECK-NEXT:      affine.for %[[H:.*]] = 0 to 2 {
// CHECK-NEXT:        affine.for %[[W:.*]] = 0 to 2 {
// CHECK-NEXT:          affine.for %[[C0:.*]] = 0 to 8 {
// CHECK-NEXT:            %[[V:.*]] = affine.load %[[X]][0, %[[C1]] * 8 + %[[C0]], %[[H]], %[[W]]] : memref<1x17x2x2xf32>
// CHECK-NEXT:            affine.store %[[V]], %[[Y]][0, %[[C1]], %[[H]], %[[W]], %[[C0]]] : memref<1x3x2x2x8xf32>
// CHECK:         affine.for %[[H2:.*]] = 0 to 2 {
// CHECK-NEXT:      affine.for %[[W2:.*]] = 0 to 2 {
// CHECK-NEXT:        %[[T:.*]] = affine.load %[[X]][0, 16, %[[H2]], %[[W2]]]
// CHECK-NEXT:        affine.store %[[T]], %[[Y]][0, 2, %[[H2]], %[[W2]], 0]
// CHECK:         %[[Z:.*]] = memref.alloc() : memref<1x17x2x2xf32>
// CHECK-NOT:     affine.store %{{.*}}, %[[Z]][0, %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x17x2x2xf32>
// CHECK:         affine.load %[[Y]][0, %[[A:.*]], %[[B:.*]], %[[C:.*]], %[[D:.*]]]
// CHECK-NEXT:    affine.store %{{.*}}, %[[Z]][0, %[[A]] * 8 + %[[D]], %[[B]], %[[C]]]
// CHECK:         func.return %[[Y]], %[[Z]]
ge.graph @to_5hd {
  %x = ge.data {index = 0 : i64} : tensor<1x17x2x2xf32, #ge.layout<NCHW>>
  %y = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x2x2xf32, #ge.layout<NCHW>> -> tensor<1x17x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  %z = ge.transdata %y {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x17x2x2xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x2x2xf32, #ge.layout<NCHW>>
  ge.netoutput %y, %z : tensor<1x17x2x2xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x17x2x2xf32, #ge.layout<NCHW>>
}

// -----

// ND [20, 9] f16 -> FRACTAL_NZ [W1 = 1, H1 = 2, 16, 16]: rows split 16 + 4.

// CHECK-LABEL: func.func @to_nz(
// CHECK-SAME:      %[[X:.*]]: memref<20x9xf16> {ge.input = 0 : i64}) -> memref<1x2x16x16xf16> {
// CHECK:         affine.store %{{.*}}, %[[Y:.*]][0, %{{.*}}, %{{.*}}, %{{.*}}]
// CHECK:         affine.for %[[R:.*]] = 0 to 16 {
// CHECK-NEXT:      affine.for %[[C:.*]] = 0 to 9 {
// CHECK-NEXT:        %[[V:.*]] = affine.load %[[X]][%[[R]], %[[C]]]
// CHECK-NEXT:        affine.store %[[V]], %[[Y]][0, 0, %[[R]], %[[C]]]
// CHECK:         affine.for %[[R2:.*]] = 0 to 4 {
// CHECK-NEXT:      affine.for %[[C2:.*]] = 0 to 9 {
// CHECK-NEXT:        %[[V2:.*]] = affine.load %[[X]][%[[R2]] + 16, %[[C2]]]
// CHECK-NEXT:        affine.store %[[V2]], %[[Y]][0, 1, %[[R2]], %[[C2]]]
ge.graph @to_nz {
  %x = ge.data {index = 0 : i64} : tensor<20x9xf16>
  %y = ge.transdata %x {src_format = #ge.format<ND>, dst_format = #ge.format<FRACTAL_NZ>} : tensor<20x9xf16> -> tensor<20x9xf16, #ge.layout<ND, FRACTAL_NZ>>
  ge.netoutput %y : tensor<20x9xf16, #ge.layout<ND, FRACTAL_NZ>>
}
