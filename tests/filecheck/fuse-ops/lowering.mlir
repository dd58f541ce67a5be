// RUN: ge-opt %s --split-input-file --fuse-ops --convert-ge-to-loops | filecheck %s

// A fused group lowers to one loop nest: per output element the accumulator
// is initialised (bias), the reduction loop runs inside, then the epilogue
// (residual add, relu) works on the finished value and only the group's
// result is stored. No loop makes a second pass over the output.

// CHECK-LABEL: func.func @conv_add_relu(
// CHECK-SAME:      %[[X:.*]]: memref<1x1x2x2x8xf32> {ge.input = 0 : i64},
// CHECK-SAME:      %[[SKIP:.*]]: memref<1x1x2x2x8xf32> {ge.input = 1 : i64},
// CHECK-SAME:      %[[W:.*]]: memref<1x1x16x8xf32> {ge.weight = "w"})
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[B:.*]] = memref.get_global
// CHECK-NEXT:    %[[Y:.*]] = memref.alloc() : memref<1x1x2x2x8xf32>
// CHECK-NEXT:    %[[ACC:.*]] = memref.alloc() : memref<1x1x2x2x8xf32>
// CHECK-NEXT:    affine.for %[[H:.*]] = 0 to 2 {
// CHECK-NEXT:      affine.for %[[WO:.*]] = 0 to 2 {
// CHECK-NEXT:        affine.for %[[C:.*]] = 0 to 8 {
// CHECK-NEXT:          %[[BIAS:.*]] = affine.load %[[B]][%[[C]]]
// CHECK-NEXT:          affine.store %[[BIAS]], %[[ACC]][0, 0, %[[H]], %[[WO]], %[[C]]]
// CHECK-NEXT:          affine.for %[[CI:.*]] = 0 to 8 {
// CHECK-NEXT:            affine.load %[[X]][0, 0, %[[H]], %[[WO]], %[[CI]]]
// CHECK-NEXT:            affine.load %[[W]][0, 0, %[[C]], %[[CI]]]
// CHECK-NEXT:            arith.mulf
// CHECK-NEXT:            affine.load %[[ACC]]
// CHECK-NEXT:            arith.addf
// CHECK-NEXT:            affine.store {{.*}}, %[[ACC]][0, 0, %[[H]], %[[WO]], %[[C]]]
// CHECK-NEXT:          }
// CHECK-NEXT:          %[[V:.*]] = affine.load %[[ACC]][0, 0, %[[H]], %[[WO]], %[[C]]]
// CHECK-NEXT:          %[[S:.*]] = affine.load %[[SKIP]][0, 0, %[[H]], %[[WO]], %[[C]]]
// CHECK-NEXT:          %[[SUM:.*]] = arith.addf %[[V]], %[[S]] : f32
// CHECK-NEXT:          %[[R:.*]] = arith.maximumf %[[SUM]], %[[ZERO]] : f32
// CHECK-NEXT:          affine.store %[[R]], %[[Y]][0, 0, %[[H]], %[[WO]], %[[C]]]
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.dealloc %[[ACC]]
// CHECK-NEXT:    func.return %[[Y]]
ge.graph @conv_add_relu {
  %x = ge.data {index = 0 : i64} : tensor<1x8x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  %skip = ge.data {index = 1 : i64} : tensor<1x8x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  %w = ge.const {value = #ge.external<"w">} : tensor<8x8x1x1xf32, #ge.layout<NCHW, FRACTAL_Z>>
  %b = ge.const {value = dense<0.5> : tensor<8xf32>} : tensor<8xf32>
  %c = ge.conv2d %x, %w, %b {data_format = "NCHW"} : (tensor<1x8x2x2xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<8x8x1x1xf32, #ge.layout<NCHW, FRACTAL_Z>>, tensor<8xf32>) -> tensor<1x8x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.add %c, %skip : (tensor<1x8x2x2xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x8x2x2xf32, #ge.layout<NCHW, NC1HWC0>>) -> tensor<1x8x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.relu %a : tensor<1x8x2x2xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x8x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %r : tensor<1x8x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// An elementwise group: one nest over its shape; the kept add is stored next
// to the sigmoid, from the same register.

// CHECK-LABEL: func.func @chain(
// CHECK:         affine.for %[[I:.*]] = 0 to 3 {
// CHECK-NEXT:      affine.for %[[J:.*]] = 0 to 17 {
// CHECK-NEXT:        %[[X:.*]] = affine.load %{{.*}}[%[[I]], %[[J]]]
// CHECK-NEXT:        %[[B:.*]] = affine.load %{{.*}}[%[[J]]]
// CHECK-NEXT:        %[[T:.*]] = arith.addf %[[X]], %[[B]] : f32
// CHECK:             %[[S:.*]] = arith.divf
// CHECK-NEXT:        affine.store %[[T]], %[[KEPT:.*]][%[[I]], %[[J]]]
// CHECK-NEXT:        affine.store %[[S]], %[[OUT:.*]][%[[I]], %[[J]]]
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[OUT]], %[[KEPT]]
ge.graph @chain {
  %x = ge.data {index = 0 : i64} : tensor<3x17xf32>
  %b = ge.data {index = 1 : i64} : tensor<17xf32>
  %t = ge.add %x, %b : (tensor<3x17xf32>, tensor<17xf32>) -> tensor<3x17xf32>
  %r = ge.sigmoid %t : tensor<3x17xf32> -> tensor<3x17xf32>
  ge.netoutput %r, %t : tensor<3x17xf32>, tensor<3x17xf32>
}

// -----

// 9 output channels (C0 = 8): a nest for the full block and one for the
// tail, each with an accumulator of its own (no other nest touches it, so
// the JIT keeps it in registers). Neither is zero-filled; the result zeroes
// only its padding (lanes 1..7 of block 1).

// CHECK-LABEL: func.func @conv_relu_per_nest_accumulators(
// CHECK:         %[[Y:.*]] = memref.alloc() : memref<1x2x2x2x8xf32>
// CHECK:         affine.store %{{.*}}, %[[Y]][0, 1, %{{.*}}, %{{.*}}, %{{.*}} + 1]
// CHECK-NEXT:    }
// CHECK-NEXT:    }
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[ACC1:.*]] = memref.alloc() : memref<1x2x2x2x8xf32>
// CHECK-NEXT:    affine.for
// CHECK:           affine.store %{{.*}}, %[[ACC1]][0, 0, %{{.*}}, %{{.*}}, %{{.*}}]
// CHECK-NOT:     affine.store %{{.*}}, %[[ACC1]][0, 1,
// CHECK:         %[[ACC2:.*]] = memref.alloc() : memref<1x2x2x2x8xf32>
// CHECK-NEXT:    affine.for
// CHECK-NOT:     %[[ACC1]]
// CHECK:           affine.store %{{.*}}, %[[ACC2]][0, 1, %{{.*}}, %{{.*}}, 0]
// CHECK:         func.return
// CHECK-SAME:    %[[Y]]
ge.graph @conv_relu_per_nest_accumulators {
  %x = ge.data {index = 0 : i64} : tensor<1x8x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  %w = ge.const {value = #ge.external<"w">} : tensor<9x8x1x1xf32, #ge.layout<NCHW, FRACTAL_Z>>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x8x2x2xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<9x8x1x1xf32, #ge.layout<NCHW, FRACTAL_Z>>) -> tensor<1x9x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.relu %c : tensor<1x9x2x2xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x9x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %r : tensor<1x9x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
}
