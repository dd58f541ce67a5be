// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Invalid subgraphs of ge.if / ge.case / ge.while / ge.partitioned_call.

ge.graph @subgraph_data_without_parent_index {
  %c = ge.data {index = 0 : i64} : tensor<i1>
  %x = ge.data {index = 1 : i64} : tensor<2xf32>
  %r = ge.if %c, %x : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32> then {
    // CHECK: {{.*}}invalid-control-flow.mlir:[[# @LINE + 1]]:5: error: 'ge.data' op 'ge.data' inside a 'ge.if' subgraph needs 'parent_index'
    %a = ge.data {index = 1 : i64} : tensor<2xf32>
    ge.netoutput %a : tensor<2xf32>
  } else {
    %a = ge.data {parent_index = 1 : i64} : tensor<2xf32>
    ge.netoutput %a : tensor<2xf32>
  }
  ge.netoutput %r : tensor<2xf32>
}

// -----

ge.graph @parent_index_out_of_range {
  %x = ge.data {index = 0 : i64} : tensor<2xf32>
  %r = ge.partitioned_call %x : (tensor<2xf32>) -> tensor<2xf32> {
    // CHECK: {{.*}}invalid-control-flow.mlir:[[# @LINE + 1]]:5: error: 'ge.data' op parent_index 1 is out of range: 'ge.partitioned_call' has 1 operands
    %a = ge.data {parent_index = 1 : i64} : tensor<2xf32>
    ge.netoutput %a : tensor<2xf32>
  }
  ge.netoutput %r : tensor<2xf32>
}

// -----

ge.graph @negative_parent_index {
  %i = ge.data {index = 0 : i64} : tensor<i32>
  %x = ge.data {index = 1 : i64} : tensor<2xf32>
  %r = ge.case %i, %x : (tensor<i32>, tensor<2xf32>) -> tensor<2xf32> {
    // CHECK: {{.*}}invalid-control-flow.mlir:[[# @LINE + 1]]:5: error: 'ge.data' op parent_index -1 is out of range: 'ge.case' has 2 operands
    %a = ge.data {parent_index = -1 : i64} : tensor<2xf32>
    ge.netoutput %a : tensor<2xf32>
  }
  ge.netoutput %r : tensor<2xf32>
}

// -----

ge.graph @parent_type_mismatch {
  %c = ge.data {index = 0 : i64} : tensor<i1>
  %x = ge.data {index = 1 : i64} : tensor<2xf32>
  %r = ge.if %c, %x : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32> then {
    %a = ge.data {parent_index = 1 : i64} : tensor<2xf32>
    ge.netoutput %a : tensor<2xf32>
  } else {
    // CHECK: {{.*}}invalid-control-flow.mlir:[[# @LINE + 1]]:5: error: 'ge.data' op type tensor<3xf32> does not match parent operand #1 of type tensor<2xf32>
    %a = ge.data {parent_index = 1 : i64} : tensor<3xf32>
    %b = ge.reshape %a : tensor<3xf32> -> tensor<3xf32>
    %k = ge.const {value = dense<0.0> : tensor<2xf32>} : tensor<2xf32>
    ge.netoutput %k : tensor<2xf32>
  }
  ge.netoutput %r : tensor<2xf32>
}

// -----

ge.graph @parent_dtype_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<i32>
  %r = ge.while %x : (tensor<i32>) -> tensor<i32> cond {
    // CHECK: {{.*}}invalid-control-flow.mlir:[[# @LINE + 1]]:5: error: 'ge.data' op type tensor<i64> does not match parent operand #0 of type tensor<i32>
    %a = ge.data {parent_index = 0 : i64} : tensor<i64>
    %b = ge.cast %a {dst_type = i1} : tensor<i64> -> tensor<i1>
    ge.netoutput %b : tensor<i1>
  } body {
    %a = ge.data {parent_index = 0 : i64} : tensor<i32>
    ge.netoutput %a : tensor<i32>
  }
  ge.netoutput %r : tensor<i32>
}

// -----

ge.graph @if_then_output_count {
  %c = ge.data {index = 0 : i64} : tensor<i1>
  %x = ge.data {index = 1 : i64} : tensor<2xf32>
  // CHECK: {{.*}}invalid-control-flow.mlir:[[# @LINE + 1]]:3: error: 'ge.if' op then branch returns 2 values, expected 1
  %r = ge.if %c, %x : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32> then {
    %a = ge.data {parent_index = 1 : i64} : tensor<2xf32>
    ge.netoutput %a, %a : tensor<2xf32>, tensor<2xf32>
  } else {
    %a = ge.data {parent_index = 1 : i64} : tensor<2xf32>
    ge.netoutput %a : tensor<2xf32>
  }
  ge.netoutput %r : tensor<2xf32>
}

// -----

ge.graph @if_else_output_type {
  %c = ge.data {index = 0 : i64} : tensor<i1>
  %x = ge.data {index = 1 : i64} : tensor<2xf32>
  // CHECK: {{.*}}invalid-control-flow.mlir:[[# @LINE + 1]]:3: error: 'ge.if' op else branch output #0 has type tensor<2xf16>, parent result has tensor<2xf32>
  %r = ge.if %c, %x : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32> then {
    %a = ge.data {parent_index = 1 : i64} : tensor<2xf32>
    ge.netoutput %a : tensor<2xf32>
  } else {
    %a = ge.data {parent_index = 1 : i64} : tensor<2xf32>
    %h = ge.cast %a {dst_type = f16} : tensor<2xf32> -> tensor<2xf16>
    ge.netoutput %h : tensor<2xf16>
  }
  ge.netoutput %r : tensor<2xf32>
}

// -----

ge.graph @if_branch_without_netoutput {
  %c = ge.data {index = 0 : i64} : tensor<i1>
  // CHECK: {{.*}}invalid-control-flow.mlir:[[# @LINE + 1]]:3: error: 'ge.if' op graph region must end with 'ge.netoutput'
  ge.if %c : (tensor<i1>) -> () then {
    ge.netoutput
  } else {
    %k = ge.const {value = dense<0.0> : tensor<2xf32>} : tensor<2xf32>
  }
  ge.netoutput
}

// -----

ge.graph @case_without_branches {
  %i = ge.data {index = 0 : i64} : tensor<i32>
  // CHECK: {{.*}}invalid-control-flow.mlir:[[# @LINE + 1]]:3: error: 'ge.case' op 'ge.case' needs at least one branch
  ge.case %i : (tensor<i32>) -> ()
  ge.netoutput
}

// -----

ge.graph @case_branch_output_count {
  %i = ge.data {index = 0 : i64} : tensor<i32>
  %x = ge.data {index = 1 : i64} : tensor<2xf32>
  // CHECK: {{.*}}invalid-control-flow.mlir:[[# @LINE + 1]]:3: error: 'ge.case' op branch #1 returns 0 values, expected 1
  %r = ge.case %i, %x : (tensor<i32>, tensor<2xf32>) -> tensor<2xf32> {
    %a = ge.data {parent_index = 1 : i64} : tensor<2xf32>
    ge.netoutput %a : tensor<2xf32>
  }, {
    ge.netoutput
  }
  ge.netoutput %r : tensor<2xf32>
}

// -----

ge.graph @case_branch_output_shape {
  %i = ge.data {index = 0 : i64} : tensor<i32>
  %x = ge.data {index = 1 : i64} : tensor<2xf32>
  // CHECK: {{.*}}invalid-control-flow.mlir:[[# @LINE + 1]]:3: error: 'ge.case' op branch #0 output #0 has type tensor<1x2xf32>, parent result has tensor<2xf32>
  %r = ge.case %i, %x : (tensor<i32>, tensor<2xf32>) -> tensor<2xf32> {
    %a = ge.data {parent_index = 1 : i64} : tensor<2xf32>
    %b = ge.expand_dims %a {axis = 0 : i64} : tensor<2xf32> -> tensor<1x2xf32>
    ge.netoutput %b : tensor<1x2xf32>
  }
  ge.netoutput %r : tensor<2xf32>
}

// -----

ge.graph @while_inputs_vs_results {
  %x = ge.data {index = 0 : i64} : tensor<i32>
  // CHECK: {{.*}}invalid-control-flow.mlir:[[# @LINE + 1]]:3: error: 'ge.while' op 'ge.while' has 1 loop inputs but 2 results
  %r:2 = ge.while %x : (tensor<i32>) -> (tensor<i32>, tensor<i32>) cond {
    %a = ge.data {parent_index = 0 : i64} : tensor<i32>
    %b = ge.cast %a {dst_type = i1} : tensor<i32> -> tensor<i1>
    ge.netoutput %b : tensor<i1>
  } body {
    %a = ge.data {parent_index = 0 : i64} : tensor<i32>
    ge.netoutput %a, %a : tensor<i32>, tensor<i32>
  }
  ge.netoutput %r#0 : tensor<i32>
}

// -----

ge.graph @while_cond_two_values {
  %x = ge.data {index = 0 : i64} : tensor<i32>
  // CHECK: {{.*}}invalid-control-flow.mlir:[[# @LINE + 1]]:3: error: 'ge.while' op cond subgraph must return exactly one value
  %r = ge.while %x : (tensor<i32>) -> tensor<i32> cond {
    %a = ge.data {parent_index = 0 : i64} : tensor<i32>
    %b = ge.cast %a {dst_type = i1} : tensor<i32> -> tensor<i1>
    ge.netoutput %b, %b : tensor<i1>, tensor<i1>
  } body {
    %a = ge.data {parent_index = 0 : i64} : tensor<i32>
    ge.netoutput %a : tensor<i32>
  }
  ge.netoutput %r : tensor<i32>
}

// -----

ge.graph @while_body_output_type {
  %x = ge.data {index = 0 : i64} : tensor<i32>
  // CHECK: {{.*}}invalid-control-flow.mlir:[[# @LINE + 1]]:3: error: 'ge.while' op body output #0 has type tensor<i1>, parent result has tensor<i32>
  %r = ge.while %x : (tensor<i32>) -> tensor<i32> cond {
    %a = ge.data {parent_index = 0 : i64} : tensor<i32>
    %b = ge.cast %a {dst_type = i1} : tensor<i32> -> tensor<i1>
    ge.netoutput %b : tensor<i1>
  } body {
    %a = ge.data {parent_index = 0 : i64} : tensor<i32>
    %b = ge.cast %a {dst_type = i1} : tensor<i32> -> tensor<i1>
    ge.netoutput %b : tensor<i1>
  }
  ge.netoutput %r : tensor<i32>
}

// -----

ge.graph @while_body_output_count {
  %x = ge.data {index = 0 : i64} : tensor<i32>
  // CHECK: {{.*}}invalid-control-flow.mlir:[[# @LINE + 1]]:3: error: 'ge.while' op body returns 0 values, expected 1
  %r = ge.while %x : (tensor<i32>) -> tensor<i32> cond {
    %a = ge.data {parent_index = 0 : i64} : tensor<i32>
    %b = ge.cast %a {dst_type = i1} : tensor<i32> -> tensor<i1>
    ge.netoutput %b : tensor<i1>
  } body {
    ge.netoutput
  }
  ge.netoutput %r : tensor<i32>
}

// -----

ge.graph @partitioned_call_output_type {
  %x = ge.data {index = 0 : i64} : tensor<2xf32>
  // CHECK: {{.*}}invalid-control-flow.mlir:[[# @LINE + 1]]:3: error: 'ge.partitioned_call' op subgraph output #0 has type tensor<2xi32>, parent result has tensor<2xf32>
  %r = ge.partitioned_call %x {engine = "AIcpuEngine"} : (tensor<2xf32>) -> tensor<2xf32> {
    %a = ge.data {parent_index = 0 : i64} : tensor<2xf32>
    %b = ge.cast %a {dst_type = i32} : tensor<2xf32> -> tensor<2xi32>
    ge.netoutput %b : tensor<2xi32>
  }
  ge.netoutput %r : tensor<2xf32>
}

// -----

ge.graph @subgraph_block_arguments {
  %x = ge.data {index = 0 : i64} : tensor<2xf32>
  // CHECK: {{.*}}invalid-control-flow.mlir:[[# @LINE + 1]]:3: error: 'ge.partitioned_call' op graph block takes no arguments (inputs are 'ge.data' ops)
  %r = ge.partitioned_call %x : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>):
    ge.netoutput %a : tensor<2xf32>
  }
  ge.netoutput %r : tensor<2xf32>
}

// -----

ge.graph @subgraph_uses_parent_value {
  %x = ge.data {index = 0 : i64} : tensor<2xf32>
  // CHECK: {{.*}}invalid-control-flow.mlir:[[# @LINE + 1]]:3: error: 'ge.partitioned_call' op Operation using value defined out of its IsolatedFromAbove parent
  %r = ge.partitioned_call %x : (tensor<2xf32>) -> tensor<2xf32> {
    %y = ge.relu %x : tensor<2xf32> -> tensor<2xf32>
    ge.netoutput %y : tensor<2xf32>
  }
  ge.netoutput %r : tensor<2xf32>
}

// -----

// A loop input may be more static than its loop variable, not less.
ge.graph @loop_input_less_static_than_its_variable {
  %x = ge.data {index = 0 : i64} : tensor<?x2xf32>
  // CHECK: {{.*}}invalid-control-flow.mlir:[[# @LINE + 1]]:3: error: 'ge.while' op loop input #0 of type tensor<?x2xf32> does not fit its loop variable of type tensor<3x2xf32>
  %r = ge.while %x : (tensor<?x2xf32>) -> tensor<3x2xf32> cond {
    %a = ge.data {parent_index = 0 : i64} : tensor<3x2xf32>
    %t = ge.const {value = dense<false> : tensor<i1>} : tensor<i1>
    ge.netoutput %t : tensor<i1>
  } body {
    %b = ge.data {parent_index = 0 : i64} : tensor<3x2xf32>
    ge.netoutput %b : tensor<3x2xf32>
  }
  ge.netoutput %r : tensor<3x2xf32>
}

// -----

// The subgraph data of a ge.while mirror its loop variable (its result).
ge.graph @while_data_mirrors_the_loop_variable {
  %x = ge.data {index = 0 : i64} : tensor<0x2xf32>
  %r = ge.while %x : (tensor<0x2xf32>) -> tensor<?x2xf32> cond {
    // CHECK: {{.*}}invalid-control-flow.mlir:[[# @LINE + 1]]:5: error: 'ge.data' op type tensor<0x2xf32> does not match parent operand #0 of type tensor<?x2xf32>
    %a = ge.data {parent_index = 0 : i64} : tensor<0x2xf32>
    %t = ge.const {value = dense<false> : tensor<i1>} : tensor<i1>
    ge.netoutput %t : tensor<i1>
  } body {
    %b = ge.data {parent_index = 0 : i64} : tensor<?x2xf32>
    ge.netoutput %b : tensor<?x2xf32>
  }
  ge.netoutput %r : tensor<?x2xf32>
}
