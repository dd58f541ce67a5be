// RUN: ge-opt %s --split-input-file --transop-breadth-fusion | filecheck %s

// GE's TransOpBreadthFusionPass unit-test scenarios
// (docs/research/ge_behaviour.md §5.4), in SSA form. Control edges do not exist
// here, so GE's "no cycle after fusion" variants reduce to dominance: the
// kept op is the first one in the block.

// GE: two Reshapes from the same Data output, each with its own Const shape:
// one kept. The shape is an attribute here.
// CHECK-LABEL: ge.graph @reshapes_from_one_data
// CHECK:         [[A:%.*]] = ge.reshape %x {name = "reshape1", shape = array<i64: 3, 17>}
// CHECK-NOT:     ge.reshape
// CHECK:         [[R:%.*]] = ge.relu [[A]]
// CHECK-NEXT:    [[S:%.*]] = ge.sigmoid [[A]]
// CHECK-NEXT:    ge.netoutput [[R]], [[S]]
ge.graph @reshapes_from_one_data {
  %x = ge.data {index = 0 : i64} : tensor<51xf32>
  %a = ge.reshape %x {name = "reshape1", shape = array<i64: 3, 17>} : tensor<51xf32> -> tensor<3x17xf32>
  %b = ge.reshape %x {name = "reshape2", shape = array<i64: 3, 17>} : tensor<51xf32> -> tensor<3x17xf32>
  %r = ge.relu %a : tensor<3x17xf32> -> tensor<3x17xf32>
  %s = ge.sigmoid %b : tensor<3x17xf32> -> tensor<3x17xf32>
  ge.netoutput %r, %s : tensor<3x17xf32>, tensor<3x17xf32>
}

// -----

// GE: Reshapes under different heads: not fused.
// CHECK-LABEL: ge.graph @no_reshapes_different_heads
// CHECK:         ge.reshape %x
// CHECK:         ge.reshape %y
ge.graph @no_reshapes_different_heads {
  %x = ge.data {index = 0 : i64} : tensor<51xf32>
  %y = ge.data {index = 1 : i64} : tensor<51xf32>
  %a = ge.reshape %x : tensor<51xf32> -> tensor<3x17xf32>
  %b = ge.reshape %y : tensor<51xf32> -> tensor<3x17xf32>
  ge.netoutput %a, %b : tensor<3x17xf32>, tensor<3x17xf32>
}

// -----

// GE: Casts on different output anchors: not fused.
// CHECK-LABEL: ge.graph @no_casts_different_outputs
// CHECK:         [[S0:%[^ ,]*]], [[S1:%[^ ]*]] = ge.split
// CHECK-NEXT:    ge.cast [[S0]] {dst_type = f16}
// CHECK-NEXT:    ge.cast [[S1]] {dst_type = f16}
ge.graph @no_casts_different_outputs {
  %x = ge.data {index = 0 : i64} : tensor<2x6xf32>
  %s:2 = ge.split %x {axis = 1 : i64, sizes = array<i64: 3, 3>} : (tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  %a = ge.cast %s#0 {dst_type = f16} : tensor<2x3xf32> -> tensor<2x3xf16>
  %b = ge.cast %s#1 {dst_type = f16} : tensor<2x3xf32> -> tensor<2x3xf16>
  ge.netoutput %a, %b : tensor<2x3xf16>, tensor<2x3xf16>
}

// -----

// GE: two Casts fp32 -> fp16 from one output: fused (4 nodes left).
// CHECK-LABEL: ge.graph @casts_fp32_fp16_fused
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    [[A:%.*]] = ge.cast %x {dst_type = f16}
// CHECK-NEXT:    [[R:%.*]] = ge.add [[A]], [[A]]
// CHECK-NEXT:    ge.netoutput [[R]]
ge.graph @casts_fp32_fp16_fused {
  %x = ge.data {index = 0 : i64} : tensor<2x17xf32>
  %a = ge.cast %x {dst_type = f16} : tensor<2x17xf32> -> tensor<2x17xf16>
  %b = ge.cast %x {dst_type = f16} : tensor<2x17xf32> -> tensor<2x17xf16>
  %r = ge.add %a, %b : (tensor<2x17xf16>, tensor<2x17xf16>) -> tensor<2x17xf16>
  ge.netoutput %r : tensor<2x17xf16>
}

// -----

// GE: three TransData from one Variable, only transdata1 with stream label
// "label1": transdata2 and transdata3 fused.
// CHECK-LABEL: ge.graph @transdata_one_stream_label
// CHECK:         [[T1:%.*]] = ge.transdata %v {name = "transdata1", src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>, stream_label = "label1"}
// CHECK-NEXT:    [[T2:%.*]] = ge.transdata %v {name = "transdata2",
// CHECK-NEXT:    ge.netoutput [[T1]], [[T2]], [[T2]]
ge.graph @transdata_one_stream_label {
  %v = ge.variable {name = "var"} : tensor<1x17x2x2xf16, #ge.layout<NCHW>>
  %t1 = ge.transdata %v {name = "transdata1", src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>, stream_label = "label1"} : tensor<1x17x2x2xf16, #ge.layout<NCHW>> -> tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %t2 = ge.transdata %v {name = "transdata2", src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x2x2xf16, #ge.layout<NCHW>> -> tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %t3 = ge.transdata %v {name = "transdata3", src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x2x2xf16, #ge.layout<NCHW>> -> tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %t1, %t2, %t3 : tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// GE: transdata2 and transdata3 both labelled "label1": they fuse,
// transdata1 stays.
// CHECK-LABEL: ge.graph @transdata_two_stream_labels
// CHECK:         [[T1:%.*]] = ge.transdata %v {name = "transdata1",
// CHECK-NEXT:    [[T2:%.*]] = ge.transdata %v {name = "transdata2", {{.*}}stream_label = "label1"}
// CHECK-NEXT:    ge.netoutput [[T1]], [[T2]], [[T2]]
ge.graph @transdata_two_stream_labels {
  %v = ge.variable {name = "var"} : tensor<1x17x2x2xf16, #ge.layout<NCHW>>
  %t1 = ge.transdata %v {name = "transdata1", src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x2x2xf16, #ge.layout<NCHW>> -> tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %t2 = ge.transdata %v {name = "transdata2", src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>, stream_label = "label1"} : tensor<1x17x2x2xf16, #ge.layout<NCHW>> -> tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %t3 = ge.transdata %v {name = "transdata3", src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>, stream_label = "label1"} : tensor<1x17x2x2xf16, #ge.layout<NCHW>> -> tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %t1, %t2, %t3 : tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// GE: Transposes with different perms ([0,3,1,2] vs [0,2,1,3]): both kept.
// CHECK-LABEL: ge.graph @no_transposes_different_perms
// CHECK:         ge.transpose %x {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT:    ge.transpose %x {perm = array<i64: 0, 2, 1, 3>}
ge.graph @no_transposes_different_perms {
  %x = ge.data {index = 0 : i64} : tensor<1x3x3x3xf32>
  %a = ge.transpose %x {perm = array<i64: 0, 3, 1, 2>} : tensor<1x3x3x3xf32> -> tensor<1x3x3x3xf32>
  %b = ge.transpose %x {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x3x3xf32> -> tensor<1x3x3x3xf32>
  ge.netoutput %a, %b : tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>
}

// -----

// GE: a control edge cast1 -> cast2 (or TransData -> cast2) fuses without a
// cycle; Relu's in-control becomes the TransData. In SSA: after the casts
// fuse, their identical TransData consumers meet on one value and fuse in
// the same run.
// CHECK-LABEL: ge.graph @fused_consumers_fuse_in_same_run
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    [[C:%.*]] = ge.cast %x
// CHECK-NEXT:    [[T:%.*]] = ge.transdata [[C]]
// CHECK-NEXT:    [[R:%.*]] = ge.relu [[T]]
// CHECK-NEXT:    [[S:%.*]] = ge.relu [[T]]
// CHECK-NEXT:    ge.netoutput [[R]], [[S]]
ge.graph @fused_consumers_fuse_in_same_run {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %c1 = ge.cast %x {dst_type = f16} : tensor<1x3x4x4xf32, #ge.layout<NCHW>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW>>
  %t1 = ge.transdata %c1 {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x4x4xf16, #ge.layout<NCHW>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.relu %t1 : tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %c2 = ge.cast %x {dst_type = f16} : tensor<1x3x4x4xf32, #ge.layout<NCHW>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW>>
  %t2 = ge.transdata %c2 {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x4x4xf16, #ge.layout<NCHW>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %s = ge.relu %t2 : tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %r, %s : tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// GE: null or empty graph: success.
// CHECK-LABEL: ge.graph @empty_graph
// CHECK-NEXT:    ge.netoutput
ge.graph @empty_graph {
  ge.netoutput
}
