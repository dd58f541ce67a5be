// RUN: ge-opt %s --split-input-file --transop-without-reshape-fusion | filecheck %s

// GE's TransOpWithoutReshapeFusionPass unit-test scenarios
// (docs/research/ge_behaviour.md §5.5), in SSA form. A TransData keeps the
// origin format and shape here, so GE's chains through a single Transpose
// (which change the origin) have SSA counterparts where transposes cancel.

// GE: var(5HD fp16) -> cast -> TD(->NHWC) -> cast -> TD(->5HD) -> Conv(5HD
// fp16): the whole chain is bypassed.
// CHECK-LABEL: ge.graph @var_5hd_cast_transdata_chain_bypassed
// CHECK-NEXT:    %v = ge.variable
// CHECK-NEXT:    [[R:%.*]] = ge.relu %v
// CHECK-NEXT:    ge.netoutput [[R]]
ge.graph @var_5hd_cast_transdata_chain_bypassed {
  %v = ge.variable {name = "var"} : tensor<1x4x4x17xf16, #ge.layout<NHWC, NC1HWC0>>
  %a = ge.cast %v {dst_type = f32} : tensor<1x4x4x17xf16, #ge.layout<NHWC, NC1HWC0>> -> tensor<1x4x4x17xf32, #ge.layout<NHWC, NC1HWC0>>
  %b = ge.transdata %a {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NHWC>} : tensor<1x4x4x17xf32, #ge.layout<NHWC, NC1HWC0>> -> tensor<1x4x4x17xf32, #ge.layout<NHWC>>
  %c = ge.cast %b {dst_type = f16} : tensor<1x4x4x17xf32, #ge.layout<NHWC>> -> tensor<1x4x4x17xf16, #ge.layout<NHWC>>
  %d = ge.transdata %c {src_format = #ge.format<NHWC>, dst_format = #ge.format<NC1HWC0>} : tensor<1x4x4x17xf16, #ge.layout<NHWC>> -> tensor<1x4x4x17xf16, #ge.layout<NHWC, NC1HWC0>>
  %r = ge.relu %d : tensor<1x4x4x17xf16, #ge.layout<NHWC, NC1HWC0>> -> tensor<1x4x4x17xf16, #ge.layout<NHWC, NC1HWC0>>
  ge.netoutput %r : tensor<1x4x4x17xf16, #ge.layout<NHWC, NC1HWC0>>
}

// -----

// GE: Data(5HD) -> TD -> Cast -> Cast -> TD(NCHW->NZ) -> Relu: NZ is not
// supported, unchanged.
// CHECK-LABEL: ge.graph @no_fusion_nz_unsupported
// CHECK:         ge.transdata %x
// CHECK-NEXT:    ge.cast
// CHECK-NEXT:    ge.cast
// CHECK-NEXT:    ge.transdata
// CHECK-NEXT:    ge.relu
ge.graph @no_fusion_nz_unsupported {
  %x = ge.data {index = 0 : i64} : tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x4x4xf16, #ge.layout<NCHW>>
  %b = ge.cast %a {dst_type = f32} : tensor<1x17x4x4xf16, #ge.layout<NCHW>> -> tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  %c = ge.cast %b {dst_type = f16} : tensor<1x17x4x4xf32, #ge.layout<NCHW>> -> tensor<1x17x4x4xf16, #ge.layout<NCHW>>
  %d = ge.transdata %c {src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_NZ>} : tensor<1x17x4x4xf16, #ge.layout<NCHW>> -> tensor<1x17x4x4xf16, #ge.layout<NCHW, FRACTAL_NZ>>
  %r = ge.relu %d : tensor<1x17x4x4xf16, #ge.layout<NCHW, FRACTAL_NZ>> -> tensor<1x17x4x4xf16, #ge.layout<NCHW, FRACTAL_NZ>>
  ge.netoutput %r : tensor<1x17x4x4xf16, #ge.layout<NCHW, FRACTAL_NZ>>
}

// -----

// GE: Data NHWC -> Transpose(NHWC->ND) -> Mul: kept.
// CHECK-LABEL: ge.graph @no_fusion_transpose_to_nd
// CHECK:         ge.transpose %x
// CHECK-NEXT:    ge.mul
ge.graph @no_fusion_transpose_to_nd {
  %x = ge.data {index = 0 : i64} : tensor<1x4x4x3xf32, #ge.layout<NHWC>>
  %a = ge.transpose %x {perm = array<i64: 0, 3, 1, 2>} : tensor<1x4x4x3xf32, #ge.layout<NHWC>> -> tensor<1x3x4x4xf32>
  %m = ge.mul %a, %a : (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  ge.netoutput %m : tensor<1x3x4x4xf32>
}

// -----

// GE: Data ND -> Transpose: kept (a transpose reading ND breaks the path).
// CHECK-LABEL: ge.graph @no_fusion_transpose_from_nd
// CHECK:         ge.transpose %x
// CHECK-NEXT:    ge.transpose
// CHECK-NEXT:    ge.mul
ge.graph @no_fusion_transpose_from_nd {
  %x = ge.data {index = 0 : i64} : tensor<1x4x4x3xf32>
  %a = ge.transpose %x {perm = array<i64: 0, 3, 1, 2>} : tensor<1x4x4x3xf32> -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %b = ge.transpose %a {perm = array<i64: 0, 2, 3, 1>} : tensor<1x3x4x4xf32, #ge.layout<NCHW>> -> tensor<1x4x4x3xf32>
  %m = ge.mul %b, %b : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  ge.netoutput %m : tensor<1x4x4x3xf32>
}

// -----

// GE: an unknown-shape Transpose is kept (the head's shape is unknown, so
// GE skips the head).
// CHECK-LABEL: ge.graph @no_fusion_unknown_shape
// CHECK:         ge.transdata %x
// CHECK-NEXT:    ge.cast
// CHECK-NEXT:    ge.cast
// CHECK-NEXT:    ge.transdata
ge.graph @no_fusion_unknown_shape {
  %x = ge.data {index = 0 : i64} : tensor<?x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<?x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<?x17x4x4xf16, #ge.layout<NCHW>>
  %b = ge.cast %a {dst_type = f32} : tensor<?x17x4x4xf16, #ge.layout<NCHW>> -> tensor<?x17x4x4xf32, #ge.layout<NCHW>>
  %c = ge.cast %b {dst_type = f16} : tensor<?x17x4x4xf32, #ge.layout<NCHW>> -> tensor<?x17x4x4xf16, #ge.layout<NCHW>>
  %d = ge.transdata %c {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<?x17x4x4xf16, #ge.layout<NCHW>> -> tensor<?x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %d : tensor<?x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// GE: Data(5HD) -> TD -> Cast -> Cast -> TD(->5HD) -> Relu: bypassed.
// CHECK-LABEL: ge.graph @data_5hd_transdata_casts_bypassed
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    [[R:%.*]] = ge.relu %x
// CHECK-NEXT:    ge.netoutput [[R]]
ge.graph @data_5hd_transdata_casts_bypassed {
  %x = ge.data {index = 0 : i64} : tensor<1x33x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x33x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x33x4x4xf16, #ge.layout<NCHW>>
  %b = ge.cast %a {dst_type = f32} : tensor<1x33x4x4xf16, #ge.layout<NCHW>> -> tensor<1x33x4x4xf32, #ge.layout<NCHW>>
  %c = ge.cast %b {dst_type = f16} : tensor<1x33x4x4xf32, #ge.layout<NCHW>> -> tensor<1x33x4x4xf16, #ge.layout<NCHW>>
  %d = ge.transdata %c {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x33x4x4xf16, #ge.layout<NCHW>> -> tensor<1x33x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.relu %d : tensor<1x33x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x33x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %r : tensor<1x33x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// GE: a chain with a Transpose and a mismatched end: the first TransData
// stays (here the whole chain: the transpose changes the origin).
// CHECK-LABEL: ge.graph @no_fusion_transpose_changes_origin
// CHECK:         ge.transdata %x
// CHECK-NEXT:    ge.transpose
// CHECK-NEXT:    ge.transdata
// CHECK-NEXT:    ge.relu
ge.graph @no_fusion_transpose_changes_origin {
  %x = ge.data {index = 0 : i64} : tensor<1x17x2x3xf16, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x17x2x3xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x2x3xf16, #ge.layout<NCHW>>
  %b = ge.transpose %a {perm = array<i64: 0, 2, 3, 1>} : tensor<1x17x2x3xf16, #ge.layout<NCHW>> -> tensor<1x2x3x17xf16, #ge.layout<NHWC>>
  %c = ge.transdata %b {src_format = #ge.format<NHWC>, dst_format = #ge.format<NC1HWC0>} : tensor<1x2x3x17xf16, #ge.layout<NHWC>> -> tensor<1x2x3x17xf16, #ge.layout<NHWC, NC1HWC0>>
  %r = ge.relu %c : tensor<1x2x3x17xf16, #ge.layout<NHWC, NC1HWC0>> -> tensor<1x2x3x17xf16, #ge.layout<NHWC, NC1HWC0>>
  ge.netoutput %r : tensor<1x2x3x17xf16, #ge.layout<NHWC, NC1HWC0>>
}

// -----

// GE: Data -> TD -> Cast -> Relu (2 ops, dtype and format both change): no
// gain, kept.
// CHECK-LABEL: ge.graph @no_fusion_no_gain
// CHECK:         ge.transdata %x
// CHECK-NEXT:    ge.cast
// CHECK-NEXT:    ge.relu
ge.graph @no_fusion_no_gain {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %a = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x4x4xf32, #ge.layout<NCHW>> -> tensor<1x3x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  %b = ge.cast %a {dst_type = f16} : tensor<1x3x4x4xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.relu %b : tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %r : tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// GE: branching: the branch through a Reshape is kept as it is, the others
// fuse (the shared first TransData stays for the reshape).
// CHECK-LABEL: ge.graph @branch_through_reshape_kept
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    [[A:%.*]] = ge.transdata %x
// CHECK-NEXT:    [[S:%.*]] = ge.reshape [[A]]
// CHECK-NEXT:    [[Q:%.*]] = ge.sigmoid [[S]]
// CHECK-NEXT:    [[R:%.*]] = ge.relu %x
// CHECK-NEXT:    ge.netoutput [[R]], [[Q]]
ge.graph @branch_through_reshape_kept {
  %x = ge.data {index = 0 : i64} : tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x4x4xf16, #ge.layout<NCHW>>
  %s = ge.reshape %a : tensor<1x17x4x4xf16, #ge.layout<NCHW>> -> tensor<17x16xf16>
  %q = ge.sigmoid %s : tensor<17x16xf16> -> tensor<17x16xf16>
  %b = ge.cast %a {dst_type = f32} : tensor<1x17x4x4xf16, #ge.layout<NCHW>> -> tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  %c = ge.cast %b {dst_type = f16} : tensor<1x17x4x4xf32, #ge.layout<NCHW>> -> tensor<1x17x4x4xf16, #ge.layout<NCHW>>
  %d = ge.transdata %c {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x4x4xf16, #ge.layout<NCHW>> -> tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.relu %d : tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %r, %q : tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<17x16xf16>
}

// -----

// GE: 5HD fp16 -> Cast -> TD -> Transpose -> Cast -> TD(->FZ fp16): one new
// TransData 5HD -> FZ. Here the transposes cancel (the origin returns to
// NCHW), and the five ops become that TransData.
// CHECK-LABEL: ge.graph @transposes_cancel_single_transdata_5hd_to_fz
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    [[T:%.*]] = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<FRACTAL_Z>} : tensor<17x33x3x3xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<17x33x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
// CHECK-NEXT:    [[R:%.*]] = ge.relu [[T]]
// CHECK-NEXT:    ge.netoutput [[R]]
ge.graph @transposes_cancel_single_transdata_5hd_to_fz {
  %x = ge.data {index = 0 : i64} : tensor<17x33x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.cast %x {dst_type = f32} : tensor<17x33x3x3xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<17x33x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  %b = ge.transdata %a {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<17x33x3x3xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<17x33x3x3xf32, #ge.layout<NCHW>>
  %c = ge.transpose %b {perm = array<i64: 0, 2, 3, 1>} : tensor<17x33x3x3xf32, #ge.layout<NCHW>> -> tensor<17x3x3x33xf32, #ge.layout<NHWC>>
  %d = ge.transpose %c {perm = array<i64: 0, 3, 1, 2>} : tensor<17x3x3x33xf32, #ge.layout<NHWC>> -> tensor<17x33x3x3xf32, #ge.layout<NCHW>>
  %e = ge.cast %d {dst_type = f16} : tensor<17x33x3x3xf32, #ge.layout<NCHW>> -> tensor<17x33x3x3xf16, #ge.layout<NCHW>>
  %f = ge.transdata %e {src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_Z>} : tensor<17x33x3x3xf16, #ge.layout<NCHW>> -> tensor<17x33x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
  %r = ge.relu %f : tensor<17x33x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>> -> tensor<17x33x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
  ge.netoutput %r : tensor<17x33x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
}

// -----

// GE: Data NHWC fp32 -> Cast -> Transpose -> TD(->5HD fp16): Cast first
// (fp32 -> fp16 in the head's layout), then the TransData. Here the middle
// op is a TransData to NHWC storage, as a transpose would change the origin.
// CHECK-LABEL: ge.graph @cast_first_fp32_to_fp16_5hd
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    [[C:%.*]] = ge.cast %x {dst_type = f16} : tensor<1x3x5x5xf32, #ge.layout<NCHW>> -> tensor<1x3x5x5xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    [[T:%.*]] = ge.transdata [[C]] {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x5x5xf16, #ge.layout<NCHW>> -> tensor<1x3x5x5xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[R:%.*]] = ge.relu [[T]]
// CHECK-NEXT:    ge.netoutput [[R]]
ge.graph @cast_first_fp32_to_fp16_5hd {
  %x = ge.data {index = 0 : i64} : tensor<1x3x5x5xf32, #ge.layout<NCHW>>
  %a = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NHWC>} : tensor<1x3x5x5xf32, #ge.layout<NCHW>> -> tensor<1x3x5x5xf32, #ge.layout<NCHW, NHWC>>
  %b = ge.cast %a {dst_type = f16} : tensor<1x3x5x5xf32, #ge.layout<NCHW, NHWC>> -> tensor<1x3x5x5xf16, #ge.layout<NCHW, NHWC>>
  %c = ge.transdata %b {src_format = #ge.format<NHWC>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x5x5xf16, #ge.layout<NCHW, NHWC>> -> tensor<1x3x5x5xf16, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.relu %c : tensor<1x3x5x5xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x5x5xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %r : tensor<1x3x5x5xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// GE: a FRACTAL_Z_C04 start: unchanged (a TransData reading it breaks the
// path).
// CHECK-LABEL: ge.graph @no_fusion_fractal_z_c04_start
// CHECK:         ge.transdata %x
// CHECK-NEXT:    ge.cast
// CHECK-NEXT:    ge.cast
// CHECK-NEXT:    ge.transdata
// CHECK-NEXT:    ge.relu
ge.graph @no_fusion_fractal_z_c04_start {
  %x = ge.data {index = 0 : i64} : tensor<16x3x3x3xf16, #ge.layout<NCHW, FRACTAL_Z_C04>>
  %a = ge.transdata %x {src_format = #ge.format<FRACTAL_Z_C04>, dst_format = #ge.format<NCHW>} : tensor<16x3x3x3xf16, #ge.layout<NCHW, FRACTAL_Z_C04>> -> tensor<16x3x3x3xf16, #ge.layout<NCHW>>
  %b = ge.cast %a {dst_type = f32} : tensor<16x3x3x3xf16, #ge.layout<NCHW>> -> tensor<16x3x3x3xf32, #ge.layout<NCHW>>
  %c = ge.cast %b {dst_type = f16} : tensor<16x3x3x3xf32, #ge.layout<NCHW>> -> tensor<16x3x3x3xf16, #ge.layout<NCHW>>
  %d = ge.transdata %c {src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_Z>} : tensor<16x3x3x3xf16, #ge.layout<NCHW>> -> tensor<16x3x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
  %r = ge.relu %d : tensor<16x3x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>> -> tensor<16x3x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
  ge.netoutput %r : tensor<16x3x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
}

// -----

// GE: an ND start: unchanged (the TransData reads ND).
// CHECK-LABEL: ge.graph @no_fusion_nd_start
// CHECK:         ge.cast %x
// CHECK-NEXT:    ge.cast
// CHECK-NEXT:    ge.transdata
// CHECK-NEXT:    ge.relu
ge.graph @no_fusion_nd_start {
  %x = ge.data {index = 0 : i64} : tensor<3x17x33xf16>
  %a = ge.cast %x {dst_type = f32} : tensor<3x17x33xf16> -> tensor<3x17x33xf32>
  %b = ge.cast %a {dst_type = f16} : tensor<3x17x33xf32> -> tensor<3x17x33xf16>
  %c = ge.transdata %b {src_format = #ge.format<ND>, dst_format = #ge.format<FRACTAL_NZ>} : tensor<3x17x33xf16> -> tensor<3x17x33xf16, #ge.layout<ND, FRACTAL_NZ>>
  %r = ge.relu %c : tensor<3x17x33xf16, #ge.layout<ND, FRACTAL_NZ>> -> tensor<3x17x33xf16, #ge.layout<ND, FRACTAL_NZ>>
  ge.netoutput %r : tensor<3x17x33xf16, #ge.layout<ND, FRACTAL_NZ>>
}

// -----

// GE: ND bool -> Cast(->fp32) -> Cast(->fp16) -> Relu: one Cast bool -> fp16
// (3 nodes).
// CHECK-LABEL: ge.graph @nd_bool_casts_fused
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    [[C:%.*]] = ge.cast %x {dst_type = f16} : tensor<2x17xi1> -> tensor<2x17xf16>
// CHECK-NEXT:    [[R:%.*]] = ge.relu [[C]]
// CHECK-NEXT:    ge.netoutput [[R]]
ge.graph @nd_bool_casts_fused {
  %x = ge.data {index = 0 : i64} : tensor<2x17xi1>
  %a = ge.cast %x {dst_type = f32} : tensor<2x17xi1> -> tensor<2x17xf32>
  %b = ge.cast %a {dst_type = f16} : tensor<2x17xf32> -> tensor<2x17xf16>
  %r = ge.relu %b : tensor<2x17xf16> -> tensor<2x17xf16>
  ge.netoutput %r : tensor<2x17xf16>
}

// -----

// GE: Casts fp32 -> int32 and int32 -> bool separated by Relu: unchanged
// (precision loss).
// CHECK-LABEL: ge.graph @no_fusion_precision_loss_around_relu
// CHECK:         ge.cast %x {dst_type = i32}
// CHECK-NEXT:    ge.relu
// CHECK-NEXT:    ge.cast {{.*}} {dst_type = i1}
ge.graph @no_fusion_precision_loss_around_relu {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %a = ge.cast %x {dst_type = i32} : tensor<2x3xf32> -> tensor<2x3xi32>
  %r = ge.relu %a : tensor<2x3xi32> -> tensor<2x3xi32>
  %b = ge.cast %r {dst_type = i1} : tensor<2x3xi32> -> tensor<2x3xi1>
  ge.netoutput %b : tensor<2x3xi1>
}
