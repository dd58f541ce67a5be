// RUN: ge-opt %s --split-input-file --fuse-ops | filecheck %s

// EltwiseFusion: chains of elementwise ops among themselves.

// add -> relu -> mul by a constant, all ND; names joined.
// CHECK-LABEL: ge.graph @add_relu_scale
// CHECK:         %[[Y:.*]] = ge.fused %a, %b, %s {fusion_rule = "EltwiseFusion", name = "add+relu+scale"}
// CHECK-NEXT:      %[[A:.*]] = ge.data {parent_index = 0 : i64}
// CHECK-NEXT:      %[[B:.*]] = ge.data {parent_index = 1 : i64}
// CHECK-NEXT:      %[[S:.*]] = ge.data {parent_index = 2 : i64}
// CHECK-NEXT:      %[[T:.*]] = ge.add %[[A]], %[[B]]
// CHECK-NEXT:      %[[R:.*]] = ge.relu %[[T]]
// CHECK-NEXT:      %[[M:.*]] = ge.mul %[[R]], %[[S]]
// CHECK-NEXT:      ge.netoutput %[[M]]
// CHECK:         ge.netoutput %[[Y]]
ge.graph @add_relu_scale {
  %a = ge.data {index = 0 : i64} : tensor<3x17xf32>
  %b = ge.data {index = 1 : i64} : tensor<3x17xf32>
  %s = ge.const {value = dense<2.0> : tensor<17xf32>} : tensor<17xf32>
  %t = ge.add %a, %b {name = "add"} : (tensor<3x17xf32>, tensor<3x17xf32>) -> tensor<3x17xf32>
  %r = ge.relu %t {name = "relu"} : tensor<3x17xf32> -> tensor<3x17xf32>
  %m = ge.mul %r, %s {name = "scale"} : (tensor<3x17xf32>, tensor<17xf32>) -> tensor<3x17xf32>
  ge.netoutput %m : tensor<3x17xf32>
}

// -----

// NC1HWC0 chain: add_n of three, leaky relu, sub; the bias broadcasts.
// CHECK-LABEL: ge.graph @nc1hwc0_chain
// CHECK:         ge.fused %x, %y, %z, %c {fusion_rule = "EltwiseFusion"}
// CHECK:           ge.add_n
// CHECK-NEXT:      ge.leaky_relu
// CHECK-NEXT:      ge.sub
// CHECK-NEXT:      ge.netoutput
ge.graph @nc1hwc0_chain {
  %x = ge.data {index = 0 : i64} : tensor<1x17x2x3xf16, #ge.layout<NCHW, NC1HWC0>>
  %y = ge.data {index = 1 : i64} : tensor<1x17x2x3xf16, #ge.layout<NCHW, NC1HWC0>>
  %z = ge.data {index = 2 : i64} : tensor<1x17x2x3xf16, #ge.layout<NCHW, NC1HWC0>>
  %c = ge.const {value = dense<0.5> : tensor<1x2x1x1x16xf16>} : tensor<1x17x1x1xf16, #ge.layout<NCHW, NC1HWC0>>
  %s = ge.add_n %x, %y, %z : (tensor<1x17x2x3xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<1x17x2x3xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<1x17x2x3xf16, #ge.layout<NCHW, NC1HWC0>>) -> tensor<1x17x2x3xf16, #ge.layout<NCHW, NC1HWC0>>
  %l = ge.leaky_relu %s {alpha = 0.25 : f32} : tensor<1x17x2x3xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x2x3xf16, #ge.layout<NCHW, NC1HWC0>>
  %d = ge.sub %l, %c : (tensor<1x17x2x3xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<1x17x1x1xf16, #ge.layout<NCHW, NC1HWC0>>) -> tensor<1x17x2x3xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %d : tensor<1x17x2x3xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// A diamond: both branches and the join fuse; the middle values stay inside.
// CHECK-LABEL: ge.graph @diamond
// CHECK:         ge.fused %x {fusion_rule = "EltwiseFusion"}
// CHECK-NEXT:      ge.data
// CHECK-NEXT:      ge.exp
// CHECK-NEXT:      ge.tanh
// CHECK-NEXT:      ge.sigmoid
// CHECK-NEXT:      ge.maximum
// CHECK-NEXT:      ge.netoutput
ge.graph @diamond {
  %x = ge.data {index = 0 : i64} : tensor<4x4xf32>
  %e = ge.exp %x : tensor<4x4xf32> -> tensor<4x4xf32>
  %t = ge.tanh %e : tensor<4x4xf32> -> tensor<4x4xf32>
  %s = ge.sigmoid %e : tensor<4x4xf32> -> tensor<4x4xf32>
  %m = ge.maximum %t, %s : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  ge.netoutput %m : tensor<4x4xf32>
}

// -----

// One elementwise op alone is not a group.
// CHECK-LABEL: ge.graph @no_fuse_single_op
// CHECK-NOT:     ge.fused
ge.graph @no_fuse_single_op {
  %x = ge.data {index = 0 : i64} : tensor<4x4xf32>
  %r = ge.relu %x : tensor<4x4xf32> -> tensor<4x4xf32>
  ge.netoutput %r : tensor<4x4xf32>
}

// -----

// The group's value is the small operand of a broadcast: the add's result is
// larger than the group's tile, so it stays out.
// CHECK-LABEL: ge.graph @no_fuse_broadcast_grows
// CHECK:         ge.fused %x {fusion_rule = "EltwiseFusion"}
// CHECK:           ge.abs
// CHECK-NEXT:      ge.sqrt
// CHECK-NEXT:      ge.netoutput
// CHECK:         ge.add
ge.graph @no_fuse_broadcast_grows {
  %x = ge.data {index = 0 : i64} : tensor<17xf32>
  %y = ge.data {index = 1 : i64} : tensor<3x17xf32>
  %a = ge.abs %x : tensor<17xf32> -> tensor<17xf32>
  %q = ge.sqrt %a : tensor<17xf32> -> tensor<17xf32>
  %s = ge.add %y, %q : (tensor<3x17xf32>, tensor<17xf32>) -> tensor<3x17xf32>
  ge.netoutput %s : tensor<3x17xf32>
}

// -----

// Integer elementwise ops do not fuse (groups compute in floats).
// CHECK-LABEL: ge.graph @no_fuse_integer
// CHECK-NOT:     ge.fused
ge.graph @no_fuse_integer {
  %x = ge.data {index = 0 : i64} : tensor<4xi32>
  %y = ge.data {index = 1 : i64} : tensor<4xi32>
  %a = ge.add %x, %y : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %m = ge.mul %a, %y : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  ge.netoutput %m : tensor<4xi32>
}

// -----

// Dynamic shapes: a fused group is lowered as one static nest.
// CHECK-LABEL: ge.graph @no_fuse_dynamic_shape
// CHECK-NOT:     ge.fused
ge.graph @no_fuse_dynamic_shape {
  %x = ge.data {index = 0 : i64} : tensor<?x17xf32>
  %a = ge.relu %x : tensor<?x17xf32> -> tensor<?x17xf32>
  %b = ge.exp %a : tensor<?x17xf32> -> tensor<?x17xf32>
  ge.netoutput %b : tensor<?x17xf32>
}

// -----

// FRACTAL_Z is not among the elementwise ops' fusion formats (op info).
// CHECK-LABEL: ge.graph @no_fuse_unsupported_format
// CHECK-NOT:     ge.fused
ge.graph @no_fuse_unsupported_format {
  %w = ge.data {index = 0 : i64} : tensor<33x17x1x1xf32, #ge.layout<NCHW, FRACTAL_Z>>
  %a = ge.relu %w : tensor<33x17x1x1xf32, #ge.layout<NCHW, FRACTAL_Z>> -> tensor<33x17x1x1xf32, #ge.layout<NCHW, FRACTAL_Z>>
  %b = ge.neg %a : tensor<33x17x1x1xf32, #ge.layout<NCHW, FRACTAL_Z>> -> tensor<33x17x1x1xf32, #ge.layout<NCHW, FRACTAL_Z>>
  ge.netoutput %b : tensor<33x17x1x1xf32, #ge.layout<NCHW, FRACTAL_Z>>
}

// -----

// An identity and a cast have no fusion formats: they end chains.
// CHECK-LABEL: ge.graph @no_fuse_across_identity
// CHECK-NOT:     ge.fused
ge.graph @no_fuse_across_identity {
  %x = ge.data {index = 0 : i64} : tensor<4xf32>
  %a = ge.relu %x : tensor<4xf32> -> tensor<4xf32>
  %i = ge.identity %a : tensor<4xf32> -> tensor<4xf32>
  %b = ge.neg %i : tensor<4xf32> -> tensor<4xf32>
  ge.netoutput %a, %b : tensor<4xf32>, tensor<4xf32>
}
