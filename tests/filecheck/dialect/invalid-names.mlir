// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Misspelled attribute names and undefined values are reported where they are
// written, naming what was written.

ge.graph @misspelled_required_attribute {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  %w = ge.data {index = 1 : i64} : tensor<4x3x3x3xf32>
  // CHECK: {{.*}}invalid-names.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op unknown attribute 'data_fromat' (did you mean 'data_format'?)
  %y = ge.conv2d %x, %w {data_fromat = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  ge.netoutput %y : tensor<1x4x6x6xf32>
}

// -----

// An optional attribute misspelled would otherwise be ignored silently.
ge.graph @misspelled_optional_attribute {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  %w = ge.data {index = 1 : i64} : tensor<4x3x3x3xf32>
  // CHECK: {{.*}}invalid-names.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op unknown attribute 'stride' (did you mean 'strides'?)
  %y = ge.conv2d %x, %w {data_format = "NCHW", stride = array<i64: 1, 1, 2, 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32>
  ge.netoutput %y : tensor<1x4x3x3xf32>
}

// -----

ge.graph @undefined_value {
  %r = ge.data {index = 0 : i64} : tensor<3xf32>
  // CHECK: {{.*}}invalid-names.mlir:[[# @LINE + 1]]:16: error: use of undefined value '%rr'
  %s = ge.relu %rr : tensor<3xf32> -> tensor<3xf32>
  %t = ge.relu %s : tensor<3xf32> -> tensor<3xf32>
  ge.netoutput %t : tensor<3xf32>
}

// -----

// The first undefined use in the file is the one reported, inside a subgraph too.
ge.graph @undefined_in_subgraph {
  %c = ge.data {index = 0 : i64} : tensor<i1>
  %x = ge.data {index = 1 : i64} : tensor<2x3xf32>
  %r = ge.if %c, %x : (tensor<i1>, tensor<2x3xf32>) -> tensor<2x3xf32> then {
    %a = ge.data {parent_index = 1 : i64} : tensor<2x3xf32>
    // CHECK: {{.*}}invalid-names.mlir:[[# @LINE + 1]]:21: error: use of undefined value '%q'
    %b = ge.add %a, %q : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ge.netoutput %b : tensor<2x3xf32>
  } else {
    %a = ge.data {parent_index = 1 : i64} : tensor<2x3xf32>
    ge.netoutput %p : tensor<2x3xf32>
  }
  ge.netoutput %r : tensor<2x3xf32>
}
