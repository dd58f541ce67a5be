// RUN: ge-opt %s --split-input-file -p merge-identical-ops | filecheck %s

// Two layers turn the one mask into the additive mask, each with its own
// Where and its own constants (other names): one of each is left, read by
// both layers.
// CHECK-LABEL: ge.graph @mask_per_layer
// CHECK-NEXT:    %m = ge.data
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %zero0 = ge.const {value = dense<0.000000e+00> : tensor<1xf32>, name = "layer0/zero"}
// CHECK-NEXT:    %low0 = ge.const {value = dense<-1.000000e+04> : tensor<1xf32>, name = "layer0/low"}
// CHECK-NEXT:    %w0 = ge.select %m, %zero0, %low0 {name = "layer0/Where"}
// CHECK-NEXT:    %a0 = ge.add %x, %w0
// CHECK-NEXT:    %a1 = ge.add %a0, %w0
// CHECK-NEXT:    ge.netoutput %a1
ge.graph @mask_per_layer {
  %m = ge.data {index = 0 : i64} : tensor<2x1x1x11xi1>
  %x = ge.data {index = 1 : i64} : tensor<2x1x11x11xf32>
  %zero0 = ge.const {value = dense<0.0> : tensor<1xf32>, name = "layer0/zero"} : tensor<1xf32>
  %low0 = ge.const {value = dense<-1.0e4> : tensor<1xf32>, name = "layer0/low"} : tensor<1xf32>
  %w0 = ge.select %m, %zero0, %low0 {name = "layer0/Where"} : (tensor<2x1x1x11xi1>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x1x1x11xf32>
  %a0 = ge.add %x, %w0 : (tensor<2x1x11x11xf32>, tensor<2x1x1x11xf32>) -> tensor<2x1x11x11xf32>
  %zero1 = ge.const {value = dense<0.0> : tensor<1xf32>, name = "layer1/zero"} : tensor<1xf32>
  %low1 = ge.const {value = dense<-1.0e4> : tensor<1xf32>, name = "layer1/low"} : tensor<1xf32>
  %w1 = ge.select %m, %zero1, %low1 {name = "layer1/Where"} : (tensor<2x1x1x11xi1>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x1x1x11xf32>
  %a1 = ge.add %a0, %w1 : (tensor<2x1x11x11xf32>, tensor<2x1x1x11xf32>) -> tensor<2x1x11x11xf32>
  ge.netoutput %a1 : tensor<2x1x11x11xf32>
}

// -----

// Other attributes, other operands, other values or other result types
// compute other things: nothing merges.
// CHECK-LABEL: ge.graph @no_merge_of_different_ops
// CHECK:         %s0 = ge.softmax %x {axis = 1 : i64}
// CHECK-NEXT:    %s1 = ge.softmax %x {axis = 0 : i64}
// CHECK-NEXT:    %r0 = ge.relu %x
// CHECK-NEXT:    %r1 = ge.relu %y
// CHECK-NEXT:    %c0 = ge.const {value = dense<1.000000e+00> : tensor<3xf32>}
// CHECK-NEXT:    %c1 = ge.const {value = dense<2.000000e+00> : tensor<3xf32>}
// CHECK-NEXT:    %k0 = ge.cast %x {dst_type = f16}
// CHECK-NEXT:    %k1 = ge.cast %x {dst_type = i32}
// CHECK-NEXT:    ge.netoutput %s0, %s1, %r0, %r1, %c0, %c1, %k0, %k1
ge.graph @no_merge_of_different_ops {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<2x3xf32>
  %s0 = ge.softmax %x {axis = 1 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
  %s1 = ge.softmax %x {axis = 0 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
  %r0 = ge.relu %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %r1 = ge.relu %y : tensor<2x3xf32> -> tensor<2x3xf32>
  %c0 = ge.const {value = dense<1.0> : tensor<3xf32>} : tensor<3xf32>
  %c1 = ge.const {value = dense<2.0> : tensor<3xf32>} : tensor<3xf32>
  %k0 = ge.cast %x {dst_type = f16} : tensor<2x3xf32> -> tensor<2x3xf16>
  %k1 = ge.cast %x {dst_type = i32} : tensor<2x3xf32> -> tensor<2x3xi32>
  ge.netoutput %s0, %s1, %r0, %r1, %c0, %c1, %k0, %k1 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf16>, tensor<2x3xi32>
}

// -----

// Two inputs are two values even at one shape (ge.data is not Pure), and
// ops in different subgraphs stay apart; inside one subgraph they merge.
// CHECK-LABEL: ge.graph @no_merge_of_inputs_or_across_blocks
// CHECK-NEXT:    %x = ge.data {index = 0 : i64}
// CHECK-NEXT:    %y = ge.data {index = 1 : i64}
// CHECK-NEXT:    %t = ge.tanh %x
// CHECK-NEXT:    %p = ge.partitioned_call %x
// CHECK-NEXT:      %a = ge.data {parent_index = 0 : i64}
// CHECK-NEXT:      %b = ge.tanh %a
// CHECK-NEXT:      %d = ge.add %b, %b
// CHECK-NEXT:      ge.netoutput %d
// CHECK:         ge.netoutput %t, %y, %p
ge.graph @no_merge_of_inputs_or_across_blocks {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<2x3xf32>
  %t = ge.tanh %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %p = ge.partitioned_call %x {engine = "AICore"} : (tensor<2x3xf32>) -> tensor<2x3xf32> {
    %a = ge.data {parent_index = 0 : i64} : tensor<2x3xf32>
    %b = ge.tanh %a : tensor<2x3xf32> -> tensor<2x3xf32>
    %c = ge.tanh %a {name = "again"} : tensor<2x3xf32> -> tensor<2x3xf32>
    %d = ge.add %b, %c : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ge.netoutput %d : tensor<2x3xf32>
  }
  ge.netoutput %t, %y, %p : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
