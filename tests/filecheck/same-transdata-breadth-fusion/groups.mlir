// RUN: ge-opt %s --split-input-file --same-transdata-breadth-fusion | filecheck %s

// Heads, groups and boundaries beyond GE's unit tests.

// A head used once, by an If: the TransData of both branches is hoisted in
// front of the If and each branch reads the new input.
// CHECK-LABEL: ge.graph @if_branches_share_transdata
// CHECK:         [[T:%.*]] = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>}
// CHECK-NEXT:    ge.if %c, [[T]] : (tensor<1xi1>, tensor<1x17x2x2xf32, #ge.layout<NCHW, NC1HWC0>>)
// CHECK-NEXT:      [[D:%.*]] = ge.data {parent_index = 1 : i64} : tensor<1x17x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:      [[C:%.*]] = ge.cast [[D]] {dst_type = f16}
// CHECK-NEXT:      ge.netoutput [[C]]
// CHECK-NEXT:    } else {
// CHECK-NEXT:      [[E:%.*]] = ge.data {parent_index = 1 : i64} : tensor<1x17x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:      [[F:%.*]] = ge.cast [[E]] {dst_type = f16}
// CHECK-NEXT:      [[N:%.*]] = ge.neg [[F]]
// CHECK-NEXT:      ge.netoutput [[N]]
ge.graph @if_branches_share_transdata {
  %c = ge.data {index = 0 : i64} : tensor<1xi1>
  %x = ge.data {index = 1 : i64} : tensor<1x17x2x2xf32, #ge.layout<NCHW>>
  %r = ge.if %c, %x : (tensor<1xi1>, tensor<1x17x2x2xf32, #ge.layout<NCHW>>) -> tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>> then {
    %d = ge.data {parent_index = 1 : i64} : tensor<1x17x2x2xf32, #ge.layout<NCHW>>
    %h = ge.cast %d {dst_type = f16} : tensor<1x17x2x2xf32, #ge.layout<NCHW>> -> tensor<1x17x2x2xf16, #ge.layout<NCHW>>
    %u = ge.transdata %h {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x2x2xf16, #ge.layout<NCHW>> -> tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
    ge.netoutput %u : tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  } else {
    %d = ge.data {parent_index = 1 : i64} : tensor<1x17x2x2xf32, #ge.layout<NCHW>>
    %h = ge.cast %d {dst_type = f16} : tensor<1x17x2x2xf32, #ge.layout<NCHW>> -> tensor<1x17x2x2xf16, #ge.layout<NCHW>>
    %u = ge.transdata %h {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x2x2xf16, #ge.layout<NCHW>> -> tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
    %n = ge.neg %u : tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
    ge.netoutput %n : tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  }
  ge.netoutput %r : tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// Different target formats form different groups of one: nothing moves.
// CHECK-LABEL: ge.graph @no_fusion_different_formats
// CHECK:         [[C:%.*]] = ge.cast %x
// CHECK-NEXT:    ge.transdata [[C]] {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>}
// CHECK-NEXT:    ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_Z>}
ge.graph @no_fusion_different_formats {
  %x = ge.data {index = 0 : i64} : tensor<17x3x3x3xf32, #ge.layout<NCHW>>
  %c = ge.cast %x {dst_type = f16} : tensor<17x3x3x3xf32, #ge.layout<NCHW>> -> tensor<17x3x3x3xf16, #ge.layout<NCHW>>
  %a = ge.transdata %c {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<17x3x3x3xf16, #ge.layout<NCHW>> -> tensor<17x3x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
  %b = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_Z>} : tensor<17x3x3x3xf32, #ge.layout<NCHW>> -> tensor<17x3x3x3xf32, #ge.layout<NCHW, FRACTAL_Z>>
  ge.netoutput %a, %b : tensor<17x3x3x3xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<17x3x3x3xf32, #ge.layout<NCHW, FRACTAL_Z>>
}

// -----

// Grouped FRACTAL_Z TransData are left alone.
// CHECK-LABEL: ge.graph @no_fusion_grouped
// CHECK:         ge.cast %x
// CHECK-NEXT:    ge.transdata
// CHECK-NEXT:    ge.transdata %x
ge.graph @no_fusion_grouped {
  %x = ge.data {index = 0 : i64} : tensor<8x4x3x3xf32, #ge.layout<NCHW>>
  %c = ge.cast %x {dst_type = f16} : tensor<8x4x3x3xf32, #ge.layout<NCHW>> -> tensor<8x4x3x3xf16, #ge.layout<NCHW>>
  %a = ge.transdata %c {src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_Z>, groups = 2 : i64} : tensor<8x4x3x3xf16, #ge.layout<NCHW>> -> tensor<8x4x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
  %b = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_Z>, groups = 2 : i64} : tensor<8x4x3x3xf32, #ge.layout<NCHW>> -> tensor<8x4x3x3xf32, #ge.layout<NCHW, FRACTAL_Z>>
  ge.netoutput %a, %b : tensor<8x4x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>, tensor<8x4x3x3xf32, #ge.layout<NCHW, FRACTAL_Z>>
}

// -----

// Casts that branch (one cast feeding two cast paths) all move; chains of
// two casts keep their order.
// CHECK-LABEL: ge.graph @cast_tree_moves
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    [[T:%.*]] = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x2x2xf16, #ge.layout<NCHW>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[A:%.*]] = ge.cast [[T]] {dst_type = f32}
// CHECK-NEXT:    [[B:%.*]] = ge.cast [[A]] {dst_type = i32}
// CHECK-NEXT:    [[R:%.*]] = ge.relu [[A]]
// CHECK-NEXT:    ge.netoutput [[B]], [[R]], [[T]]
ge.graph @cast_tree_moves {
  %x = ge.data {index = 0 : i64} : tensor<1x3x2x2xf16, #ge.layout<NCHW>>
  %a = ge.cast %x {dst_type = f32} : tensor<1x3x2x2xf16, #ge.layout<NCHW>> -> tensor<1x3x2x2xf32, #ge.layout<NCHW>>
  %b = ge.cast %a {dst_type = i32} : tensor<1x3x2x2xf32, #ge.layout<NCHW>> -> tensor<1x3x2x2xi32, #ge.layout<NCHW>>
  %tb = ge.transdata %b {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x2x2xi32, #ge.layout<NCHW>> -> tensor<1x3x2x2xi32, #ge.layout<NCHW, NC1HWC0>>
  %ta = ge.transdata %a {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x2x2xf32, #ge.layout<NCHW>> -> tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.relu %ta : tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  %tx = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x2x2xf16, #ge.layout<NCHW>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %tb, %r, %tx : tensor<1x3x2x2xi32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// A While's subgraph data are loop variables, not the head: not entered.
// CHECK-LABEL: ge.graph @no_fusion_into_while
// CHECK:         ge.transdata %x
// CHECK:         ge.while %x
// CHECK:         ge.transdata
ge.graph @no_fusion_into_while {
  %x = ge.data {index = 0 : i64} : tensor<1x3x2x2xf32, #ge.layout<NCHW>>
  %t = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x2x2xf32, #ge.layout<NCHW>> -> tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  %w = ge.while %x : (tensor<1x3x2x2xf32, #ge.layout<NCHW>>) -> tensor<1x3x2x2xf32, #ge.layout<NCHW>> cond {
    %d = ge.data {parent_index = 0 : i64} : tensor<1x3x2x2xf32, #ge.layout<NCHW>>
    %z = ge.const {value = dense<false> : tensor<1xi1>} : tensor<1xi1>
    ge.netoutput %z : tensor<1xi1>
  } body {
    %d = ge.data {parent_index = 0 : i64} : tensor<1x3x2x2xf32, #ge.layout<NCHW>>
    %u = ge.transdata %d {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x2x2xf32, #ge.layout<NCHW>> -> tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
    %b = ge.transdata %u {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf32, #ge.layout<NCHW>>
    ge.netoutput %b : tensor<1x3x2x2xf32, #ge.layout<NCHW>>
  }
  ge.netoutput %t, %w : tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x3x2x2xf32, #ge.layout<NCHW>>
}

// -----

// A subgraph whose data does not mirror the parent operand's layout: that
// path is dropped.
// CHECK-LABEL: ge.graph @no_fusion_boundary_changes_layout
// CHECK:         ge.transdata %x
// CHECK-NEXT:    ge.partitioned_call %x
// CHECK-NEXT:      ge.data {parent_index = 0 : i64} : tensor<1x3x2x2xf32>
// CHECK-NEXT:      ge.transdata
ge.graph @no_fusion_boundary_changes_layout {
  %x = ge.data {index = 0 : i64} : tensor<1x3x2x2xf32, #ge.layout<NCHW>>
  %t = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x2x2xf32, #ge.layout<NCHW>> -> tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  %p = ge.partitioned_call %x : (tensor<1x3x2x2xf32, #ge.layout<NCHW>>) -> tensor<1x3x2x2xf32, #ge.layout<ND, FRACTAL_NZ>> {
    %d = ge.data {parent_index = 0 : i64} : tensor<1x3x2x2xf32>
    %u = ge.transdata %d {src_format = #ge.format<ND>, dst_format = #ge.format<FRACTAL_NZ>} : tensor<1x3x2x2xf32> -> tensor<1x3x2x2xf32, #ge.layout<ND, FRACTAL_NZ>>
    ge.netoutput %u : tensor<1x3x2x2xf32, #ge.layout<ND, FRACTAL_NZ>>
  }
  ge.netoutput %t, %p : tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x3x2x2xf32, #ge.layout<ND, FRACTAL_NZ>>
}
