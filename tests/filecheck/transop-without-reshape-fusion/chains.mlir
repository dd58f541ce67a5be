// RUN: ge-opt %s --split-input-file --transop-without-reshape-fusion | filecheck %s

// Chains beyond GE's unit tests: the rules this IR adds, the TransData-first
// order, branches and graph outputs.

// A cast that rounds (fp32 -> fp16) before the last cast: the casts do not
// compose into one, kept (beyond GE).
// CHECK-LABEL: ge.graph @no_fusion_inner_cast_rounds
// CHECK:         ge.cast %x {dst_type = f16}
// CHECK-NEXT:    ge.transdata
// CHECK-NEXT:    ge.cast
// CHECK-NEXT:    ge.relu
ge.graph @no_fusion_inner_cast_rounds {
  %x = ge.data {index = 0 : i64} : tensor<1x17x3x3xf32, #ge.layout<NCHW>>
  %a = ge.cast %x {dst_type = f16} : tensor<1x17x3x3xf32, #ge.layout<NCHW>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW>>
  %b = ge.transdata %a {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x3x3xf16, #ge.layout<NCHW>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
  %c = ge.cast %b {dst_type = f32} : tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.relu %c : tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %r : tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// The last cast may round: fp16 -> fp32 (exact), TransData, fp32 -> fp16.
// The dtypes agree, so one TransData is left.
// CHECK-LABEL: ge.graph @last_cast_may_round
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    [[T:%.*]] = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x3x3xf16, #ge.layout<NCHW>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    ge.relu [[T]]
ge.graph @last_cast_may_round {
  %x = ge.data {index = 0 : i64} : tensor<1x17x3x3xf16, #ge.layout<NCHW>>
  %a = ge.cast %x {dst_type = f32} : tensor<1x17x3x3xf16, #ge.layout<NCHW>> -> tensor<1x17x3x3xf32, #ge.layout<NCHW>>
  %b = ge.transdata %a {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x3x3xf32, #ge.layout<NCHW>> -> tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  %c = ge.cast %b {dst_type = f16} : tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.relu %c : tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %r : tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// The target is not fp16: TransData first, then the Cast (in the target
// layout).
// CHECK-LABEL: ge.graph @transdata_first_fp16_to_fp32
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    [[T:%.*]] = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<2x33x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<2x33x2x2xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    [[C:%.*]] = ge.cast [[T]] {dst_type = f32} : tensor<2x33x2x2xf16, #ge.layout<NCHW>> -> tensor<2x33x2x2xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    ge.netoutput [[C]]
ge.graph @transdata_first_fp16_to_fp32 {
  %x = ge.data {index = 0 : i64} : tensor<2x33x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.cast %x {dst_type = f32} : tensor<2x33x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<2x33x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  %b = ge.transdata %a {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NHWC>} : tensor<2x33x2x2xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<2x33x2x2xf32, #ge.layout<NCHW, NHWC>>
  %c = ge.transdata %b {src_format = #ge.format<NHWC>, dst_format = #ge.format<NCHW>} : tensor<2x33x2x2xf32, #ge.layout<NCHW, NHWC>> -> tensor<2x33x2x2xf32, #ge.layout<NCHW>>
  ge.netoutput %c : tensor<2x33x2x2xf32, #ge.layout<NCHW>>
}

// -----

// Transposes whose labels return to NCHW but whose perms do not compose to
// the identity (all spatial dims are 3): kept, a TransData cannot permute.
// CHECK-LABEL: ge.graph @no_fusion_transposes_not_identity
// CHECK:         ge.transpose %x
// CHECK-NEXT:    ge.transpose
// CHECK-NEXT:    ge.transdata
ge.graph @no_fusion_transposes_not_identity {
  %x = ge.data {index = 0 : i64} : tensor<2x3x3x3xf16, #ge.layout<NCHW>>
  %a = ge.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<2x3x3x3xf16, #ge.layout<NCHW>> -> tensor<2x3x3x3xf16, #ge.layout<NHWC>>
  %b = ge.transpose %a {perm = array<i64: 0, 2, 3, 1>} : tensor<2x3x3x3xf16, #ge.layout<NHWC>> -> tensor<2x3x3x3xf16, #ge.layout<NCHW>>
  %c = ge.transdata %b {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<2x3x3x3xf16, #ge.layout<NCHW>> -> tensor<2x3x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %c : tensor<2x3x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// A shared prefix with two fusable branches: each consumer gets its own
// result and the shared ops go.
// CHECK-LABEL: ge.graph @two_branches_fused
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    [[R:%.*]] = ge.relu %x
// CHECK-NEXT:    [[T:%.*]] = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<FRACTAL_Z>}
// CHECK-NEXT:    [[S:%.*]] = ge.sigmoid [[T]]
// CHECK-NEXT:    ge.netoutput [[R]], [[S]]
ge.graph @two_branches_fused {
  %x = ge.data {index = 0 : i64} : tensor<17x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<17x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<17x3x2x2xf16, #ge.layout<NCHW>>
  %b = ge.cast %a {dst_type = f32} : tensor<17x3x2x2xf16, #ge.layout<NCHW>> -> tensor<17x3x2x2xf32, #ge.layout<NCHW>>
  %c = ge.cast %b {dst_type = f16} : tensor<17x3x2x2xf32, #ge.layout<NCHW>> -> tensor<17x3x2x2xf16, #ge.layout<NCHW>>
  %d = ge.transdata %c {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<17x3x2x2xf16, #ge.layout<NCHW>> -> tensor<17x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.relu %d : tensor<17x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<17x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %e = ge.transdata %c {src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_Z>} : tensor<17x3x2x2xf16, #ge.layout<NCHW>> -> tensor<17x3x2x2xf16, #ge.layout<NCHW, FRACTAL_Z>>
  %s = ge.sigmoid %e : tensor<17x3x2x2xf16, #ge.layout<NCHW, FRACTAL_Z>> -> tensor<17x3x2x2xf16, #ge.layout<NCHW, FRACTAL_Z>>
  ge.netoutput %r, %s : tensor<17x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<17x3x2x2xf16, #ge.layout<NCHW, FRACTAL_Z>>
}

// -----

// The graph output is the consumer: it reads the head directly.
// CHECK-LABEL: ge.graph @chain_into_graph_output
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    ge.netoutput %x, %x
ge.graph @chain_into_graph_output {
  %x = ge.data {index = 0 : i64} : tensor<1x3x2x2xf32, #ge.layout<NCHW>>
  %a = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x2x2xf32, #ge.layout<NCHW>> -> tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  %b = ge.transdata %a {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf32, #ge.layout<NCHW>>
  ge.netoutput %b, %b : tensor<1x3x2x2xf32, #ge.layout<NCHW>>, tensor<1x3x2x2xf32, #ge.layout<NCHW>>
}

// -----

// A grouped TransData on the path: kept.
// CHECK-LABEL: ge.graph @no_fusion_grouped_transdata
// CHECK:         ge.transdata %x
// CHECK-NEXT:    ge.transdata
ge.graph @no_fusion_grouped_transdata {
  %x = ge.data {index = 0 : i64} : tensor<8x4x3x3xf16, #ge.layout<NCHW>>
  %a = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_Z>, groups = 2 : i64} : tensor<8x4x3x3xf16, #ge.layout<NCHW>> -> tensor<8x4x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
  %b = ge.transdata %a {src_format = #ge.format<FRACTAL_Z>, dst_format = #ge.format<NCHW>, groups = 2 : i64} : tensor<8x4x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>> -> tensor<8x4x3x3xf16, #ge.layout<NCHW>>
  ge.netoutput %b : tensor<8x4x3x3xf16, #ge.layout<NCHW>>
}

// -----

// A chain inside a subgraph, from its ge.data.
// CHECK-LABEL: ge.graph @chain_in_subgraph
// CHECK:           [[D:%.*]] = ge.data {parent_index = 0 : i64}
// CHECK-NEXT:      [[C:%.*]] = ge.cast [[D]] {dst_type = f16} : tensor<1x17x2x2xf32, #ge.layout<NCHW>> -> tensor<1x17x2x2xf16, #ge.layout<NCHW>>
// CHECK-NEXT:      [[T:%.*]] = ge.transdata [[C]] {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>}
// CHECK-NEXT:      ge.netoutput [[T]]
ge.graph @chain_in_subgraph {
  %x = ge.data {index = 0 : i64} : tensor<1x17x2x2xf32, #ge.layout<NCHW>>
  %y = ge.partitioned_call %x : (tensor<1x17x2x2xf32, #ge.layout<NCHW>>) -> tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>> {
    %d = ge.data {parent_index = 0 : i64} : tensor<1x17x2x2xf32, #ge.layout<NCHW>>
    %a = ge.transdata %d {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x2x2xf32, #ge.layout<NCHW>> -> tensor<1x17x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
    %b = ge.transdata %a {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NHWC>} : tensor<1x17x2x2xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x2x2xf32, #ge.layout<NCHW, NHWC>>
    %c = ge.cast %b {dst_type = f16} : tensor<1x17x2x2xf32, #ge.layout<NCHW, NHWC>> -> tensor<1x17x2x2xf16, #ge.layout<NCHW, NHWC>>
    %e = ge.transdata %c {src_format = #ge.format<NHWC>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x2x2xf16, #ge.layout<NCHW, NHWC>> -> tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
    ge.netoutput %e : tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  }
  ge.netoutput %y : tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
}
