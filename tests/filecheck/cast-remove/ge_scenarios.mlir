// RUN: ge-opt %s --split-input-file --cast-remove | filecheck %s
// RUN: ge-opt %s --split-input-file --cast-remove=ge-precision-rule=true | filecheck %s --check-prefix=GERULE

// GE's CastRemovePass unit-test scenarios (docs/research/ge_behaviour.md §5.6).

// GE: add -> TD -> Cast -> TransposeD -> Cast -> TD -> Conv: running on add
// removes both casts (9 -> 7 nodes) and renames the transpose
// `cast2transposed1`. fp16 -> fp32 -> fp16 cannot change a value, so both
// precision rules remove it.
// CHECK-LABEL: ge.graph @cast_chain_through_transpose
// CHECK:         %a = ge.add %x, %y
// CHECK-NEXT:    %t1 = ge.transdata %a
// CHECK-NEXT:    %p = ge.transpose %t1 {perm = array<i64: 0, 2, 3, 1>, name = "cast2transposed1"} : tensor<1x16x4x4xf16, #ge.layout<NCHW>> -> tensor<1x4x4x16xf16, #ge.layout<NHWC>>
// CHECK-NEXT:    %t2 = ge.transdata %p
// CHECK-NEXT:    ge.conv2d %t2
// GERULE-LABEL:    ge.graph @cast_chain_through_transpose
// GERULE-NOT:        ge.cast
// GERULE:            ge.netoutput
ge.graph @cast_chain_through_transpose {
  %x = ge.data {index = 0 : i64} : tensor<1x16x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %y = ge.data {index = 1 : i64} : tensor<1x16x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %w = ge.data {index = 2 : i64} : tensor<3x3x16x8xf16, #ge.layout<HWCN, FRACTAL_Z>>
  %a = ge.add %x, %y {name = "add"} : (tensor<1x16x4x4xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<1x16x4x4xf16, #ge.layout<NCHW, NC1HWC0>>) -> tensor<1x16x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %t1 = ge.transdata %a {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>, name = "transdata1"} : tensor<1x16x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x16x4x4xf16, #ge.layout<NCHW>>
  %c1 = ge.cast %t1 {dst_type = f32, name = "cast1"} : tensor<1x16x4x4xf16, #ge.layout<NCHW>> -> tensor<1x16x4x4xf32, #ge.layout<NCHW>>
  %p = ge.transpose %c1 {perm = array<i64: 0, 2, 3, 1>, name = "transposed1"} : tensor<1x16x4x4xf32, #ge.layout<NCHW>> -> tensor<1x4x4x16xf32, #ge.layout<NHWC>>
  %c2 = ge.cast %p {dst_type = f16, name = "cast2"} : tensor<1x4x4x16xf32, #ge.layout<NHWC>> -> tensor<1x4x4x16xf16, #ge.layout<NHWC>>
  %t2 = ge.transdata %c2 {src_format = #ge.format<NHWC>, dst_format = #ge.format<NC1HWC0>, name = "transdata2"} : tensor<1x4x4x16xf16, #ge.layout<NHWC>> -> tensor<1x4x4x16xf16, #ge.layout<NHWC, NC1HWC0>>
  %conv = ge.conv2d %t2, %w {data_format = "NHWC"} : (tensor<1x4x4x16xf16, #ge.layout<NHWC, NC1HWC0>>, tensor<3x3x16x8xf16, #ge.layout<HWCN, FRACTAL_Z>>) -> tensor<1x2x2x8xf16, #ge.layout<NHWC, NC1HWC0>>
  ge.netoutput %conv : tensor<1x2x2x8xf16, #ge.layout<NHWC, NC1HWC0>>
}

// -----

// GE: running on Data does nothing: the data's consumer is not a trans op.
// CHECK-LABEL: ge.graph @no_cast_chain_from_data_into_real_op
// CHECK:         ge.cast
// CHECK:         ge.cast
ge.graph @no_cast_chain_from_data_into_real_op {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf16>
  %r = ge.relu %x : tensor<2x3xf16> -> tensor<2x3xf16>
  %r2 = ge.relu %r : tensor<2x3xf16> -> tensor<2x3xf16>
  %c = ge.cast %r {dst_type = f32} : tensor<2x3xf16> -> tensor<2x3xf32>
  %d = ge.cast %c {dst_type = f16} : tensor<2x3xf32> -> tensor<2x3xf16>
  ge.netoutput %r2, %d : tensor<2x3xf16>, tensor<2x3xf16>
}

// -----

// GE: a redundant cast fp16 -> fp16 is removed on its own; fp16 -> int32 is
// kept.
// CHECK-LABEL: ge.graph @redundant_cast
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %i = ge.cast %x {dst_type = i32}
// CHECK-NEXT:    ge.netoutput %x, %i
ge.graph @redundant_cast {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf16>
  %c = ge.cast %x {dst_type = f16} : tensor<2x3xf16> -> tensor<2x3xf16>
  %i = ge.cast %x {dst_type = i32} : tensor<2x3xf16> -> tensor<2x3xi32>
  ge.netoutput %c, %i : tensor<2x3xf16>, tensor<2x3xi32>
}

// -----

// GE: LayerNorm with 3 output anchors and one consumer: the chain from it is
// removed. Here a three-way split whose middle result alone is used.
// CHECK-LABEL: ge.graph @cast_chain_from_multi_output_op
// CHECK:         %s, %[[MIDDLE:.*]], %{{.*}} = ge.split
// CHECK-NEXT:    %r = ge.reshape %[[MIDDLE]] {{.*}} : tensor<2x2xf16> -> tensor<4xf16>
// CHECK-NEXT:    ge.netoutput %r
ge.graph @cast_chain_from_multi_output_op {
  %x = ge.data {index = 0 : i64} : tensor<6x2xf16>
  %s:3 = ge.split %x {axis = 0 : i64, sizes = array<i64: 2, 2, 2>} : (tensor<6x2xf16>) -> (tensor<2x2xf16>, tensor<2x2xf16>, tensor<2x2xf16>)
  %c = ge.cast %s#1 {dst_type = f32} : tensor<2x2xf16> -> tensor<2x2xf32>
  %r = ge.reshape %c {shape = array<i64: 4>} : tensor<2x2xf32> -> tensor<4xf32>
  %d = ge.cast %r {dst_type = f16} : tensor<4xf32> -> tensor<4xf16>
  ge.netoutput %d : tensor<4xf16>
}

// -----

// GE: with bool -> fp16 dtypes the chain is kept (fp16 -> bool loses, by
// either rule).
// CHECK-LABEL: ge.graph @no_cast_chain_through_bool
// CHECK:         ge.cast
// CHECK:         ge.cast
// GERULE-LABEL:    ge.graph @no_cast_chain_through_bool
// GERULE:            ge.cast
// GERULE:            ge.cast
ge.graph @no_cast_chain_through_bool {
  %x = ge.data {index = 0 : i64} : tensor<6x2xf16>
  %s:3 = ge.split %x {axis = 0 : i64, sizes = array<i64: 2, 2, 2>} : (tensor<6x2xf16>) -> (tensor<2x2xf16>, tensor<2x2xf16>, tensor<2x2xf16>)
  %c = ge.cast %s#1 {dst_type = i1} : tensor<2x2xf16> -> tensor<2x2xi1>
  %d = ge.cast %c {dst_type = f16} : tensor<2x2xi1> -> tensor<2x2xf16>
  ge.netoutput %d : tensor<2x2xf16>
}

// -----

// GE: Data f32 -> Cast(f16) -> Reshape -> Cast(f32) -> NetOutput x2: both
// casts removed (6 -> 4 nodes) by GE's table, which does not count fp32 ->
// fp16 as a loss. By default the pass keeps it: the round trip through fp16
// rounds values.
// CHECK-LABEL: ge.graph @cast_chain_through_fp16
// CHECK:         ge.cast
// CHECK:         ge.reshape
// CHECK:         ge.cast
// GERULE-LABEL:    ge.graph @cast_chain_through_fp16
// GERULE-NEXT:       %x = ge.data
// GERULE-NEXT:       %r = ge.reshape %x {{.*}} : tensor<2x6xf32> -> tensor<12xf32>
// GERULE-NEXT:       ge.netoutput %r, %r
ge.graph @cast_chain_through_fp16 {
  %x = ge.data {index = 0 : i64} : tensor<2x6xf32>
  %c = ge.cast %x {dst_type = f16} : tensor<2x6xf32> -> tensor<2x6xf16>
  %r = ge.reshape %c {shape = array<i64: 12>} : tensor<2x6xf16> -> tensor<12xf16>
  %d = ge.cast %r {dst_type = f32} : tensor<12xf16> -> tensor<12xf32>
  ge.netoutput %d, %d : tensor<12xf32>, tensor<12xf32>
}

// -----

// The chain stops at a branch: the transpose feeds two casts, so the chain
// from the relu is relu -> cast -> transpose, which does not give back fp16.
// CHECK-LABEL: ge.graph @no_cast_chain_across_branch
// CHECK-COUNT-3: ge.cast
ge.graph @no_cast_chain_across_branch {
  %x = ge.data {index = 0 : i64} : tensor<1x2x3x4xf16>
  %r = ge.relu %x : tensor<1x2x3x4xf16> -> tensor<1x2x3x4xf16>
  %c = ge.cast %r {dst_type = f32} : tensor<1x2x3x4xf16> -> tensor<1x2x3x4xf32>
  %t = ge.transpose %c {perm = array<i64: 0, 2, 3, 1>} : tensor<1x2x3x4xf32> -> tensor<1x3x4x2xf32>
  %a = ge.cast %t {dst_type = f16} : tensor<1x3x4x2xf32> -> tensor<1x3x4x2xf16>
  %b = ge.cast %t {dst_type = f16} : tensor<1x3x4x2xf32> -> tensor<1x3x4x2xf16>
  ge.netoutput %a, %b : tensor<1x3x4x2xf16>, tensor<1x3x4x2xf16>
}

// -----

// int8 -> int32 -> float32 -> int8: every dtype on the way holds every int8,
// so the casts go (GE's table forbids float32 -> int32 only, which is not
// here).
// CHECK-LABEL: ge.graph @cast_chain_of_exact_integer_casts
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %n = ge.neg %x
// CHECK-NEXT:    ge.netoutput %n
ge.graph @cast_chain_of_exact_integer_casts {
  %x = ge.data {index = 0 : i64} : tensor<5xi8>
  %n = ge.neg %x : tensor<5xi8> -> tensor<5xi8>
  %a = ge.cast %n {dst_type = i32} : tensor<5xi8> -> tensor<5xi32>
  %b = ge.cast %a {dst_type = f32} : tensor<5xi32> -> tensor<5xf32>
  %c = ge.cast %b {dst_type = i8} : tensor<5xf32> -> tensor<5xi8>
  ge.netoutput %c : tensor<5xi8>
}
