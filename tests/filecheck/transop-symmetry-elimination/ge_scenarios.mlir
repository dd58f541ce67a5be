// RUN: ge-opt %s --split-input-file --transop-symmetry-elimination | filecheck %s

// GE's TransOpSymmetryEliminationPass unit-test scenarios
// (docs/research/ge_behaviour.md §5.3), in SSA form.

// GE: TransData(FZ->NCHW) -> TransData(HWCN->FZ) is kept because the formats
// are not continuous. An SSA edge is always continuous; the nearest case is a
// pair whose outer layouts differ (FRACTAL_Z -> NCHW -> NC1HWC0).
// CHECK-LABEL: ge.graph @no_transdata_formats_not_mirrored
// CHECK:         ge.transdata
// CHECK:         ge.transdata
// CHECK:         ge.netoutput
ge.graph @no_transdata_formats_not_mirrored {
  %x = ge.data {index = 0 : i64} : tensor<32x17x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
  %a = ge.transdata %x {src_format = #ge.format<FRACTAL_Z>, dst_format = #ge.format<NCHW>} : tensor<32x17x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>> -> tensor<32x17x3x3xf16, #ge.layout<NCHW>>
  %b = ge.transdata %a {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<32x17x3x3xf16, #ge.layout<NCHW>> -> tensor<32x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %b : tensor<32x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// GE: same storage shapes but origin shapes [16,1] vs [16,1,1,1] -> kept.
// Here TransData keeps the origin shape, so the difference is how the
// rank-1 origin expands (reshape type H vs W): same NC1HWC0 shape
// [1,1,1,1,16], different types.
// CHECK-LABEL: ge.graph @no_transdata_origin_shapes_differ
// CHECK:         [[A:%.*]] = ge.transdata %x
// CHECK-NEXT:    [[B:%.*]] = ge.transdata [[A]]
// CHECK-NEXT:    ge.netoutput [[B]]
ge.graph @no_transdata_origin_shapes_differ {
  %x = ge.data {index = 0 : i64} : tensor<1xf16, #ge.layout<NCHW, NC1HWC0, reshape_type = "H">>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1xf16, #ge.layout<NCHW, NC1HWC0, reshape_type = "H">> -> tensor<1xf16, #ge.layout<NCHW, NCHW, reshape_type = "H">>
  %b = ge.transdata %a {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1xf16, #ge.layout<NCHW, NCHW, reshape_type = "H">> -> tensor<1xf16, #ge.layout<NCHW, NC1HWC0, reshape_type = "W">>
  ge.netoutput %b : tensor<1xf16, #ge.layout<NCHW, NC1HWC0, reshape_type = "W">>
}

// -----

// GE: TransposeD NHWC -> NCHW -> NHWC, both removed (2 nodes left).
// CHECK-LABEL: ge.graph @transposed_nhwc_nchw_nhwc
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    ge.netoutput %x : tensor<1x8x8x3xf32, #ge.layout<NHWC>>
ge.graph @transposed_nhwc_nchw_nhwc {
  %x = ge.data {index = 0 : i64} : tensor<1x8x8x3xf32, #ge.layout<NHWC>>
  %a = ge.transpose %x {perm = array<i64: 0, 3, 1, 2>} : tensor<1x8x8x3xf32, #ge.layout<NHWC>> -> tensor<1x3x8x8xf32, #ge.layout<NCHW>>
  %b = ge.transpose %a {perm = array<i64: 0, 2, 3, 1>} : tensor<1x3x8x8xf32, #ge.layout<NCHW>> -> tensor<1x8x8x3xf32, #ge.layout<NHWC>>
  ge.netoutput %b : tensor<1x8x8x3xf32, #ge.layout<NHWC>>
}

// -----

// GE: Reshape pair NHWC [1,224,224,3] -> NCHW -> NHWC, both removed.
// CHECK-LABEL: ge.graph @reshape_nhwc_nchw_nhwc
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    ge.netoutput %x : tensor<1x8x8x3xf32, #ge.layout<NHWC>>
ge.graph @reshape_nhwc_nchw_nhwc {
  %x = ge.data {index = 0 : i64} : tensor<1x8x8x3xf32, #ge.layout<NHWC>>
  %a = ge.reshape %x : tensor<1x8x8x3xf32, #ge.layout<NHWC>> -> tensor<1x3x8x8xf32, #ge.layout<NCHW>>
  %b = ge.reshape %a : tensor<1x3x8x8xf32, #ge.layout<NCHW>> -> tensor<1x8x8x3xf32, #ge.layout<NHWC>>
  ge.netoutput %b : tensor<1x8x8x3xf32, #ge.layout<NHWC>>
}

// -----

// GE: Cast pair with the same dtypes and formats NHWC...NHWC, removed.
// fp16 -> fp32 is exact, so the round trip is the identity.
// CHECK-LABEL: ge.graph @cast_pair_nhwc
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %r = ge.relu %x
ge.graph @cast_pair_nhwc {
  %x = ge.data {index = 0 : i64} : tensor<1x4x4x17xf16, #ge.layout<NHWC>>
  %a = ge.cast %x {dst_type = f32} : tensor<1x4x4x17xf16, #ge.layout<NHWC>> -> tensor<1x4x4x17xf32, #ge.layout<NHWC>>
  %b = ge.cast %a {dst_type = f16} : tensor<1x4x4x17xf32, #ge.layout<NHWC>> -> tensor<1x4x4x17xf16, #ge.layout<NHWC>>
  %r = ge.relu %b : tensor<1x4x4x17xf16, #ge.layout<NHWC>> -> tensor<1x4x4x17xf16, #ge.layout<NHWC>>
  ge.netoutput %r : tensor<1x4x4x17xf16, #ge.layout<NHWC>>
}

// -----

// GE: SqueezeV2(axis [0]) -> UnsqueezeV2(axis [0]) on [1,1,-1,-1], removed.
// CHECK-LABEL: ge.graph @squeeze_unsqueeze_same_axis
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    ge.netoutput %x : tensor<1x1x?x?xf32>
ge.graph @squeeze_unsqueeze_same_axis {
  %x = ge.data {index = 0 : i64} : tensor<1x1x?x?xf32>
  %a = ge.squeeze %x {axes = array<i64: 0>} : tensor<1x1x?x?xf32> -> tensor<1x?x?xf32>
  %b = ge.unsqueeze %a {axes = array<i64: 0>} : tensor<1x?x?xf32> -> tensor<1x1x?x?xf32>
  ge.netoutput %b : tensor<1x1x?x?xf32>
}

// -----

// GE: axes [0] vs [1] -> kept (GE compares the axis lists).
// CHECK-LABEL: ge.graph @no_squeeze_unsqueeze_axes_differ
// CHECK:         ge.squeeze
// CHECK-NEXT:    ge.unsqueeze
ge.graph @no_squeeze_unsqueeze_axes_differ {
  %x = ge.data {index = 0 : i64} : tensor<1x1x?x?xf32>
  %a = ge.squeeze %x {axes = array<i64: 0>} : tensor<1x1x?x?xf32> -> tensor<1x?x?xf32>
  %b = ge.unsqueeze %a {axes = array<i64: 1>} : tensor<1x?x?xf32> -> tensor<1x1x?x?xf32>
  ge.netoutput %b : tensor<1x1x?x?xf32>
}

// -----

// GE DescAreSymmetry: 5HD [1,16,100,190,16] -> NCHW [1,256,100,190], reshape
// to [8,32,100,190], back to 5HD: symmetric. The reshape moves onto the
// NC1HWC0 value (its bytes do not change). H,W are 10x19 here.
// CHECK-LABEL: ge.graph @second_chance_5hd_nchw_5hd
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    [[R:%.*]] = ge.reshape %x : tensor<1x256x10x19xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<8x32x10x19xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    ge.netoutput [[R]]
ge.graph @second_chance_5hd_nchw_5hd {
  %x = ge.data {index = 0 : i64} : tensor<1x256x10x19xf16, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x256x10x19xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x256x10x19xf16, #ge.layout<NCHW>>
  %r = ge.reshape %a : tensor<1x256x10x19xf16, #ge.layout<NCHW>> -> tensor<8x32x10x19xf16, #ge.layout<NCHW>>
  %b = ge.transdata %r {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<8x32x10x19xf16, #ge.layout<NCHW>> -> tensor<8x32x10x19xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %b : tensor<8x32x10x19xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// GE: the same check in the reverse direction (NCHW -> 5HD -> reshape ->
// NCHW): symmetric. The reshape runs on the NCHW value.
// CHECK-LABEL: ge.graph @second_chance_nchw_5hd_nchw
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    [[R:%.*]] = ge.reshape %x : tensor<8x32x10x19xf16, #ge.layout<NCHW>> -> tensor<1x256x10x19xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    ge.netoutput [[R]]
ge.graph @second_chance_nchw_5hd_nchw {
  %x = ge.data {index = 0 : i64} : tensor<8x32x10x19xf16, #ge.layout<NCHW>>
  %a = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<8x32x10x19xf16, #ge.layout<NCHW>> -> tensor<8x32x10x19xf16, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.reshape %a : tensor<8x32x10x19xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x256x10x19xf16, #ge.layout<NCHW, NC1HWC0>>
  %b = ge.transdata %r {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x256x10x19xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x256x10x19xf16, #ge.layout<NCHW>>
  ge.netoutput %b : tensor<1x256x10x19xf16, #ge.layout<NCHW>>
}

// -----

// GE: the NHWC variant is not symmetric (only primary NCHW <-> NC1HWC0).
// CHECK-LABEL: ge.graph @no_second_chance_nhwc
// CHECK:         ge.transdata
// CHECK-NEXT:    ge.reshape
// CHECK-NEXT:    ge.transdata
ge.graph @no_second_chance_nhwc {
  %x = ge.data {index = 0 : i64} : tensor<1x10x19x256xf16, #ge.layout<NHWC, NC1HWC0>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NHWC>} : tensor<1x10x19x256xf16, #ge.layout<NHWC, NC1HWC0>> -> tensor<1x10x19x256xf16, #ge.layout<NHWC>>
  %r = ge.reshape %a : tensor<1x10x19x256xf16, #ge.layout<NHWC>> -> tensor<8x10x19x32xf16, #ge.layout<NHWC>>
  %b = ge.transdata %r {src_format = #ge.format<NHWC>, dst_format = #ge.format<NC1HWC0>} : tensor<8x10x19x32xf16, #ge.layout<NHWC>> -> tensor<8x10x19x32xf16, #ge.layout<NHWC, NC1HWC0>>
  ge.netoutput %b : tensor<8x10x19x32xf16, #ge.layout<NHWC, NC1HWC0>>
}

// -----

// GE: 5HD [1,1,100,190,16] -> NCHW [1,16,100,190], reshape [8,2,100,190] ->
// 5HD [8,1,100,190,16]: not symmetric, the element counts do not mirror.
// CHECK-LABEL: ge.graph @no_second_chance_counts_do_not_mirror
// CHECK:         ge.transdata
// CHECK-NEXT:    ge.reshape
// CHECK-NEXT:    ge.transdata
ge.graph @no_second_chance_counts_do_not_mirror {
  %x = ge.data {index = 0 : i64} : tensor<1x16x10x19xf16, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x16x10x19xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x16x10x19xf16, #ge.layout<NCHW>>
  %r = ge.reshape %a : tensor<1x16x10x19xf16, #ge.layout<NCHW>> -> tensor<8x2x10x19xf16, #ge.layout<NCHW>>
  %b = ge.transdata %r {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<8x2x10x19xf16, #ge.layout<NCHW>> -> tensor<8x2x10x19xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %b : tensor<8x2x10x19xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// GE: TransData NCHW->5HD, Reshape(5HD), TransData 5HD->NCHW, run with
// ReshapeRemovePass: both TransData removed. Here the reshape stays and
// moves to the NCHW value (a reshape of H,W with padded C: C equal).
// CHECK-LABEL: ge.graph @second_chance_padded_channels_same_c
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    [[R:%.*]] = ge.reshape %x : tensor<2x17x10x19xf16, #ge.layout<NCHW>> -> tensor<2x17x19x10xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    ge.netoutput [[R]]
ge.graph @second_chance_padded_channels_same_c {
  %x = ge.data {index = 0 : i64} : tensor<2x17x10x19xf16, #ge.layout<NCHW>>
  %a = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<2x17x10x19xf16, #ge.layout<NCHW>> -> tensor<2x17x10x19xf16, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.reshape %a : tensor<2x17x10x19xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<2x17x19x10xf16, #ge.layout<NCHW, NC1HWC0>>
  %b = ge.transdata %r {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<2x17x19x10xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<2x17x19x10xf16, #ge.layout<NCHW>>
  ge.netoutput %b : tensor<2x17x19x10xf16, #ge.layout<NCHW>>
}

// -----

// Element counts mirror (2x24 and 4x12 channels both pad to 64 blocks of
// H*W), but the channels are padded and C changes: the NC1HWC0 bytes
// differ, kept.
// CHECK-LABEL: ge.graph @no_second_chance_padded_channels_c_differs
// CHECK:         ge.transdata
// CHECK-NEXT:    ge.reshape
// CHECK-NEXT:    ge.transdata
ge.graph @no_second_chance_padded_channels_c_differs {
  %x = ge.data {index = 0 : i64} : tensor<2x24x10x19xf16, #ge.layout<NCHW>>
  %a = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<2x24x10x19xf16, #ge.layout<NCHW>> -> tensor<2x24x10x19xf16, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.reshape %a : tensor<2x24x10x19xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<4x12x10x19xf16, #ge.layout<NCHW, NC1HWC0>>
  %b = ge.transdata %r {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<4x12x10x19xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<4x12x10x19xf16, #ge.layout<NCHW>>
  ge.netoutput %b : tensor<4x12x10x19xf16, #ge.layout<NCHW>>
}

// -----

// GE: TransposeD perms [0,2,1,3] twice: symmetric (the perm is its own
// inverse).
// CHECK-LABEL: ge.graph @transposed_self_inverse_perm
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    ge.netoutput %x
ge.graph @transposed_self_inverse_perm {
  %x = ge.data {index = 0 : i64} : tensor<2x3x17x5xf32>
  %a = ge.transpose %x {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x17x5xf32> -> tensor<2x17x3x5xf32>
  %b = ge.transpose %a {perm = array<i64: 0, 2, 1, 3>} : tensor<2x17x3x5xf32> -> tensor<2x3x17x5xf32>
  ge.netoutput %b : tensor<2x3x17x5xf32>
}

// -----

// GE: perm lengths 4 vs 2 -> not symmetric. Ranks cannot differ in SSA; the
// nearest case is two perms that do not compose to the identity, even
// though the shapes come back ([3,3,3,3]).
// CHECK-LABEL: ge.graph @no_transposed_not_inverse
// CHECK:         ge.transpose
// CHECK-NEXT:    ge.transpose
ge.graph @no_transposed_not_inverse {
  %x = ge.data {index = 0 : i64} : tensor<3x3x3x3xf32>
  %a = ge.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<3x3x3x3xf32> -> tensor<3x3x3x3xf32>
  %b = ge.transpose %a {perm = array<i64: 0, 2, 3, 1>} : tensor<3x3x3x3xf32> -> tensor<3x3x3x3xf32>
  ge.netoutput %b : tensor<3x3x3x3xf32>
}
