// RUN: ge-opt %s -p dce,cse --split-input-file | filecheck %s

// xDSL's own dce and cse work on ge graphs: ge ops are `Pure`, graph inputs
// and outputs are not.

// CHECK-LABEL: ge.graph @dead_relu_and_twin_exps
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<2x17xf32>
// CHECK-NEXT:    [[A:%.*]] = ge.exp [[X]]
// CHECK-NEXT:    [[C:%.*]] = ge.add [[A]], [[A]]
// CHECK-NEXT:    ge.netoutput [[C]]
ge.graph @dead_relu_and_twin_exps {
  %x = ge.data {index = 0 : i64} : tensor<2x17xf32>
  %dead = ge.relu %x : tensor<2x17xf32> -> tensor<2x17xf32>
  %a = ge.exp %x : tensor<2x17xf32> -> tensor<2x17xf32>
  %b = ge.exp %x : tensor<2x17xf32> -> tensor<2x17xf32>
  %c = ge.add %a, %b : (tensor<2x17xf32>, tensor<2x17xf32>) -> tensor<2x17xf32>
  ge.netoutput %c : tensor<2x17xf32>
}

// -----

// CHECK-LABEL: ge.graph @dead_constants_go
// CHECK-NOT:     ge.const
// CHECK:         ge.netoutput
ge.graph @dead_constants_go {
  %x = ge.data {index = 0 : i64} : tensor<3xf32>
  %c = ge.const {value = dense<1.0> : tensor<3xf32>} : tensor<3xf32>
  %s = ge.mul %x, %c : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  ge.netoutput %x : tensor<3xf32>
}

// -----

// An unused graph input is part of the signature: dce keeps it.

// CHECK-LABEL: ge.graph @no_dce_of_unused_inputs
// CHECK:         ge.data {index = 0 : i64}
// CHECK-NEXT:    ge.data {index = 1 : i64}
ge.graph @no_dce_of_unused_inputs {
  %x = ge.data {index = 0 : i64} : tensor<3xf32>
  %unused = ge.data {index = 1 : i64} : tensor<3xf32>
  ge.netoutput %x : tensor<3xf32>
}

// -----

// Ops that differ in an attribute are not one op.

// CHECK-LABEL: ge.graph @no_cse_of_different_attributes
// CHECK-COUNT-2: ge.leaky_relu
ge.graph @no_cse_of_different_attributes {
  %x = ge.data {index = 0 : i64} : tensor<3xf32>
  %a = ge.leaky_relu %x {alpha = 0.1 : f32} : tensor<3xf32> -> tensor<3xf32>
  %b = ge.leaky_relu %x {alpha = 0.2 : f32} : tensor<3xf32> -> tensor<3xf32>
  %c = ge.add %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  ge.netoutput %c : tensor<3xf32>
}
