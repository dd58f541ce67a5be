// RUN: ge-opt %s --split-input-file --verify-diagnostics --infer-origin-format | filecheck %s

// RefRelations failures (ref_relation_unittes.cc): a subgraph input without
// parent_index, and a while whose loop inputs and results differ in number.
// GE fails building the relations; here the dialect's verifier rejects the
// graph before the pass runs, with a located one-line error.

// CHECK: ref_relation_errors.mlir:12:5: error: 'ge.data' op 'ge.data' inside a 'ge.if' subgraph needs 'parent_index'
ge.graph @no_parent_index {
  %c = ge.data {index = 0 : i64} : tensor<i1>
  %r = ge.if %c : (tensor<i1>) -> tensor<2xf32> then {
    %a = ge.data {index = 0 : i64} : tensor<2xf32>
    ge.netoutput %a : tensor<2xf32>
  } else {
    %b = ge.data {parent_index = 0 : i64} : tensor<2xf32>
    ge.netoutput %b : tensor<2xf32>
  }
  ge.netoutput %r : tensor<2xf32>
}

// -----

// CHECK: ref_relation_errors.mlir:26:3: error: 'ge.while' op 'ge.while' has 1 loop inputs but 2 results
ge.graph @no_while_size_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<2xf32>
  %r:2 = ge.while %x : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) cond {
    %c = ge.data {parent_index = 0 : i64} : tensor<2xf32>
    %s = ge.reduce_sum %c {keep_dims = false} : tensor<2xf32> -> tensor<f32>
    %b = ge.cast %s {dst_type = i1} : tensor<f32> -> tensor<i1>
    ge.netoutput %b : tensor<i1>
  } body {
    %d = ge.data {parent_index = 0 : i64} : tensor<2xf32>
    ge.netoutput %d, %d : tensor<2xf32>, tensor<2xf32>
  }
  ge.netoutput %r#0 : tensor<2xf32>
}
