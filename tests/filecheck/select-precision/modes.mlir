// RUN: ge-opt %s --split-input-file --opinfo %S/tile_without_fp16.json -p 'select-precision{mode=allow_mix_precision}' | filecheck %s --check-prefix=MIX
// RUN: ge-opt %s --split-input-file --opinfo %S/tile_without_fp16.json -p 'select-precision{mode=force_fp16}' | filecheck %s --check-prefix=FP16
// RUN: ge-opt %s --split-input-file --opinfo %S/tile_without_fp16.json -p 'select-precision{mode=force_fp32}' | filecheck %s --check-prefix=FP32
// RUN: ge-opt %s --split-input-file --opinfo %S/tile_without_fp16.json -p 'select-precision{mode=allow_fp32_to_fp16}' | filecheck %s --check-prefix=KEEP
// RUN: ge-opt %s --split-input-file --opinfo %S/tile_without_fp16.json -p 'select-precision{mode=must_keep_origin_dtype}' | filecheck %s --check-prefix=KEEP

// Attention scores: matmul (precision_reduce: true), a scale by a constant
// (follows its input), a mask from the graph (float32), softmax
// (precision_reduce: false). Mixed: the matmul and the scale run in
// float16, the masked add meets a float32 input and stays float32, so does
// the softmax; the graph's output keeps its dtype.
// MIX-LABEL: ge.graph @scores
// MIX:         %[[Q16:.*]] = ge.cast %q {dst_type = f16, name = "qk_input0_cast"} : tensor<4x8xf32> -> tensor<4x8xf16>
// MIX:         %[[K16:.*]] = ge.cast %k {dst_type = f16, name = "qk_input1_cast"} : tensor<8x4xf32> -> tensor<8x4xf16>
// MIX:         %[[C16:.*]] = ge.cast %c {dst_type = f16, name = "scale_input1_cast"} : tensor<f32> -> tensor<f16>
// MIX-NEXT:    %[[S:.*]] = ge.matmul %[[Q16]], %[[K16]] {name = "qk"} : (tensor<4x8xf16>, tensor<8x4xf16>) -> tensor<4x4xf16>
// MIX-NEXT:    %[[D:.*]] = ge.mul %[[S]], %[[C16]] {name = "scale"} : (tensor<4x4xf16>, tensor<f16>) -> tensor<4x4xf16>
// MIX-NEXT:    %[[D32:.*]] = ge.cast %[[D]] {dst_type = f32, name = "scale_output_cast"} : tensor<4x4xf16> -> tensor<4x4xf32>
// MIX-NEXT:    %[[A:.*]] = ge.add %[[D32]], %m {name = "mask"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// MIX-NEXT:    %[[P:.*]] = ge.softmax %[[A]] {name = "probs"} : tensor<4x4xf32> -> tensor<4x4xf32>
// MIX-NEXT:    ge.netoutput %[[P]] : tensor<4x4xf32>

// force_fp16: every op that takes float16 runs in it, softmax too; one cast
// back before the output.
// FP16-LABEL: ge.graph @scores
// FP16:         ge.matmul {{.*}} -> tensor<4x4xf16>
// FP16:         ge.mul {{.*}} -> tensor<4x4xf16>
// FP16:         ge.add {{.*}} -> tensor<4x4xf16>
// FP16-NEXT:    %[[P:.*]] = ge.softmax {{.*}} -> tensor<4x4xf16>
// FP16-NEXT:    %[[P32:.*]] = ge.cast %[[P]] {dst_type = f32, name = "probs_output_cast"}
// FP16-NEXT:    ge.netoutput %[[P32]] : tensor<4x4xf32>

// Float32 graphs stay float32 under force_fp32 and allow_fp32_to_fp16 (every
// op here takes float32) and must_keep_origin_dtype.
// KEEP-LABEL: ge.graph @scores
// KEEP-NOT:     ge.cast
// KEEP:         ge.netoutput
ge.graph @scores {
  %q = ge.data {index = 0 : i64} : tensor<4x8xf32>
  %k = ge.data {index = 1 : i64} : tensor<8x4xf32>
  %m = ge.data {index = 2 : i64} : tensor<4x4xf32>
  %c = ge.const {value = dense<0.25> : tensor<f32>} : tensor<f32>
  %s = ge.matmul %q, %k {name = "qk"} : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %d = ge.mul %s, %c {name = "scale"} : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %a = ge.add %d, %m {name = "mask"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %p = ge.softmax %a {axis = -1 : i64, name = "probs"} : tensor<4x4xf32> -> tensor<4x4xf32>
  ge.netoutput %p : tensor<4x4xf32>
}

// -----

// A float16 graph: force_fp32 runs each op in float32 between casts; the
// interface stays float16. Two float32 consumers of one value share its cast.
// FP32-LABEL: ge.graph @half_graph
// FP32-NEXT:    %x = ge.data
// FP32-NEXT:    %[[X32:.*]] = ge.cast %x {dst_type = f32, name = "r_input0_cast"} : tensor<3x17xf16> -> tensor<3x17xf32>
// FP32-NEXT:    %[[R:.*]] = ge.relu %[[X32]] {name = "r"} : tensor<3x17xf32> -> tensor<3x17xf32>
// FP32-NEXT:    %[[T:.*]] = ge.tanh %[[R]] {name = "t"} : tensor<3x17xf32> -> tensor<3x17xf32>
// FP32-NEXT:    %[[T16:.*]] = ge.cast %[[T]] {dst_type = f16, name = "t_output_cast"} : tensor<3x17xf32> -> tensor<3x17xf16>
// FP32-NEXT:    %[[E:.*]] = ge.exp %[[R]] {name = "e"} : tensor<3x17xf32> -> tensor<3x17xf32>
// FP32-NEXT:    %[[E16:.*]] = ge.cast %[[E]] {dst_type = f16, name = "e_output_cast"} : tensor<3x17xf32> -> tensor<3x17xf16>
// FP32-NEXT:    ge.netoutput %[[T16]], %[[E16]] : tensor<3x17xf16>, tensor<3x17xf16>

// MIX-LABEL: ge.graph @half_graph
// MIX-NOT:     ge.cast
// MIX:         ge.netoutput
ge.graph @half_graph {
  %x = ge.data {index = 0 : i64} : tensor<3x17xf16>
  %r = ge.relu %x {name = "r"} : tensor<3x17xf16> -> tensor<3x17xf16>
  %t = ge.tanh %r {name = "t"} : tensor<3x17xf16> -> tensor<3x17xf16>
  %e = ge.exp %r {name = "e"} : tensor<3x17xf16> -> tensor<3x17xf16>
  ge.netoutput %t, %e : tensor<3x17xf16>, tensor<3x17xf16>
}

// -----

// The gather takes float16 (an AI Core op): it runs in fp16 after the
// matmul; its int32 indices are never cast.
// MIX-LABEL: ge.graph @no_cast_of_indices
// MIX:         %[[W16:.*]] = ge.cast %w {dst_type = f16
// MIX:         %[[P:.*]] = ge.matmul %{{.*}}, %[[W16]] : (tensor<10x8xf16>, tensor<8x8xf16>) -> tensor<10x8xf16>
// MIX-NEXT:    %[[G:.*]] = ge.gather %[[P]], %ids : (tensor<10x8xf16>, tensor<3xi32>) -> tensor<3x8xf16>
// MIX-NEXT:    %[[G32:.*]] = ge.cast %[[G]] {dst_type = f32
// MIX-NEXT:    ge.netoutput %[[G32]] : tensor<3x8xf32>
ge.graph @no_cast_of_indices {
  %table = ge.data {index = 0 : i64} : tensor<10x8xf32>
  %ids = ge.data {index = 1 : i64} : tensor<3xi32>
  %w = ge.const {value = dense<0.5> : tensor<8x8xf32>} : tensor<8x8xf32>
  %p = ge.matmul %table, %w : (tensor<10x8xf32>, tensor<8x8xf32>) -> tensor<10x8xf32>
  %g = ge.gather %p, %ids {axis = 0 : i64} : (tensor<10x8xf32>, tensor<3xi32>) -> tensor<3x8xf32>
  ge.netoutput %g : tensor<3x8xf32>
}

// -----

// The tile's op info (a user file, tile_without_fp16.json) has no float16: it stays float32
// and reads the matmul's result cast back.
// MIX-LABEL: ge.graph @no_fp16_kernel_stays_fp32
// MIX:         %[[P:.*]] = ge.matmul {{.*}} -> tensor<10x8xf16>
// MIX-NEXT:    %[[P32:.*]] = ge.cast %[[P]] {dst_type = f32
// MIX-NEXT:    %[[T:.*]] = ge.tile %[[P32]] {{.*}} : tensor<10x8xf32> -> tensor<10x16xf32>
// MIX-NEXT:    ge.netoutput %[[T]] : tensor<10x16xf32>
ge.graph @no_fp16_kernel_stays_fp32 {
  %table = ge.data {index = 0 : i64} : tensor<10x8xf32>
  %w = ge.const {value = dense<0.5> : tensor<8x8xf32>} : tensor<8x8xf32>
  %p = ge.matmul %table, %w : (tensor<10x8xf32>, tensor<8x8xf32>) -> tensor<10x8xf32>
  %t = ge.tile %p {multiples = array<i64: 1, 2>} : tensor<10x8xf32> -> tensor<10x16xf32>
  ge.netoutput %t : tensor<10x16xf32>
}
