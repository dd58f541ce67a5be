// RUN: ge-opt %s --split-input-file --infer-origin-format | filecheck %s

// Breadth-first diffusion through ordinary graphs: chains, NHWC anchors,
// diamonds, multi-output ops, and ops whose rules relate formats.

// A long conv -> relu -> add -> pool chain anchored only by the ops with a
// data_format: everything between them, the input and the output follow.
// The add's rank-1 broadcast operand stays ND.
// CHECK-LABEL: ge.graph @conv_relu_add_pool_chain
// CHECK-NEXT:    %x = ge.data {index = 0 : i64} : tensor<1x3x16x16xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %w1 = ge.const {{.*}} : tensor<8x3x3x3xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %c1 = ge.conv2d {{.*}} -> tensor<1x8x14x14xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %r1 = ge.relu %c1 : {{.*}} -> tensor<1x8x14x14xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %b = ge.const {{.*}} : tensor<14xf32>
// CHECK-NEXT:    %a1 = ge.add %r1, %b : (tensor<1x8x14x14xf32, #ge.layout<NCHW>>, tensor<14xf32>) -> tensor<1x8x14x14xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %s1 = ge.sigmoid %a1 : {{.*}} -> tensor<1x8x14x14xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %p1 = ge.max_pool %s1 {{.*}} -> tensor<1x8x7x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %t1 = ge.tanh %p1 : {{.*}} -> tensor<1x8x7x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %e1 = ge.exp %t1 : {{.*}} -> tensor<1x8x7x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %m1 = ge.mul %e1, %t1 : {{.*}} -> tensor<1x8x7x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %g1 = ge.global_avg_pool %m1 {{.*}} -> tensor<1x8x1x1xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    ge.netoutput %g1 : tensor<1x8x1x1xf32, #ge.layout<NCHW>>
ge.graph @conv_relu_add_pool_chain {
  %x = ge.data {index = 0 : i64} : tensor<1x3x16x16xf32>
  %w1 = ge.const {value = dense<1.0> : tensor<8x3x3x3xf32>} : tensor<8x3x3x3xf32>
  %c1 = ge.conv2d %x, %w1 {data_format = "NCHW"} : (tensor<1x3x16x16xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x14x14xf32>
  %r1 = ge.relu %c1 : tensor<1x8x14x14xf32> -> tensor<1x8x14x14xf32>
  %b = ge.const {value = dense<1.0> : tensor<14xf32>} : tensor<14xf32>
  %a1 = ge.add %r1, %b : (tensor<1x8x14x14xf32>, tensor<14xf32>) -> tensor<1x8x14x14xf32>
  %s1 = ge.sigmoid %a1 : tensor<1x8x14x14xf32> -> tensor<1x8x14x14xf32>
  %p1 = ge.max_pool %s1 {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>} : tensor<1x8x14x14xf32> -> tensor<1x8x7x7xf32>
  %t1 = ge.tanh %p1 : tensor<1x8x7x7xf32> -> tensor<1x8x7x7xf32>
  %e1 = ge.exp %t1 : tensor<1x8x7x7xf32> -> tensor<1x8x7x7xf32>
  %m1 = ge.mul %e1, %t1 : (tensor<1x8x7x7xf32>, tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
  %g1 = ge.global_avg_pool %m1 {data_format = "NCHW"} : tensor<1x8x7x7xf32> -> tensor<1x8x1x1xf32>
  ge.netoutput %g1 : tensor<1x8x1x1xf32>
}

// -----

// NHWC anchors: the data format flows the same way; an ND filter is read
// as OIHW, so it is labelled NCHW whatever the data format.
// CHECK-LABEL: ge.graph @nhwc_anchors
// CHECK-NEXT:    %x = ge.data {index = 0 : i64} : tensor<1x8x8x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %n = ge.neg %x : {{.*}} -> tensor<1x8x8x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %w = ge.const {{.*}} : tensor<4x3x3x3xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %y = ge.conv2d %n, %w {{.*}} -> tensor<1x6x6x4xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %z = ge.elu %y : {{.*}} -> tensor<1x6x6x4xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %p = ge.avg_pool %z {{.*}} -> tensor<1x3x3x4xf32, #ge.layout<NHWC>>
ge.graph @nhwc_anchors {
  %x = ge.data {index = 0 : i64} : tensor<1x8x8x3xf32>
  %n = ge.neg %x : tensor<1x8x8x3xf32> -> tensor<1x8x8x3xf32>
  %w = ge.const {value = dense<1.0> : tensor<4x3x3x3xf32>} : tensor<4x3x3x3xf32>
  %y = ge.conv2d %n, %w {data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x6x4xf32>
  %z = ge.elu %y : tensor<1x6x6x4xf32> -> tensor<1x6x6x4xf32>
  %p = ge.avg_pool %z {data_format = "NHWC", ksize = array<i64: 1, 2, 2, 1>, strides = array<i64: 1, 2, 2, 1>} : tensor<1x6x6x4xf32> -> tensor<1x3x3x4xf32>
  ge.netoutput %p : tensor<1x3x3x4xf32>
}

// -----

// A diamond: one anchor at the bottom reaches both arms and the shared top.
// CHECK-LABEL: ge.graph @diamond
// CHECK-NEXT:    %x = ge.data {index = 0 : i64} : tensor<1x4x4x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %top = ge.abs %x : {{.*}} -> tensor<1x4x4x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %left = ge.relu %top : {{.*}} -> tensor<1x4x4x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %right = ge.neg %top : {{.*}} -> tensor<1x4x4x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %join = ge.add %left, %right : {{.*}} -> tensor<1x4x4x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %out = ge.max_pool %join {{.*}} -> tensor<1x4x4x3xf32, #ge.layout<NHWC>>
ge.graph @diamond {
  %x = ge.data {index = 0 : i64} : tensor<1x4x4x3xf32>
  %top = ge.abs %x : tensor<1x4x4x3xf32> -> tensor<1x4x4x3xf32>
  %left = ge.relu %top : tensor<1x4x4x3xf32> -> tensor<1x4x4x3xf32>
  %right = ge.neg %top : tensor<1x4x4x3xf32> -> tensor<1x4x4x3xf32>
  %join = ge.add %left, %right : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %out = ge.max_pool %join {data_format = "NHWC", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x4x4x3xf32> -> tensor<1x4x4x3xf32>
  ge.netoutput %out : tensor<1x4x4x3xf32>
}

// -----

// A diamond with conflicting anchors: the first anchor in IR order (NCHW)
// wins the shared top and both arms (its walk reaches %x, then the neg);
// the NHWC pool's refresh wrote only its own input descriptor, so the
// conflict is on the neg -> max_pool edge: a relabelling identity. No error.
// CHECK-LABEL: ge.graph @diamond_conflict
// CHECK-NEXT:    %x = ge.data {index = 0 : i64} : tensor<1x4x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %left = ge.avg_pool %x {{.*}} -> tensor<1x4x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %right = ge.neg %x : {{.*}} -> tensor<1x4x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %[[R:.*]] = ge.identity %right : tensor<1x4x4x4xf32, #ge.layout<NCHW>> -> tensor<1x4x4x4xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %join = ge.add %left, %right : (tensor<1x4x4x4xf32, #ge.layout<NCHW>>, tensor<1x4x4x4xf32, #ge.layout<NCHW>>) -> tensor<1x4x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %out = ge.max_pool %[[R]] {{.*}} : tensor<1x4x4x4xf32, #ge.layout<NHWC>> -> tensor<1x4x4x4xf32, #ge.layout<NHWC>>
ge.graph @diamond_conflict {
  %x = ge.data {index = 0 : i64} : tensor<1x4x4x4xf32>
  %left = ge.avg_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x4x4x4xf32> -> tensor<1x4x4x4xf32>
  %right = ge.neg %x : tensor<1x4x4x4xf32> -> tensor<1x4x4x4xf32>
  %join = ge.add %left, %right : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %out = ge.max_pool %right {data_format = "NHWC", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x4x4x4xf32> -> tensor<1x4x4x4xf32>
  ge.netoutput %join, %out : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}

// -----

// Multi-output split whose results are reached backward from one consumer
// only: the split is reached, takes the format into its input and its other
// result, and forward from there.
// CHECK-LABEL: ge.graph @split_multi_output
// CHECK-NEXT:    %x = ge.data {index = 0 : i64} : tensor<1x4x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %a, %b, %c = ge.split %x {{.*}} -> (tensor<1x1x4x4xf32, #ge.layout<NCHW>>, tensor<1x1x4x4xf32, #ge.layout<NCHW>>, tensor<1x2x4x4xf32, #ge.layout<NCHW>>)
// CHECK-NEXT:    %pa = ge.avg_pool %a {{.*}} -> tensor<1x1x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %nb = ge.neg %b : {{.*}} -> tensor<1x1x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %cat = ge.concat %pa, %nb, %c {{.*}} -> tensor<1x4x4x4xf32, #ge.layout<NCHW>>
ge.graph @split_multi_output {
  %x = ge.data {index = 0 : i64} : tensor<1x4x4x4xf32>
  %a, %b, %c = ge.split %x {axis = 1 : i64, sizes = array<i64: 1, 1, 2>} : (tensor<1x4x4x4xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x2x4x4xf32>)
  %pa = ge.avg_pool %a {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x1x4x4xf32> -> tensor<1x1x4x4xf32>
  %nb = ge.neg %b : tensor<1x1x4x4xf32> -> tensor<1x1x4x4xf32>
  %cat = ge.concat %pa, %nb, %c {axis = 1 : i64} : (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  ge.netoutput %cat : tensor<1x4x4x4xf32>
}

// -----

// Transposes relabel their axes: NCHW permuted by [0, 2, 3, 1] is NHWC
// (forward), and backward through the inverse. A permutation that names no
// format stops propagation.
// CHECK-LABEL: ge.graph @transpose_relabels
// CHECK-NEXT:    %x = ge.data {index = 0 : i64} : tensor<1x3x4x5xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %p = ge.avg_pool %x {{.*}} -> tensor<1x3x4x5xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %t = ge.transpose %p {{.*}} -> tensor<1x4x5x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %r = ge.relu %t : {{.*}} -> tensor<1x4x5x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %u = ge.transpose %r {{.*}} -> tensor<3x4x5x1xf32, #ge.layout<CHWN>>
// CHECK-NEXT:    %v = ge.transpose %u {{.*}} -> tensor<1x4x3x5xf32>
// CHECK-NEXT:    %y = ge.data {index = 1 : i64} : tensor<4x5x3x1xf32, #ge.layout<HWCN>>
// CHECK-NEXT:    %q = ge.permute %y {{.*}} -> tensor<1x3x4x5xf32, #ge.layout<NCHW>>
ge.graph @transpose_relabels {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x5xf32>
  %p = ge.avg_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x3x4x5xf32> -> tensor<1x3x4x5xf32>
  %t = ge.transpose %p {perm = array<i64: 0, 2, 3, 1>} : tensor<1x3x4x5xf32> -> tensor<1x4x5x3xf32>
  %r = ge.relu %t : tensor<1x4x5x3xf32> -> tensor<1x4x5x3xf32>
  %u = ge.transpose %r {perm = array<i64: 3, 1, 2, 0>} : tensor<1x4x5x3xf32> -> tensor<3x4x5x1xf32>
  %v = ge.transpose %u {perm = array<i64: 3, 1, 0, 2>} : tensor<3x4x5x1xf32> -> tensor<1x4x3x5xf32>
  %y = ge.data {index = 1 : i64} : tensor<4x5x3x1xf32>
  %q = ge.permute %y {order = array<i64: 3, 2, 0, 1>} : tensor<4x5x3x1xf32> -> tensor<1x3x4x5xf32>
  %z = ge.max_pool %q {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x3x4x5xf32> -> tensor<1x3x4x5xf32>
  ge.netoutput %v, %z : tensor<1x4x3x5xf32>, tensor<1x3x4x5xf32>
}

// -----

// Casts and transdata pass the origin format through; a transdata's operand
// and result always share their origin format.
// CHECK-LABEL: ge.graph @cast_and_transdata_pass_through
// CHECK-NEXT:    %x = ge.data {index = 0 : i64} : tensor<1x16x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %h = ge.cast %x {{.*}} -> tensor<1x16x4x4xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    %t = ge.transdata %h {{.*}} : tensor<1x16x4x4xf16, #ge.layout<NCHW>> -> tensor<1x16x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    %b = ge.transdata %t {{.*}} : tensor<1x16x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x16x4x4xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    %p = ge.avg_pool %b {{.*}} -> tensor<1x16x4x4xf16, #ge.layout<NCHW>>
ge.graph @cast_and_transdata_pass_through {
  %x = ge.data {index = 0 : i64} : tensor<1x16x4x4xf32>
  %h = ge.cast %x {dst_type = f16} : tensor<1x16x4x4xf32> -> tensor<1x16x4x4xf16>
  %t = ge.transdata %h {src_format = #ge.format<ND>, dst_format = #ge.format<NC1HWC0>} : tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16, #ge.layout<ND, NC1HWC0>>
  %b = ge.transdata %t {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<ND>} : tensor<1x16x4x4xf16, #ge.layout<ND, NC1HWC0>> -> tensor<1x16x4x4xf16>
  %p = ge.avg_pool %b {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16>
  ge.netoutput %p : tensor<1x16x4x4xf16>
}
