// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Invalid `ge.dynamic_attrs`: unknown or parameterless static ops, names
// that are not the op's parameters, results the static op cannot give.

ge.graph @no_such_op {
  %x = ge.data {index = 0 : i64} : tensor<3x4xf32>
  %a = ge.data {index = 1 : i64} : tensor<1xi64>
  // CHECK: {{.*}}invalid-dynamic-attrs.mlir:[[# @LINE + 1]]:3: error: 'ge.dynamic_attrs' op 'ge.nope' is not a ge op
  %y = ge.dynamic_attrs "ge.nope"(%x : tensor<3x4xf32>) [%a : tensor<1xi64>] {parameter_names = ["axes"], static_attrs = {}} -> tensor<?x?xf32>
  ge.netoutput
}

// -----

ge.graph @no_run_time_parameters {
  %x = ge.data {index = 0 : i64} : tensor<3x4xf32>
  %a = ge.data {index = 1 : i64} : tensor<1xi64>
  // CHECK: {{.*}}invalid-dynamic-attrs.mlir:[[# @LINE + 1]]:3: error: 'ge.dynamic_attrs' op 'ge.relu' takes no run-time parameters
  %y = ge.dynamic_attrs "ge.relu"(%x : tensor<3x4xf32>) [%a : tensor<1xi64>] {parameter_names = ["axes"], static_attrs = {}} -> tensor<3x4xf32>
  ge.netoutput
}

// -----

ge.graph @not_a_parameter {
  %x = ge.data {index = 0 : i64} : tensor<3x4xf32>
  %a = ge.data {index = 1 : i64} : tensor<1xi64>
  // CHECK: {{.*}}invalid-dynamic-attrs.mlir:[[# @LINE + 1]]:3: error: 'ge.dynamic_attrs' op 'pads' is not a run-time parameter of ge.reduce_sum (it takes axes)
  %y = ge.dynamic_attrs "ge.reduce_sum"(%x : tensor<3x4xf32>) [%a : tensor<1xi64>] {parameter_names = ["pads"], static_attrs = {}} -> tensor<?x?xf32>
  ge.netoutput
}

// -----

ge.graph @names_and_operands_differ {
  %x = ge.data {index = 0 : i64} : tensor<3x4xf32>
  %a = ge.data {index = 1 : i64} : tensor<1xi64>
  // CHECK: {{.*}}invalid-dynamic-attrs.mlir:[[# @LINE + 1]]:3: error: 'ge.dynamic_attrs' op 1 parameters but 2 parameter names
  %y = ge.dynamic_attrs "ge.slice"(%x : tensor<3x4xf32>) [%a : tensor<1xi64>] {parameter_names = ["starts", "ends"], static_attrs = {}} -> tensor<?x?xf32>
  ge.netoutput
}

// -----

ge.graph @both_static_and_operand {
  %x = ge.data {index = 0 : i64} : tensor<3x4xf32>
  %a = ge.data {index = 1 : i64} : tensor<1xi64>
  // CHECK: {{.*}}invalid-dynamic-attrs.mlir:[[# @LINE + 1]]:3: error: 'ge.dynamic_attrs' op 'axes' is both an operand and static
  %y = ge.dynamic_attrs "ge.reduce_sum"(%x : tensor<3x4xf32>) [%a : tensor<1xi64>] {parameter_names = ["axes"], static_attrs = {axes = array<i64: 0>}} -> tensor<?x?xf32>
  ge.netoutput
}

// -----

ge.graph @result_rank {
  %x = ge.data {index = 0 : i64} : tensor<3x4xf32>
  %a = ge.data {index = 1 : i64} : tensor<1xi64>
  // CHECK: {{.*}}invalid-dynamic-attrs.mlir:[[# @LINE + 1]]:3: error: 'ge.dynamic_attrs' op result #0 has shape [-1, -1], ge.reduce_sum gives [-1] here
  %y = ge.dynamic_attrs "ge.reduce_sum"(%x : tensor<3x4xf32>) [%a : tensor<1xi64>] {parameter_names = ["axes"], static_attrs = {keep_dims = false}} -> tensor<?x?xf32>
  ge.netoutput
}

// -----

ge.graph @result_count {
  %x = ge.data {index = 0 : i64} : tensor<3x4xf32>
  %s = ge.data {index = 1 : i64} : tensor<3xi64>
  // CHECK: {{.*}}invalid-dynamic-attrs.mlir:[[# @LINE + 1]]:3: error: 'ge.dynamic_attrs' op ge.split gives 3 results here, not 2
  %a, %b = ge.dynamic_attrs "ge.split"(%x : tensor<3x4xf32>) [%s : tensor<3xi64>] {parameter_names = ["split"], static_attrs = {axis = 0 : i64}} -> tensor<?x4xf32>, tensor<?x4xf32>
  ge.netoutput
}

// -----

ge.graph @matrix_parameter {
  %x = ge.data {index = 0 : i64} : tensor<3x4xf32>
  %a = ge.data {index = 1 : i64} : tensor<1x1xi64>
  // CHECK: {{.*}}invalid-dynamic-attrs.mlir:[[# @LINE + 1]]:3: error: 'ge.dynamic_attrs' op parameters are scalars or 1-D tensors
  %y = ge.dynamic_attrs "ge.reduce_sum"(%x : tensor<3x4xf32>) [%a : tensor<1x1xi64>] {parameter_names = ["axes"], static_attrs = {}} -> tensor<?x?xf32>
  ge.netoutput
}
