// RUN: ge-opt %s --split-input-file --fuse-confusion-transpose | filecheck %s

// A head split (reshape [B,S,H] -> [B,S,N,D], transpose (0,2,1,3)) between
// FRACTAL_NZ tensors, D = 8 fp32 lanes = C0: one confusion transpose, NZ in
// and out, named after the two ops; the TransData pair goes.
// CHECK-LABEL: ge.graph @head_split
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %[[Q:.*]] = ge.confusion_transpose %x {perm = array<i64: 0, 2, 1, 3>, shape = array<i64: 2, 11, 4, 8>, name = "splittrans"} : tensor<2x11x32xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x4x11x8xf32, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    ge.netoutput %[[Q]]
ge.graph @head_split {
  %x = ge.data {index = 0 : i64} : tensor<2x11x32xf32, #ge.layout<ND, FRACTAL_NZ>>
  %a = ge.transdata %x {src_format = #ge.format<FRACTAL_NZ>, dst_format = #ge.format<ND>} : tensor<2x11x32xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x11x32xf32>
  %r = ge.reshape %a {shape = array<i64: 2, 11, 4, 8>, name = "split"} : tensor<2x11x32xf32> -> tensor<2x11x4x8xf32>
  %t = ge.transpose %r {perm = array<i64: 0, 2, 1, 3>, name = "trans"} : tensor<2x11x4x8xf32> -> tensor<2x4x11x8xf32>
  %b = ge.transdata %t {src_format = #ge.format<ND>, dst_format = #ge.format<FRACTAL_NZ>} : tensor<2x4x11x8xf32> -> tensor<2x4x11x8xf32, #ge.layout<ND, FRACTAL_NZ>>
  ge.netoutput %b : tensor<2x4x11x8xf32, #ge.layout<ND, FRACTAL_NZ>>
}

// -----

// A head merge (transpose first): transpose_first = true, shape the merged
// [B,S,H]; fp16 heads of 16 lanes = C0.
// CHECK-LABEL: ge.graph @head_merge
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %[[M:.*]] = ge.confusion_transpose %x {perm = array<i64: 0, 2, 1, 3>, shape = array<i64: 3, 17, 48>, transpose_first = true} : tensor<3x3x17x16xf16, #ge.layout<NCHW, FRACTAL_NZ>> -> tensor<3x17x48xf16, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    ge.netoutput %[[M]]
ge.graph @head_merge {
  %x = ge.data {index = 0 : i64} : tensor<3x3x17x16xf16, #ge.layout<NCHW, FRACTAL_NZ>>
  %a = ge.transdata %x {src_format = #ge.format<FRACTAL_NZ>, dst_format = #ge.format<NCHW>} : tensor<3x3x17x16xf16, #ge.layout<NCHW, FRACTAL_NZ>> -> tensor<3x3x17x16xf16, #ge.layout<NCHW>>
  %t = ge.transpose %a {perm = array<i64: 0, 2, 1, 3>} : tensor<3x3x17x16xf16, #ge.layout<NCHW>> -> tensor<3x17x3x16xf16>
  %r = ge.reshape %t {shape = array<i64: 3, 17, 48>} : tensor<3x17x3x16xf16> -> tensor<3x17x48xf16>
  %b = ge.transdata %r {src_format = #ge.format<ND>, dst_format = #ge.format<FRACTAL_NZ>} : tensor<3x17x48xf16> -> tensor<3x17x48xf16, #ge.layout<ND, FRACTAL_NZ>>
  ge.netoutput %b : tensor<3x17x48xf16, #ge.layout<ND, FRACTAL_NZ>>
}

// -----

// A lone reshape that folds rows of whole fractals ([2,16,32] -> [32,32]):
// a confusion transpose with the identity perm.
// CHECK-LABEL: ge.graph @rows_merged
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %[[R:.*]] = ge.confusion_transpose %x {perm = array<i64: 0, 1>, shape = array<i64: 32, 32>}
// CHECK-NEXT:    ge.netoutput %[[R]]
ge.graph @rows_merged {
  %x = ge.data {index = 0 : i64} : tensor<2x16x32xf32, #ge.layout<ND, FRACTAL_NZ>>
  %a = ge.transdata %x {src_format = #ge.format<FRACTAL_NZ>, dst_format = #ge.format<ND>} : tensor<2x16x32xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x16x32xf32>
  %r = ge.reshape %a {shape = array<i64: 32, 32>} : tensor<2x16x32xf32> -> tensor<32x32xf32>
  %b = ge.transdata %r {src_format = #ge.format<ND>, dst_format = #ge.format<FRACTAL_NZ>} : tensor<32x32xf32> -> tensor<32x32xf32, #ge.layout<ND, FRACTAL_NZ>>
  ge.netoutput %b : tensor<32x32xf32, #ge.layout<ND, FRACTAL_NZ>>
}

// -----

// Heads of 12 fp16 lanes (C0 = 16) split fractals: the pair stays, exactly
// one TransData in and one out.
// CHECK-LABEL: ge.graph @no_fusion_heads_split_fractals
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %a = ge.transdata %x
// CHECK-NEXT:    %r = ge.reshape %a
// CHECK-NEXT:    %t = ge.transpose %r
// CHECK-NEXT:    %b = ge.transdata %t
// CHECK-NOT:     ge.confusion_transpose
ge.graph @no_fusion_heads_split_fractals {
  %x = ge.data {index = 0 : i64} : tensor<2x11x48xf16, #ge.layout<ND, FRACTAL_NZ>>
  %a = ge.transdata %x {src_format = #ge.format<FRACTAL_NZ>, dst_format = #ge.format<ND>} : tensor<2x11x48xf16, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x11x48xf16>
  %r = ge.reshape %a {shape = array<i64: 2, 11, 4, 12>} : tensor<2x11x48xf16> -> tensor<2x11x4x12xf16>
  %t = ge.transpose %r {perm = array<i64: 0, 2, 1, 3>} : tensor<2x11x4x12xf16> -> tensor<2x4x11x12xf16>
  %b = ge.transdata %t {src_format = #ge.format<ND>, dst_format = #ge.format<FRACTAL_NZ>} : tensor<2x4x11x12xf16> -> tensor<2x4x11x12xf16, #ge.layout<ND, FRACTAL_NZ>>
  ge.netoutput %b : tensor<2x4x11x12xf16, #ge.layout<ND, FRACTAL_NZ>>
}

// -----

// A transpose of the two matrix axes moves lanes inside a fractal: no fusion.
// CHECK-LABEL: ge.graph @no_fusion_matrix_transpose
// CHECK:         ge.transpose
// CHECK-NOT:     ge.confusion_transpose
ge.graph @no_fusion_matrix_transpose {
  %x = ge.data {index = 0 : i64} : tensor<2x16x16xf16, #ge.layout<ND, FRACTAL_NZ>>
  %a = ge.transdata %x {src_format = #ge.format<FRACTAL_NZ>, dst_format = #ge.format<ND>} : tensor<2x16x16xf16, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x16x16xf16>
  %t = ge.transpose %a {perm = array<i64: 0, 2, 1>} : tensor<2x16x16xf16> -> tensor<2x16x16xf16>
  %b = ge.transdata %t {src_format = #ge.format<ND>, dst_format = #ge.format<FRACTAL_NZ>} : tensor<2x16x16xf16> -> tensor<2x16x16xf16, #ge.layout<ND, FRACTAL_NZ>>
  ge.netoutput %b : tensor<2x16x16xf16, #ge.layout<ND, FRACTAL_NZ>>
}

// -----

// The reshaped value is also an output: fusing would compute it twice.
// CHECK-LABEL: ge.graph @no_fusion_other_user
// CHECK:         ge.reshape
// CHECK:         ge.transpose
// CHECK-NOT:     ge.confusion_transpose
ge.graph @no_fusion_other_user {
  %x = ge.data {index = 0 : i64} : tensor<2x11x32xf32, #ge.layout<ND, FRACTAL_NZ>>
  %a = ge.transdata %x {src_format = #ge.format<FRACTAL_NZ>, dst_format = #ge.format<ND>} : tensor<2x11x32xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x11x32xf32>
  %r = ge.reshape %a {shape = array<i64: 2, 11, 4, 8>} : tensor<2x11x32xf32> -> tensor<2x11x4x8xf32>
  %t = ge.transpose %r {perm = array<i64: 0, 2, 1, 3>} : tensor<2x11x4x8xf32> -> tensor<2x4x11x8xf32>
  %b = ge.transdata %t {src_format = #ge.format<ND>, dst_format = #ge.format<FRACTAL_NZ>} : tensor<2x4x11x8xf32> -> tensor<2x4x11x8xf32, #ge.layout<ND, FRACTAL_NZ>>
  ge.netoutput %b, %r : tensor<2x4x11x8xf32, #ge.layout<ND, FRACTAL_NZ>>, tensor<2x11x4x8xf32>
}

// -----

// Between NC1HWC0 tensors no confusion transpose (only FRACTAL_NZ chains
// fuse so); this chain is a channel shuffle, which becomes one
// ge.channel_shuffle (channel_shuffle.mlir).
// CHECK-LABEL: ge.graph @no_fusion_not_fractal_nz
// CHECK-NOT:     ge.confusion_transpose
// CHECK:         ge.channel_shuffle %x {groups = 2 : i64}
// CHECK-NOT:     ge.confusion_transpose
ge.graph @no_fusion_not_fractal_nz {
  %x = ge.data {index = 0 : i64} : tensor<1x32x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x32x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x32x4x4xf16, #ge.layout<NCHW>>
  %r = ge.reshape %a {shape = array<i64: 1, 2, 16, 4, 4>} : tensor<1x32x4x4xf16, #ge.layout<NCHW>> -> tensor<1x2x16x4x4xf16>
  %t = ge.transpose %r {perm = array<i64: 0, 2, 1, 3, 4>} : tensor<1x2x16x4x4xf16> -> tensor<1x16x2x4x4xf16>
  %s = ge.reshape %t {shape = array<i64: 1, 32, 4, 4>} : tensor<1x16x2x4x4xf16> -> tensor<1x32x4x4xf16, #ge.layout<NCHW>>
  %b = ge.transdata %s {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x32x4x4xf16, #ge.layout<NCHW>> -> tensor<1x32x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %b : tensor<1x32x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// An exporter's head merge in three steps: a reshape to the shape it starts
// from (torch's `view(B, -1, S, D)`), the transpose, the merging reshape.
// The first reshape changes nothing, so the chain is one confusion
// transpose (the names of all three ops).
// CHECK-LABEL: ge.graph @head_merge_after_same_shape_reshape
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %[[M:.*]] = ge.confusion_transpose %x {perm = array<i64: 0, 2, 1, 3>, shape = array<i64: 2, 11, 64>, transpose_first = true, name = "viewtransmerge"} : tensor<2x4x11x16xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x11x64xf32, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    ge.netoutput %[[M]]
ge.graph @head_merge_after_same_shape_reshape {
  %x = ge.data {index = 0 : i64} : tensor<2x4x11x16xf32, #ge.layout<ND, FRACTAL_NZ>>
  %a = ge.transdata %x {src_format = #ge.format<FRACTAL_NZ>, dst_format = #ge.format<ND>} : tensor<2x4x11x16xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x4x11x16xf32>
  %v = ge.reshape %a {shape = array<i64: 2, -1, 11, 16>, name = "view"} : tensor<2x4x11x16xf32> -> tensor<2x4x11x16xf32>
  %t = ge.transpose %v {perm = array<i64: 0, 2, 1, 3>, name = "trans"} : tensor<2x4x11x16xf32> -> tensor<2x11x4x16xf32>
  %r = ge.reshape %t {shape = array<i64: 2, 11, -1>, name = "merge"} : tensor<2x11x4x16xf32> -> tensor<2x11x64xf32>
  %b = ge.transdata %r {src_format = #ge.format<ND>, dst_format = #ge.format<FRACTAL_NZ>} : tensor<2x11x64xf32> -> tensor<2x11x64xf32, #ge.layout<ND, FRACTAL_NZ>>
  ge.netoutput %b : tensor<2x11x64xf32, #ge.layout<ND, FRACTAL_NZ>>
}

// -----

// A reshape that does regroup axes before the transpose and the merge is a
// third step: no single confusion transpose does it; the pair stays.
// CHECK-LABEL: ge.graph @no_fusion_three_steps
// CHECK:         ge.transdata
// CHECK-NEXT:    ge.reshape
// CHECK-NEXT:    ge.transpose
// CHECK-NEXT:    ge.reshape
// CHECK-NEXT:    ge.transdata
// CHECK-NOT:     ge.confusion_transpose
ge.graph @no_fusion_three_steps {
  %x = ge.data {index = 0 : i64} : tensor<2x4x11x16xf32, #ge.layout<ND, FRACTAL_NZ>>
  %a = ge.transdata %x {src_format = #ge.format<FRACTAL_NZ>, dst_format = #ge.format<ND>} : tensor<2x4x11x16xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x4x11x16xf32>
  %v = ge.reshape %a {shape = array<i64: 8, 11, 16>} : tensor<2x4x11x16xf32> -> tensor<8x11x16xf32>
  %t = ge.transpose %v {perm = array<i64: 1, 0, 2>} : tensor<8x11x16xf32> -> tensor<11x8x16xf32>
  %r = ge.reshape %t {shape = array<i64: 11, 128>} : tensor<11x8x16xf32> -> tensor<11x128xf32>
  %b = ge.transdata %r {src_format = #ge.format<ND>, dst_format = #ge.format<FRACTAL_NZ>} : tensor<11x128xf32> -> tensor<11x128xf32, #ge.layout<ND, FRACTAL_NZ>>
  ge.netoutput %b : tensor<11x128xf32, #ge.layout<ND, FRACTAL_NZ>>
}
