// RUN: ge-opt %s --split-input-file --transop-breadth-fusion | filecheck %s

// What makes two trans ops on one value identical: op, attributes (the
// node name aside, and the shape attributes a result type fixes: see
// result_types.mlir) and result type.

// Node names do not keep ops apart; the first op's name stays.
// CHECK-LABEL: ge.graph @names_ignored
// CHECK:         [[A:%.*]] = ge.transdata %x {name = "first",
// CHECK-NOT:     ge.transdata
// CHECK:         ge.netoutput [[A]], [[A]]
ge.graph @names_ignored {
  %x = ge.data {index = 0 : i64} : tensor<33x3x3x3xf16, #ge.layout<NCHW>>
  %a = ge.transdata %x {name = "first", src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_Z>} : tensor<33x3x3x3xf16, #ge.layout<NCHW>> -> tensor<33x3x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
  %b = ge.transdata %x {name = "second", src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_Z>} : tensor<33x3x3x3xf16, #ge.layout<NCHW>> -> tensor<33x3x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
  ge.netoutput %a, %b : tensor<33x3x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>, tensor<33x3x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
}

// -----

// Same formats, different groups: kept apart.
// CHECK-LABEL: ge.graph @no_transdata_different_groups
// CHECK:         ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_Z>}
// CHECK-NEXT:    ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_Z>, groups = 2 : i64}
ge.graph @no_transdata_different_groups {
  %x = ge.data {index = 0 : i64} : tensor<8x4x3x3xf16, #ge.layout<NCHW>>
  %a = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_Z>} : tensor<8x4x3x3xf16, #ge.layout<NCHW>> -> tensor<8x4x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
  %b = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_Z>, groups = 2 : i64} : tensor<8x4x3x3xf16, #ge.layout<NCHW>> -> tensor<8x4x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
  ge.netoutput %a, %b : tensor<8x4x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>, tensor<8x4x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
}

// -----

// Same attributes, different result types (how a rank-1 value expands):
// kept apart.
// CHECK-LABEL: ge.graph @no_transdata_different_result_types
// CHECK:         ge.transdata %x
// CHECK-NEXT:    ge.transdata %x
ge.graph @no_transdata_different_result_types {
  %x = ge.data {index = 0 : i64} : tensor<17xf16, #ge.layout<NCHW>>
  %a = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<17xf16, #ge.layout<NCHW>> -> tensor<17xf16, #ge.layout<NCHW, NC1HWC0, reshape_type = "C">>
  %b = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<17xf16, #ge.layout<NCHW>> -> tensor<17xf16, #ge.layout<NCHW, NC1HWC0, reshape_type = "N">>
  ge.netoutput %a, %b : tensor<17xf16, #ge.layout<NCHW, NC1HWC0, reshape_type = "C">>, tensor<17xf16, #ge.layout<NCHW, NC1HWC0, reshape_type = "N">>
}

// -----

// GE fuses any two UnsqueezeV2 on one output; here the axes must agree.
// CHECK-LABEL: ge.graph @no_unsqueeze_different_axes
// CHECK:         ge.unsqueeze %x {axes = array<i64: 0>}
// CHECK-NEXT:    ge.unsqueeze %x {axes = array<i64: 1>}
ge.graph @no_unsqueeze_different_axes {
  %x = ge.data {index = 0 : i64} : tensor<3xf32>
  %a = ge.unsqueeze %x {axes = array<i64: 0>} : tensor<3xf32> -> tensor<1x3xf32>
  %b = ge.unsqueeze %x {axes = array<i64: 1>} : tensor<3xf32> -> tensor<3x1xf32>
  ge.netoutput %a, %b : tensor<1x3xf32>, tensor<3x1xf32>
}

// -----

// Three identical transposes and a permute with the same order: the
// transposes fuse (the permute is another op).
// CHECK-LABEL: ge.graph @transposes_fused_permute_kept
// CHECK:         [[A:%.*]] = ge.transpose %x
// CHECK-NEXT:    [[P:%.*]] = ge.permute %x
// CHECK-NEXT:    ge.netoutput [[A]], [[A]], [[P]], [[A]]
ge.graph @transposes_fused_permute_kept {
  %x = ge.data {index = 0 : i64} : tensor<1x17x2x3xf32, #ge.layout<NCHW>>
  %a = ge.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<1x17x2x3xf32, #ge.layout<NCHW>> -> tensor<1x2x3x17xf32, #ge.layout<NHWC>>
  %b = ge.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<1x17x2x3xf32, #ge.layout<NCHW>> -> tensor<1x2x3x17xf32, #ge.layout<NHWC>>
  %p = ge.permute %x {order = array<i64: 0, 2, 3, 1>} : tensor<1x17x2x3xf32, #ge.layout<NCHW>> -> tensor<1x2x3x17xf32, #ge.layout<NHWC>>
  %c = ge.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<1x17x2x3xf32, #ge.layout<NCHW>> -> tensor<1x2x3x17xf32, #ge.layout<NHWC>>
  ge.netoutput %a, %b, %p, %c : tensor<1x2x3x17xf32, #ge.layout<NHWC>>, tensor<1x2x3x17xf32, #ge.layout<NHWC>>, tensor<1x2x3x17xf32, #ge.layout<NHWC>>, tensor<1x2x3x17xf32, #ge.layout<NHWC>>
}

// -----

// Casts to different dtypes stay; identical ones in a subgraph fuse.
// CHECK-LABEL: ge.graph @casts_in_subgraph
// CHECK:           [[D:%.*]] = ge.data {parent_index = 0 : i64}
// CHECK-NEXT:      [[A:%.*]] = ge.cast [[D]] {dst_type = f16}
// CHECK-NEXT:      [[B:%.*]] = ge.cast [[D]] {dst_type = i32}
// CHECK-NEXT:      ge.netoutput [[A]], [[B]], [[A]]
ge.graph @casts_in_subgraph {
  %x = ge.data {index = 0 : i64} : tensor<3x3xf32>
  %y:3 = ge.partitioned_call %x : (tensor<3x3xf32>) -> (tensor<3x3xf16>, tensor<3x3xi32>, tensor<3x3xf16>) {
    %d = ge.data {parent_index = 0 : i64} : tensor<3x3xf32>
    %a = ge.cast %d {dst_type = f16} : tensor<3x3xf32> -> tensor<3x3xf16>
    %b = ge.cast %d {dst_type = i32} : tensor<3x3xf32> -> tensor<3x3xi32>
    %c = ge.cast %d {dst_type = f16} : tensor<3x3xf32> -> tensor<3x3xf16>
    ge.netoutput %a, %b, %c : tensor<3x3xf16>, tensor<3x3xi32>, tensor<3x3xf16>
  }
  ge.netoutput %y#0, %y#1, %y#2 : tensor<3x3xf16>, tensor<3x3xi32>, tensor<3x3xf16>
}
