// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Invalid fused groups.

ge.graph @fused_output_count {
  %x = ge.data {index = 0 : i64} : tensor<2xf32>
  // CHECK: {{.*}}invalid-fused.mlir:[[# @LINE + 1]]:3: error: 'ge.fused' op fused body returns 2 values, expected 1
  %r = ge.fused %x {fusion_rule = "EltwiseFusion"} : (tensor<2xf32>) -> tensor<2xf32> {
    %a = ge.data {parent_index = 0 : i64} : tensor<2xf32>
    %b = ge.relu %a : tensor<2xf32> -> tensor<2xf32>
    ge.netoutput %a, %b : tensor<2xf32>, tensor<2xf32>
  }
  ge.netoutput %r : tensor<2xf32>
}

// -----

ge.graph @fused_without_computation {
  %x = ge.data {index = 0 : i64} : tensor<2xf32>
  // CHECK: {{.*}}invalid-fused.mlir:[[# @LINE + 1]]:3: error: 'ge.fused' op fused body has no op to compute
  %r = ge.fused %x {fusion_rule = "EltwiseFusion"} : (tensor<2xf32>) -> tensor<2xf32> {
    %a = ge.data {parent_index = 0 : i64} : tensor<2xf32>
    ge.netoutput %a : tensor<2xf32>
  }
  ge.netoutput %r : tensor<2xf32>
}

// -----

ge.graph @fused_with_constant {
  %x = ge.data {index = 0 : i64} : tensor<2xf32>
  // CHECK: {{.*}}invalid-fused.mlir:[[# @LINE + 1]]:3: error: 'ge.fused' op fused body cannot hold 'ge.const' (only compute ops; constants are operands)
  %r = ge.fused %x {fusion_rule = "EltwiseFusion"} : (tensor<2xf32>) -> tensor<2xf32> {
    %a = ge.data {parent_index = 0 : i64} : tensor<2xf32>
    %c = ge.const {value = dense<1.0> : tensor<2xf32>} : tensor<2xf32>
    %b = ge.add %a, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    ge.netoutput %b : tensor<2xf32>
  }
  ge.netoutput %r : tensor<2xf32>
}

// -----

ge.graph @fused_without_rule {
  %x = ge.data {index = 0 : i64} : tensor<2xf32>
  // CHECK: {{.*}}invalid-fused.mlir:[[# @LINE + 1]]:3: error: 'ge.fused' op attribute 'fusion_rule' expected in operation 'ge.fused'
  %r = ge.fused %x : (tensor<2xf32>) -> tensor<2xf32> {
    %a = ge.data {parent_index = 0 : i64} : tensor<2xf32>
    %b = ge.relu %a : tensor<2xf32> -> tensor<2xf32>
    ge.netoutput %b : tensor<2xf32>
  }
  ge.netoutput %r : tensor<2xf32>
}
