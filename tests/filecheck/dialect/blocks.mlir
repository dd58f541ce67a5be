// RUN: ge-opt %s | ge-opt | filecheck %s
// RUN: ge-opt %s --print-op-generic | ge-opt | filecheck %s

// Col2Im: [N, C * prod(block), L] -> [N, C, *image_shape].

// CHECK-LABEL: ge.graph @col2im
// CHECK:         [[Y:%.*]] = ge.col2im {{.*}}image_shape = array<i64: 5, 6>{{.*}} : tensor<2x12x9xf32> -> tensor<2x3x5x6xf32>
// CHECK-NEXT:    ge.netoutput [[Y]] :
ge.graph @col2im {
  %x = ge.data {index = 0 : i64} : tensor<2x12x9xf32>
  %y = ge.col2im %x {image_shape = array<i64: 5, 6>, block_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 1, 1, 0>} : tensor<2x12x9xf32> -> tensor<2x3x5x6xf32>
  ge.netoutput %y : tensor<2x3x5x6xf32>
}
