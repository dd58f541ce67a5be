// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Invalid grid samplings: one located line each.

ge.graph @grid_sample_opset16_mode_name {
  %x = ge.data {index = 0 : i64} : tensor<1x3x5x4xf32>
  %g = ge.data {index = 1 : i64} : tensor<1x2x3x2xf32>
  // CHECK: {{.*}}invalid-image.mlir:[[# @LINE + 1]]:3: error: 'ge.grid_sample' op 'mode' is 'bilinear', not one of linear, nearest, cubic
  %y = ge.grid_sample %x, %g {mode = "bilinear"} : (tensor<1x3x5x4xf32>, tensor<1x2x3x2xf32>) -> tensor<1x3x2x3xf32>
  ge.netoutput
}

// -----

ge.graph @grid_sample_grid_rank {
  %x = ge.data {index = 0 : i64} : tensor<1x3x5x4xf32>
  %g = ge.data {index = 1 : i64} : tensor<1x2x3x3xf32>
  // CHECK: {{.*}}invalid-image.mlir:[[# @LINE + 1]]:3: error: 'ge.grid_sample' op grid's last dim must be 2, got 3
  %y = ge.grid_sample %x, %g : (tensor<1x3x5x4xf32>, tensor<1x2x3x3xf32>) -> tensor<1x3x2x3xf32>
  ge.netoutput
}


// -----

ge.graph @roi_align_mode {
  %x = ge.data {index = 0 : i64} : tensor<1x3x9x7xf32>
  %r = ge.data {index = 1 : i64} : tensor<2x4xf32>
  %b = ge.data {index = 2 : i64} : tensor<2xi64>
  // CHECK: {{.*}}invalid-image.mlir:[[# @LINE + 1]]:3: error: 'ge.roi_align' op 'mode' is 'sum', not one of avg, max
  %y = ge.roi_align %x, %r, %b {mode = "sum"} : (tensor<1x3x9x7xf32>, tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x3x1x1xf32>
  ge.netoutput
}
