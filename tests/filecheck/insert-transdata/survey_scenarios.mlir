// RUN: ge-opt %s --split-input-file --refine-running-format --select-storage-format --insert-transdata | filecheck %s
// RUN: ge-opt %s --split-input-file --refine-running-format --select-storage-format --insert-transdata --print-op-generic | ge-opt --split-input-file | filecheck %s
// RUN: ge-opt %s --split-input-file --refine-running-format --select-storage-format --insert-transdata | ge-opt --split-input-file --refine-running-format --select-storage-format --insert-transdata | filecheck %s

// The layout-optimizer survey's scenarios (docs/research/layout_optimizers.md (b))
// through refine -> select -> insert. The pipeline is idempotent (third RUN)
// and its output survives the generic form (second RUN).

// Survey (b) 3: an NCHW conv -> relu -> conv -> relu chain needs exactly one
// TransData in and one out; both weights are folded into FRACTAL_Z constants
// (C = 17 pads to two C0 blocks; a splat stays a splat, in the origin shape).
// CHECK-LABEL: ge.graph @conv_chain
// CHECK-NEXT:    %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    %[[IN:.+]] = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>}
// CHECK-NEXT:    %[[W1:.+]] = ge.const {value = dense<2.500000e-01> : tensor<17x3x3x3xf16>} : tensor<17x3x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
// CHECK-NEXT:    %[[W2:.+]] = ge.const {value = dense<5.000000e-01> : tensor<5x17x1x1xf16>} : tensor<5x17x1x1xf16, #ge.layout<NCHW, FRACTAL_Z>>
// CHECK-NEXT:    %c1 = ge.conv2d %[[IN]], %[[W1]] {data_format = "NCHW"}
// CHECK-NEXT:    %r1 = ge.relu %c1
// CHECK-NEXT:    %c2 = ge.conv2d %r1, %[[W2]] {data_format = "NCHW"}
// CHECK-NEXT:    %r2 = ge.relu %c2
// CHECK-NEXT:    %[[OUT:.+]] = ge.transdata %r2 {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>}
// CHECK-NEXT:    ge.netoutput %[[OUT]] : tensor<1x5x6x6xf16, #ge.layout<NCHW>>{{$}}
// CHECK-NOT:     ge.transdata
ge.graph @conv_chain {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
  %w1 = ge.const {value = dense<0.25> : tensor<17x3x3x3xf16>} : tensor<17x3x3x3xf16, #ge.layout<NCHW>>
  %w2 = ge.const {value = dense<0.5> : tensor<5x17x1x1xf16>} : tensor<5x17x1x1xf16, #ge.layout<NCHW>>
  %c1 = ge.conv2d %x, %w1 {data_format = "NCHW"} : (tensor<1x3x8x8xf16, #ge.layout<NCHW>>, tensor<17x3x3x3xf16, #ge.layout<NCHW>>) -> tensor<1x17x6x6xf16, #ge.layout<NCHW>>
  %r1 = ge.relu %c1 : tensor<1x17x6x6xf16, #ge.layout<NCHW>> -> tensor<1x17x6x6xf16, #ge.layout<NCHW>>
  %c2 = ge.conv2d %r1, %w2 {data_format = "NCHW"} : (tensor<1x17x6x6xf16, #ge.layout<NCHW>>, tensor<5x17x1x1xf16, #ge.layout<NCHW>>) -> tensor<1x5x6x6xf16, #ge.layout<NCHW>>
  %r2 = ge.relu %c2 : tensor<1x5x6x6xf16, #ge.layout<NCHW>> -> tensor<1x5x6x6xf16, #ge.layout<NCHW>>
  ge.netoutput %r2 : tensor<1x5x6x6xf16, #ge.layout<NCHW>>
}

// -----

// Survey (b) 5: a bias [C] is expanded by reshape type C ([1,C,1,1]) before
// the relayout: folded for a constant (17 -> [1,3,1,1,8] fp32, zero padded),
// a TransData for a runtime bias.
// CHECK-LABEL: ge.graph @bias_rank_expansion
// CHECK:         %[[B:.+]] = ge.const {value = dense<{{\[\[\[\[\[}}1.000000e+00, {{.*}}1.700000e+01, 0.000000e+00, {{.*}}> : tensor<1x3x1x1x8xf32>} : tensor<17xf32, #ge.layout<NCHW, NC1HWC0, reshape_type = "C">>
// CHECK-NEXT:    %rb = ge.data {index = 1 : i64} : tensor<17xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %[[RB:.+]] = ge.transdata %rb {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<17xf32, #ge.layout<NCHW>> -> tensor<17xf32, #ge.layout<NCHW, NC1HWC0, reshape_type = "C">>
// CHECK:         %y = ge.bias_add %p, %[[B]]
// CHECK-NEXT:    %z = ge.bias_add %y, %[[RB]]
ge.graph @bias_rank_expansion {
  %x = ge.data {index = 0 : i64} : tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  %b = ge.const {value = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0]> : tensor<17xf32>} : tensor<17xf32, #ge.layout<NCHW>>
  %rb = ge.data {index = 1 : i64} : tensor<17xf32, #ge.layout<NCHW>>
  %p = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x17x4x4xf32, #ge.layout<NCHW>> -> tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  %y = ge.bias_add %p, %b {data_format = "NCHW"} : (tensor<1x17x4x4xf32, #ge.layout<NCHW>>, tensor<17xf32, #ge.layout<NCHW>>) -> tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  %z = ge.bias_add %y, %rb {data_format = "NCHW"} : (tensor<1x17x4x4xf32, #ge.layout<NCHW>>, tensor<17xf32, #ge.layout<NCHW>>) -> tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  ge.netoutput %z : tensor<1x17x4x4xf32, #ge.layout<NCHW>>
}

// -----

// Survey (b) 6: scalars (a rank-0 constant, a one-element input) never get
// a TransData; they broadcast by value.
// CHECK-LABEL: ge.graph @scalars
// CHECK:         %a = ge.add %p, %one : (tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<f16>)
// CHECK-NEXT:    %m = ge.mul %a, %s : (tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<1x1x1x1xf16, #ge.layout<NCHW>>)
// CHECK-NEXT:    %[[OUT:.+]] = ge.transdata %m
// CHECK-NEXT:    ge.netoutput %[[OUT]]
ge.graph @scalars {
  %x = ge.data {index = 0 : i64} : tensor<1x17x4x4xf16, #ge.layout<NCHW>>
  %one = ge.const {value = dense<1.0> : tensor<f16>} : tensor<f16>
  %s = ge.data {index = 1 : i64} : tensor<1x1x1x1xf16, #ge.layout<NCHW>>
  %p = ge.avg_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x17x4x4xf16, #ge.layout<NCHW>> -> tensor<1x17x4x4xf16, #ge.layout<NCHW>>
  %a = ge.add %p, %one : (tensor<1x17x4x4xf16, #ge.layout<NCHW>>, tensor<f16>) -> tensor<1x17x4x4xf16, #ge.layout<NCHW>>
  %m = ge.mul %a, %s : (tensor<1x17x4x4xf16, #ge.layout<NCHW>>, tensor<1x1x1x1xf16, #ge.layout<NCHW>>) -> tensor<1x17x4x4xf16, #ge.layout<NCHW>>
  ge.netoutput %m : tensor<1x17x4x4xf16, #ge.layout<NCHW>>
}

// -----

// Survey (b) 7: a conv output feeds another conv (stays 5HD) and a flatten:
// one TransData back, on the flatten branch only (plus the graph output's).
// CHECK-LABEL: ge.graph @multi_consumer_fallback
// CHECK:         %c1 = ge.conv2d
// CHECK-NEXT:    %[[BACK:.+]] = ge.transdata %c1 {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>}
// CHECK-NEXT:    %c2 = ge.conv2d %c1, %{{.+}} {data_format = "NCHW"}
// CHECK-NEXT:    %[[OUT:.+]] = ge.transdata %c2
// CHECK-NEXT:    %f = ge.flatten %[[BACK]]
// CHECK-NEXT:    ge.netoutput %[[OUT]], %f
ge.graph @multi_consumer_fallback {
  %x = ge.data {index = 0 : i64} : tensor<1x3x6x6xf32, #ge.layout<NCHW>>
  %w = ge.const {value = dense<0.5> : tensor<3x3x1x1xf32>} : tensor<3x3x1x1xf32, #ge.layout<NCHW>>
  %c1 = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x6x6xf32, #ge.layout<NCHW>>, tensor<3x3x1x1xf32, #ge.layout<NCHW>>) -> tensor<1x3x6x6xf32, #ge.layout<NCHW>>
  %c2 = ge.conv2d %c1, %w {data_format = "NCHW"} : (tensor<1x3x6x6xf32, #ge.layout<NCHW>>, tensor<3x3x1x1xf32, #ge.layout<NCHW>>) -> tensor<1x3x6x6xf32, #ge.layout<NCHW>>
  %f = ge.flatten %c1 : tensor<1x3x6x6xf32, #ge.layout<NCHW>> -> tensor<1x108xf32>
  ge.netoutput %c2, %f : tensor<1x3x6x6xf32, #ge.layout<NCHW>>, tensor<1x108xf32>
}

// -----

// Survey (b) 8 and 15: the input feeding two convs is relaid out once; the
// weight shared by both convs is folded once, and the original constant
// stays for its origin-format consumer.
// CHECK-LABEL: ge.graph @dedup_relayouts
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %[[IN:.+]] = ge.transdata %x
// CHECK-NEXT:    %w = ge.const {value = dense<5.000000e-01> : tensor<4x3x3x3xf16>} : tensor<4x3x3x3xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    %[[W:.+]] = ge.const {value = dense<5.000000e-01> : tensor<4x3x3x3xf16>} : tensor<4x3x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
// CHECK-NEXT:    %c1 = ge.conv2d %[[IN]], %[[W]]
// CHECK-NEXT:    ge.transdata %c1
// CHECK-NEXT:    %c2 = ge.conv2d %[[IN]], %[[W]]
// CHECK-NEXT:    ge.transdata %c2
// CHECK-NEXT:    %n = ge.neg %w
ge.graph @dedup_relayouts {
  %x = ge.data {index = 0 : i64} : tensor<1x3x6x6xf16, #ge.layout<NCHW>>
  %w = ge.const {value = dense<0.5> : tensor<4x3x3x3xf16>} : tensor<4x3x3x3xf16, #ge.layout<NCHW>>
  %c1 = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x6x6xf16, #ge.layout<NCHW>>, tensor<4x3x3x3xf16, #ge.layout<NCHW>>) -> tensor<1x4x4x4xf16, #ge.layout<NCHW>>
  %c2 = ge.conv2d %x, %w {data_format = "NCHW", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x6x6xf16, #ge.layout<NCHW>>, tensor<4x3x3x3xf16, #ge.layout<NCHW>>) -> tensor<1x4x6x6xf16, #ge.layout<NCHW>>
  %n = ge.neg %w : tensor<4x3x3x3xf16, #ge.layout<NCHW>> -> tensor<4x3x3x3xf16, #ge.layout<NCHW>>
  ge.netoutput %c1, %c2, %n : tensor<1x4x4x4xf16, #ge.layout<NCHW>>, tensor<1x4x6x6xf16, #ge.layout<NCHW>>, tensor<4x3x3x3xf16, #ge.layout<NCHW>>
}

// -----

// Survey (b) 16: inputs and outputs keep origin layouts; a returned
// intermediate is copied back to origin for the output and stays 5HD for
// its other consumer; an input returned as is needs nothing.
// CHECK-LABEL: ge.graph @graph_interface
// CHECK:         %p = ge.max_pool
// CHECK-NEXT:    %[[P:.+]] = ge.transdata %p {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>}
// CHECK-NEXT:    %q = ge.avg_pool %p
// CHECK-NEXT:    %[[Q:.+]] = ge.transdata %q
// CHECK-NEXT:    ge.netoutput %[[P]], %[[Q]], %x : tensor<1x3x4x4xf16, #ge.layout<NCHW>>, tensor<1x3x4x4xf16, #ge.layout<NCHW>>, tensor<1x3x4x4xf16, #ge.layout<NCHW>>{{$}}
ge.graph @graph_interface {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf16, #ge.layout<NCHW>>
  %p = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x3x4x4xf16, #ge.layout<NCHW>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW>>
  %q = ge.avg_pool %p {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x3x4x4xf16, #ge.layout<NCHW>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW>>
  ge.netoutput %p, %q, %x : tensor<1x3x4x4xf16, #ge.layout<NCHW>>, tensor<1x3x4x4xf16, #ge.layout<NCHW>>, tensor<1x3x4x4xf16, #ge.layout<NCHW>>
}

// -----

// External weights are folded without their data: the derived key names
// the relaid-out array, which derive_storage_weights computes at load time.
// CHECK-LABEL: ge.graph @external_weights
// CHECK:         %[[W:.+]] = ge.const {value = #ge.external<"conv.weight@FRACTAL_Z:float32">, storage_of = "conv.weight"} : tensor<5x3x3x3xf32, #ge.layout<NCHW, FRACTAL_Z>>
// CHECK-NEXT:    %c = ge.conv2d %{{.+}}, %[[W]]
ge.graph @external_weights attributes {} {
  %x = ge.data {index = 0 : i64} : tensor<1x3x6x6xf32, #ge.layout<NCHW>>
  %w = ge.const {value = #ge.external<"conv.weight">} : tensor<5x3x3x3xf32, #ge.layout<NCHW>>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x6x6xf32, #ge.layout<NCHW>>, tensor<5x3x3x3xf32, #ge.layout<NCHW>>) -> tensor<1x5x4x4xf32, #ge.layout<NCHW>>
  ge.netoutput %c : tensor<1x5x4x4xf32, #ge.layout<NCHW>>
}

// -----

// Survey (b) 13: C = 17 (not a multiple of C0 = 8) with sigmoid, a bias and
// exp in NC1HWC0, then reads across C: the reduction and softmax get the
// value back in NCHW (padding dropped); the numeric test checks they match.
// CHECK-LABEL: ge.graph @padding_never_leaks
// CHECK:         %e = ge.exp %a : {{.*}} -> tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    %[[E:.+]] = ge.transdata %e {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>}
// CHECK-NEXT:    %r = ge.reduce_sum %[[E]]
// CHECK-NEXT:    %m = ge.softmax %[[E]]
ge.graph @padding_never_leaks {
  %x = ge.data {index = 0 : i64} : tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  %b = ge.const {value = dense<0.75> : tensor<17xf32>} : tensor<17xf32, #ge.layout<NCHW>>
  %p = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x17x4x4xf32, #ge.layout<NCHW>> -> tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  %s = ge.sigmoid %p : tensor<1x17x4x4xf32, #ge.layout<NCHW>> -> tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  %a = ge.bias_add %s, %b {data_format = "NCHW"} : (tensor<1x17x4x4xf32, #ge.layout<NCHW>>, tensor<17xf32, #ge.layout<NCHW>>) -> tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  %e = ge.exp %a : tensor<1x17x4x4xf32, #ge.layout<NCHW>> -> tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  %r = ge.reduce_sum %e {axes = array<i64: 1>} : tensor<1x17x4x4xf32, #ge.layout<NCHW>> -> tensor<1x1x4x4xf32, #ge.layout<NCHW>>
  %m = ge.softmax %e {axis = 1 : i64} : tensor<1x17x4x4xf32, #ge.layout<NCHW>> -> tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  ge.netoutput %r, %m : tensor<1x1x4x4xf32, #ge.layout<NCHW>>, tensor<1x17x4x4xf32, #ge.layout<NCHW>>
}
