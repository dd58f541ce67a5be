// RUN: ge-opt %s --split-input-file --transop-symmetry-elimination | filecheck %s

// Inverse pairs beyond GE's unit tests: the precision guard, several
// consumers, nesting, odd channel counts, subgraphs.

// fp32 -> fp16 -> fp32 rounds: kept (stricter than GE's table).
// CHECK-LABEL: ge.graph @no_cast_pair_fp32_fp16_fp32
// CHECK:         ge.cast %x {dst_type = f16}
// CHECK-NEXT:    ge.cast
ge.graph @no_cast_pair_fp32_fp16_fp32 {
  %x = ge.data {index = 0 : i64} : tensor<2x17xf32>
  %a = ge.cast %x {dst_type = f16} : tensor<2x17xf32> -> tensor<2x17xf16>
  %b = ge.cast %a {dst_type = f32} : tensor<2x17xf16> -> tensor<2x17xf32>
  ge.netoutput %b : tensor<2x17xf32>
}

// -----

// float -> int32 is in GE's precision-loss table: kept.
// CHECK-LABEL: ge.graph @no_cast_pair_float_int_float
// CHECK:         ge.cast %x {dst_type = i32}
// CHECK-NEXT:    ge.cast
ge.graph @no_cast_pair_float_int_float {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf16>
  %a = ge.cast %x {dst_type = i32} : tensor<2x3xf16> -> tensor<2x3xi32>
  %b = ge.cast %a {dst_type = f16} : tensor<2x3xi32> -> tensor<2x3xf16>
  ge.netoutput %b : tensor<2x3xf16>
}

// -----

// int8 -> fp16 holds every int8 exactly: removed.
// CHECK-LABEL: ge.graph @cast_pair_int8_fp16_int8
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    ge.netoutput %x
ge.graph @cast_pair_int8_fp16_int8 {
  %x = ge.data {index = 0 : i64} : tensor<33xi8>
  %a = ge.cast %x {dst_type = f16} : tensor<33xi8> -> tensor<33xf16>
  %b = ge.cast %a {dst_type = i8} : tensor<33xf16> -> tensor<33xi8>
  ge.netoutput %b : tensor<33xi8>
}

// -----

// A cast pair in NC1HWC0 (C0 follows the dtype: 16 for fp16, 8 for fp32).
// CHECK-LABEL: ge.graph @cast_pair_nc1hwc0
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    ge.netoutput %x
ge.graph @cast_pair_nc1hwc0 {
  %x = ge.data {index = 0 : i64} : tensor<1x33x2x3xf16, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.cast %x {dst_type = f32} : tensor<1x33x2x3xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x33x2x3xf32, #ge.layout<NCHW, NC1HWC0>>
  %b = ge.cast %a {dst_type = f16} : tensor<1x33x2x3xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x33x2x3xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %b : tensor<1x33x2x3xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// The first TransData has another consumer: only the second goes.
// CHECK-LABEL: ge.graph @transdata_pair_first_shared
// CHECK:         [[A:%.*]] = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>}
// CHECK-NEXT:    [[R:%.*]] = ge.relu [[A]]
// CHECK-NEXT:    [[S:%.*]] = ge.sigmoid %x
// CHECK-NEXT:    ge.netoutput [[R]], [[S]]
ge.graph @transdata_pair_first_shared {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf16, #ge.layout<NCHW>>
  %a = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x4x4xf16, #ge.layout<NCHW>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.relu %a : tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %b = ge.transdata %a {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW>>
  %s = ge.sigmoid %b : tensor<1x3x4x4xf16, #ge.layout<NCHW>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW>>
  ge.netoutput %r, %s : tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<1x3x4x4xf16, #ge.layout<NCHW>>
}

// -----

// Two inverse consumers: both go, and then the first TransData.
// CHECK-LABEL: ge.graph @transdata_two_inverse_consumers
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    [[R:%.*]] = ge.relu %x
// CHECK-NEXT:    [[S:%.*]] = ge.sigmoid %x
// CHECK-NEXT:    ge.netoutput [[R]], [[S]]
ge.graph @transdata_two_inverse_consumers {
  %x = ge.data {index = 0 : i64} : tensor<2x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<2x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<2x17x3x3xf32, #ge.layout<NCHW>>
  %b = ge.transdata %a {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<2x17x3x3xf32, #ge.layout<NCHW>> -> tensor<2x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  %c = ge.transdata %a {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<2x17x3x3xf32, #ge.layout<NCHW>> -> tensor<2x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.relu %b : tensor<2x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<2x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  %s = ge.sigmoid %c : tensor<2x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<2x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %r, %s : tensor<2x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<2x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// Nested pairs cancel from the inside out: cast, TransData, TransData, cast.
// CHECK-LABEL: ge.graph @nested_pairs
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    ge.netoutput %x
ge.graph @nested_pairs {
  %x = ge.data {index = 0 : i64} : tensor<1x3x5x5xf16, #ge.layout<NCHW>>
  %a = ge.cast %x {dst_type = f32} : tensor<1x3x5x5xf16, #ge.layout<NCHW>> -> tensor<1x3x5x5xf32, #ge.layout<NCHW>>
  %b = ge.transdata %a {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x5x5xf32, #ge.layout<NCHW>> -> tensor<1x3x5x5xf32, #ge.layout<NCHW, NC1HWC0>>
  %c = ge.transdata %b {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x3x5x5xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x5x5xf32, #ge.layout<NCHW>>
  %d = ge.cast %c {dst_type = f16} : tensor<1x3x5x5xf32, #ge.layout<NCHW>> -> tensor<1x3x5x5xf16, #ge.layout<NCHW>>
  ge.netoutput %d : tensor<1x3x5x5xf16, #ge.layout<NCHW>>
}

// -----

// FRACTAL_Z and FRACTAL_NZ round trips with odd sizes.
// CHECK-LABEL: ge.graph @fractal_round_trips
// CHECK-NEXT:    %w = ge.data
// CHECK-NEXT:    %m = ge.data
// CHECK-NEXT:    ge.netoutput %w, %m
ge.graph @fractal_round_trips {
  %w = ge.data {index = 0 : i64} : tensor<33x17x3x3xf16, #ge.layout<NCHW>>
  %m = ge.data {index = 1 : i64} : tensor<3x17x33xf16>
  %wz = ge.transdata %w {src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_Z>} : tensor<33x17x3x3xf16, #ge.layout<NCHW>> -> tensor<33x17x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
  %wb = ge.transdata %wz {src_format = #ge.format<FRACTAL_Z>, dst_format = #ge.format<NCHW>} : tensor<33x17x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>> -> tensor<33x17x3x3xf16, #ge.layout<NCHW>>
  %mz = ge.transdata %m {src_format = #ge.format<ND>, dst_format = #ge.format<FRACTAL_NZ>} : tensor<3x17x33xf16> -> tensor<3x17x33xf16, #ge.layout<ND, FRACTAL_NZ>>
  %mb = ge.transdata %mz {src_format = #ge.format<FRACTAL_NZ>, dst_format = #ge.format<ND>} : tensor<3x17x33xf16, #ge.layout<ND, FRACTAL_NZ>> -> tensor<3x17x33xf16>
  ge.netoutput %wb, %mb : tensor<33x17x3x3xf16, #ge.layout<NCHW>>, tensor<3x17x33xf16>
}

// -----

// Grouped FRACTAL_Z: a type does not carry the groups, kept.
// CHECK-LABEL: ge.graph @no_transdata_grouped
// CHECK:         ge.transdata
// CHECK-NEXT:    ge.transdata
ge.graph @no_transdata_grouped {
  %w = ge.data {index = 0 : i64} : tensor<8x4x3x3xf16, #ge.layout<NCHW>>
  %wz = ge.transdata %w {src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_Z>, groups = 2 : i64} : tensor<8x4x3x3xf16, #ge.layout<NCHW>> -> tensor<8x4x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
  %wb = ge.transdata %wz {src_format = #ge.format<FRACTAL_Z>, dst_format = #ge.format<NCHW>, groups = 2 : i64} : tensor<8x4x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>> -> tensor<8x4x3x3xf16, #ge.layout<NCHW>>
  ge.netoutput %wb : tensor<8x4x3x3xf16, #ge.layout<NCHW>>
}

// -----

// ge.permute is a transpose (GE's PermutePass makes it a TransposeD).
// CHECK-LABEL: ge.graph @permute_transpose_pair
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    ge.netoutput %x
ge.graph @permute_transpose_pair {
  %x = ge.data {index = 0 : i64} : tensor<2x3x4xf32>
  %a = ge.permute %x {order = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %b = ge.transpose %a {perm = array<i64: 1, 2, 0>} : tensor<4x2x3xf32> -> tensor<2x3x4xf32>
  ge.netoutput %b : tensor<2x3x4xf32>
}

// -----

// Unsqueeze then squeeze of the same (negative) axis.
// CHECK-LABEL: ge.graph @unsqueeze_squeeze_pair
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    ge.netoutput %x
ge.graph @unsqueeze_squeeze_pair {
  %x = ge.data {index = 0 : i64} : tensor<17x3xf32>
  %a = ge.unsqueeze %x {axes = array<i64: -1>} : tensor<17x3xf32> -> tensor<17x3x1xf32>
  %b = ge.squeeze %a {axes = array<i64: 2>} : tensor<17x3x1xf32> -> tensor<17x3xf32>
  ge.netoutput %b : tensor<17x3xf32>
}

// -----

// A reshape that does not come back to the original shape: kept.
// CHECK-LABEL: ge.graph @no_reshape_not_back
// CHECK:         ge.reshape
// CHECK-NEXT:    ge.reshape
ge.graph @no_reshape_not_back {
  %x = ge.data {index = 0 : i64} : tensor<2x3x4xf32>
  %a = ge.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %b = ge.reshape %a : tensor<6x4xf32> -> tensor<3x8xf32>
  ge.netoutput %b : tensor<3x8xf32>
}

// -----

// Different kinds (a transpose and a reshape with matching types): kept.
// CHECK-LABEL: ge.graph @no_transpose_then_reshape
// CHECK:         ge.transpose
// CHECK-NEXT:    ge.reshape
ge.graph @no_transpose_then_reshape {
  %x = ge.data {index = 0 : i64} : tensor<3x17xf32>
  %a = ge.transpose %x {perm = array<i64: 1, 0>} : tensor<3x17xf32> -> tensor<17x3xf32>
  %b = ge.reshape %a : tensor<17x3xf32> -> tensor<3x17xf32>
  ge.netoutput %b : tensor<3x17xf32>
}

// -----

// A pair inside a partitioned call's subgraph.
// CHECK-LABEL: ge.graph @pair_in_subgraph
// CHECK:         ge.partitioned_call
// CHECK-NEXT:      [[D:%.*]] = ge.data {parent_index = 0 : i64}
// CHECK-NEXT:      [[R:%.*]] = ge.relu [[D]]
// CHECK-NEXT:      ge.netoutput [[R]]
ge.graph @pair_in_subgraph {
  %x = ge.data {index = 0 : i64} : tensor<1x3x2x2xf16, #ge.layout<NCHW>>
  %y = ge.partitioned_call %x : (tensor<1x3x2x2xf16, #ge.layout<NCHW>>) -> tensor<1x3x2x2xf16, #ge.layout<NCHW>> {
    %d = ge.data {parent_index = 0 : i64} : tensor<1x3x2x2xf16, #ge.layout<NCHW>>
    %a = ge.transdata %d {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x2x2xf16, #ge.layout<NCHW>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
    %b = ge.transdata %a {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW>>
    %r = ge.relu %b : tensor<1x3x2x2xf16, #ge.layout<NCHW>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW>>
    ge.netoutput %r : tensor<1x3x2x2xf16, #ge.layout<NCHW>>
  }
  ge.netoutput %y : tensor<1x3x2x2xf16, #ge.layout<NCHW>>
}
