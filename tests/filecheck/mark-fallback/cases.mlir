// RUN: ge-opt %s --split-input-file --mark-fallback | filecheck %s
// RUN: ge-opt %s --split-input-file --mark-fallback -o /dev/null 2>&1 | filecheck %s --check-prefix=LOG
// RUN: ge-opt %s --split-input-file --mark-fallback --log=warning -o /dev/null 2>&1 | filecheck %s --check-prefix=QUIET --allow-empty
// RUN: ge-opt %s --split-input-file --opinfo %S/relu_fallback.json --mark-fallback 2>/dev/null | filecheck %s --check-prefix=USER
// RUN: ge-opt %s --split-input-file --opinfo %S/relu_fallback.json --mark-fallback -o /dev/null 2>&1 | filecheck %s --check-prefix=USERLOG

// The builtin op-information library enables fallback for ge.softmax
// (support_aclnn), not for ge.broadcast_to (a single-op JIT kernel for the
// shape it meets at run time). The log line is GE's, one per marked op, named
// by the node's `name`, else <op type>_<n>.

// LOG:      probs, setting fallback attribute support_aclnn (sunk with the graph while shapes are static; a host single-op call only under dynamic shapes)
// LOG-NEXT: softmax_1, setting fallback attribute support_aclnn (sunk
// LOG-NEXT: inner, setting fallback attribute
// LOG-NOT:  setting fallback attribute
// QUIET-NOT: setting fallback attribute

// With the user file, relu (mode not given: support_aclnn) and tanh
// (aclnn_only) are marked too.
// USERLOG:      relu_0, setting fallback attribute
// USERLOG-NEXT: probs, setting fallback attribute
// USERLOG:      inner, setting fallback attribute
// USERLOG-NEXT: tanh_0, setting fallback attribute

// CHECK-LABEL: ge.graph @modes
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %i = ge.data
// CHECK-NEXT:    %r = ge.relu %x : tensor<?x10xf32> -> tensor<?x10xf32>
// CHECK-NEXT:    %s = ge.softmax %r {name = "probs", _fallback = "support_aclnn"}
// CHECK-NEXT:    %t = ge.softmax %s {_fallback = "support_aclnn"}
// CHECK-NEXT:    %g = ge.broadcast_to %t, %i {name = "expand"} :
// USER-LABEL:  ge.graph @modes
// USER:          %r = ge.relu %x {_fallback = "support_aclnn"}
ge.graph @modes {
  %x = ge.data {index = 0 : i64} : tensor<?x10xf32>
  %i = ge.data {index = 1 : i64} : tensor<2xi64>
  %r = ge.relu %x : tensor<?x10xf32> -> tensor<?x10xf32>
  %s = ge.softmax %r {name = "probs"} : tensor<?x10xf32> -> tensor<?x10xf32>
  %t = ge.softmax %s : tensor<?x10xf32> -> tensor<?x10xf32>
  %g = ge.broadcast_to %t, %i {name = "expand"} : (tensor<?x10xf32>, tensor<2xi64>) -> tensor<?x10xf32>
  ge.netoutput %g : tensor<?x10xf32>
}

// -----

// Ops inside subgraphs are marked too; an op that already carries
// `_fallback` keeps its mode (nothing is set, nothing logged).
// CHECK-LABEL: ge.graph @subgraphs
// CHECK:           ge.softmax %a {name = "inner", _fallback = "support_aclnn"}
// CHECK:         ge.softmax %y {name = "kept", _fallback = "aclnn_only"}
// CHECK:         ge.tanh %k : tensor<2x3xf32> -> tensor<2x3xf32>
// USER-LABEL:  ge.graph @subgraphs
// USER:          ge.tanh %k {_fallback = "aclnn_only"}
ge.graph @subgraphs {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %y = ge.partitioned_call %x {engine = "AICore"} : (tensor<2x3xf32>) -> tensor<2x3xf32> {
    %a = ge.data {parent_index = 0 : i64} : tensor<2x3xf32>
    %b = ge.softmax %a {name = "inner"} : tensor<2x3xf32> -> tensor<2x3xf32>
    ge.netoutput %b : tensor<2x3xf32>
  }
  %k = ge.softmax %y {name = "kept", _fallback = "aclnn_only"} : tensor<2x3xf32> -> tensor<2x3xf32>
  %h = ge.tanh %k : tensor<2x3xf32> -> tensor<2x3xf32>
  ge.netoutput %h : tensor<2x3xf32>
}
