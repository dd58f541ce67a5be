// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Invalid graph structure, inputs, constants, variables and outputs.

// CHECK: {{.*}}invalid-graph.mlir:[[# @LINE + 1]]:1: error: 'ge.graph' op graph region must end with 'ge.netoutput'
ge.graph @no_netoutput {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
}

// -----

// CHECK: {{.*}}invalid-graph.mlir:[[# @LINE + 1]]:1: error: 'ge.graph' op graph block takes no arguments (inputs are 'ge.data' ops)
ge.graph @block_arguments {
^bb0(%arg0: tensor<f32>):
  ge.netoutput %arg0 : tensor<f32>
}

// -----

// CHECK: {{.*}}invalid-graph.mlir:[[# @LINE + 1]]:1: error: 'ge.graph' op Region 'body' at position 0 expected a single block, but got 0 blocks
ge.graph @empty_region {
}

// -----

// CHECK: {{.*}}invalid-graph.mlir:[[# @LINE + 1]]:10: error: expect symbol name
ge.graph "not_a_symbol" {
  ge.netoutput
}

// -----

ge.graph @data_without_index {
  // CHECK: {{.*}}invalid-graph.mlir:[[# @LINE + 1]]:3: error: 'ge.data' op graph input needs an 'index' attribute
  %x = ge.data : tensor<1x3x8x8xf32>
  ge.netoutput %x : tensor<1x3x8x8xf32>
}

// -----

ge.graph @data_with_only_parent_index {
  // CHECK: {{.*}}invalid-graph.mlir:[[# @LINE + 1]]:3: error: 'ge.data' op graph input needs an 'index' attribute
  %x = ge.data {parent_index = 0 : i64} : tensor<2xf32>
  ge.netoutput %x : tensor<2xf32>
}

// -----

ge.graph @storage_shape_without_storage_format {
  // CHECK: {{.*}}invalid-graph.mlir:[[# @LINE + 1]]:3: error: 'ge.data' op 'storage_shape' requires 'storage_format'
  %x = ge.data {index = 0 : i64, storage_shape = array<i64: 1, 1, 8, 8, 16>} : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
  ge.netoutput %x : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
}

// -----

ge.graph @index_not_an_integer {
  // CHECK: {{.*}}invalid-graph.mlir:[[# @LINE + 1]]:3: error: 'ge.data' op "zero" should be of base attribute integer
  %x = ge.data {index = "zero"} : tensor<2xf32>
  ge.netoutput %x : tensor<2xf32>
}

// -----

ge.graph @data_result_not_a_tensor {
  // CHECK: {{.*}}invalid-graph.mlir:[[# @LINE + 1]]:3: error: 'ge.data' op f32 should be of base attribute tensor
  %x = ge.data {index = 0 : i64} : f32
  ge.netoutput
}

// -----

// CHECK: {{.*}}invalid-graph.mlir:[[# @LINE + 1]]:1: error: 'ge.data' op 'ge.data' inside a 'builtin.module' subgraph needs 'parent_index'
%x = ge.data {index = 0 : i64} : tensor<2xf32>

// -----

ge.graph @const_dtype_mismatch {
  // CHECK: {{.*}}invalid-graph.mlir:[[# @LINE + 1]]:3: error: 'ge.const' op value dtype f32 does not match result dtype f16
  %c = ge.const {value = dense<1.0> : tensor<2xf32>} : tensor<2xf16>
  ge.netoutput %c : tensor<2xf16>
}

// -----

ge.graph @const_shape_mismatch {
  // CHECK: {{.*}}invalid-graph.mlir:[[# @LINE + 1]]:3: error: 'ge.const' op value shape [3] does not match the result's storage shape [2]
  %c = ge.const {value = dense<1.0> : tensor<3xf32>} : tensor<2xf32>
  ge.netoutput %c : tensor<2xf32>
}

// -----

// The value of a constant is stored in its storage layout, not its origin one
// (only a splat may be written in the origin shape).
ge.graph @const_value_in_origin_shape {
  // CHECK: {{.*}}invalid-graph.mlir:[[# @LINE + 1]]:3: error: 'ge.const' op value shape [2, 1, 1, 1] does not match the result's storage shape [1, 1, 16, 16]
  %c = ge.const {value = dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf16>} : tensor<2x1x1x1xf16, #ge.layout<NCHW, FRACTAL_Z>>
  ge.netoutput %c : tensor<2x1x1x1xf16, #ge.layout<NCHW, FRACTAL_Z>>
}

// -----

ge.graph @const_value_vs_explicit_storage_shape {
  // CHECK: {{.*}}invalid-graph.mlir:[[# @LINE + 1]]:3: error: 'ge.const' op value shape [1, 1, 1, 1, 8] does not match the result's storage shape [1, 1, 1, 1, 16]
  %c = ge.const {value = dense<0.0> : tensor<1x1x1x1x8xf16>} : tensor<4xf16, #ge.layout<NCHW, NC1HWC0, storage_shape = [1, 1, 1, 1, 16]>>
  ge.netoutput %c : tensor<4xf16, #ge.layout<NCHW, NC1HWC0, storage_shape = [1, 1, 1, 1, 16]>>
}

// -----

ge.graph @const_without_value {
  // CHECK: {{.*}}invalid-graph.mlir:[[# @LINE + 1]]:3: error: 'ge.const' op attribute 'value' expected in operation 'ge.const'
  %c = ge.const : tensor<2xf32>
  ge.netoutput %c : tensor<2xf32>
}

// -----

ge.graph @const_value_not_dense {
  // CHECK: {{.*}}invalid-graph.mlir:[[# @LINE + 1]]:3: error: 'ge.const' op Unexpected attribute "abc"
  %c = ge.const {value = "abc"} : tensor<2xf32>
  ge.netoutput %c : tensor<2xf32>
}

// -----

ge.graph @variable_without_name {
  // CHECK: {{.*}}invalid-graph.mlir:[[# @LINE + 1]]:3: error: 'ge.variable' op attribute 'name' expected in operation 'ge.variable'
  %v = ge.variable : tensor<2xf32>
  ge.netoutput %v : tensor<2xf32>
}

// -----

ge.graph @netoutput_storage_formats_length {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-graph.mlir:[[# @LINE + 1]]:3: error: 'ge.netoutput' op 'storage_formats' has 2 entries for 1 outputs
  ge.netoutput %x : tensor<2x3xf32> {storage_formats = [#ge.format<ND>, #ge.format<NC1HWC0>]}
}

// -----

ge.graph @netoutput_storage_formats_not_formats {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-graph.mlir:[[# @LINE + 1]]:3: error: 'ge.netoutput' op "NC1HWC0" should be of base attribute ge.format
  ge.netoutput %x : tensor<2x3xf32> {storage_formats = ["NC1HWC0"]}
}

// -----

// CHECK: {{.*}}invalid-graph.mlir:[[# @LINE + 1]]:1: error: 'ge.graph' op graph region must end with 'ge.netoutput'
ge.graph @netoutput_not_last {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  ge.netoutput %x : tensor<2x3xf32>
  %y = ge.relu %x : tensor<2x3xf32> -> tensor<2x3xf32>
}

// -----

ge.graph @operand_type_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-graph.mlir:[[# @LINE + 1]]:16: error: operand is used with type tensor<2x3xf16>, but has been previously used or defined with type tensor<2x3xf32>
  ge.netoutput %x : tensor<2x3xf16>
}

// -----

ge.graph @unknown_op {
  // CHECK: {{.*}}invalid-graph.mlir:[[# @LINE + 1]]:22: error: Operation ge.frobnicate is not registered
  %x = ge.frobnicate : tensor<2xf32>
  ge.netoutput
}

// -----

ge.graph @missing_required_attribute {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  // CHECK: {{.*}}invalid-graph.mlir:[[# @LINE + 1]]:3: error: 'ge.max_pool' op attribute 'ksize' expected in operation 'ge.max_pool'
  %y = ge.max_pool %x {data_format = "NCHW"} : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xf32>
  ge.netoutput %y : tensor<1x3x8x8xf32>
}

// -----

ge.graph @wrong_attribute_type {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  // CHECK: {{.*}}invalid-graph.mlir:[[# @LINE + 1]]:3: error: 'ge.softmax' op 1.000000e+00 : f32 should be of base attribute integer
  %y = ge.softmax %x {axis = 1.0 : f32} : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xf32>
  ge.netoutput %y : tensor<1x3x8x8xf32>
}
