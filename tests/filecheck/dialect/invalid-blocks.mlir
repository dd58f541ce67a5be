// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Invalid Col2Im.

ge.graph @col2im_blocks_do_not_tile {
  %x = ge.data {index = 0 : i64} : tensor<2x12x8xf32>
  // CHECK: {{.*}}invalid-blocks.mlir:[[# @LINE + 1]]:3: error: 'ge.col2im' op 8 blocks do not tile the image (grid [3, 3])
  %y = ge.col2im %x {image_shape = array<i64: 5, 6>, block_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 1, 1, 0>} : tensor<2x12x8xf32> -> tensor<2x3x5x6xf32>
  ge.netoutput
}
