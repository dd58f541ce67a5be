// RUN: ge-opt %s --split-input-file | ge-opt --split-input-file | filecheck %s
// RUN: ge-opt %s --split-input-file --print-op-generic | ge-opt --split-input-file | filecheck %s

// Neural-network ops with a `data_format` (GE/TensorFlow conventions).

// CHECK-LABEL: ge.graph @conv2d
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    [[W:%.*]] = ge.const {value = #ge.external<"w">} : tensor<4x3x3x3xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    [[B:%.*]] = ge.const {value = dense<0.000000e+00> : tensor<4xf32>} : tensor<4xf32>
// CHECK-NEXT:    [[Y:%.*]] = ge.conv2d [[X]], [[W]], [[B]] {data_format = "NCHW", strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32, #ge.layout<NCHW>>, tensor<4x3x3x3xf32, #ge.layout<NCHW>>, tensor<4xf32>) -> tensor<1x4x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    [[Y2:%.*]] = ge.conv2d [[X]], [[W]] {data_format = "NCHW"} : (tensor<1x3x8x8xf32, #ge.layout<NCHW>>, tensor<4x3x3x3xf32, #ge.layout<NCHW>>) -> tensor<1x4x6x6xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    [[XH:%.*]] = ge.data {index = 1 : i64} : tensor<1x8x8x4xf16, #ge.layout<NHWC>>
// CHECK-NEXT:    [[WH:%.*]] = ge.data {index = 2 : i64} : tensor<3x3x2x8xf16, #ge.layout<HWCN>>
// CHECK-NEXT:    [[YH:%.*]] = ge.conv2d [[XH]], [[WH]] {data_format = "NHWC", groups = 2 : i64, dilations = array<i64: 1, 2, 2, 1>} : (tensor<1x8x8x4xf16, #ge.layout<NHWC>>, tensor<3x3x2x8xf16, #ge.layout<HWCN>>) -> tensor<1x4x4x8xf16, #ge.layout<NHWC>>
// CHECK-NEXT:    ge.netoutput [[Y]], [[Y2]], [[YH]] :
ge.graph @conv2d {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32, #ge.layout<NCHW>>
  %w = ge.const {value = #ge.external<"w">} : tensor<4x3x3x3xf32, #ge.layout<NCHW>>
  %b = ge.const {value = dense<0.0> : tensor<4xf32>} : tensor<4xf32>
  %y = ge.conv2d %x, %w, %b {data_format = "NCHW", strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32, #ge.layout<NCHW>>, tensor<4x3x3x3xf32, #ge.layout<NCHW>>, tensor<4xf32>) -> tensor<1x4x4x4xf32, #ge.layout<NCHW>>
  %y2 = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf32, #ge.layout<NCHW>>, tensor<4x3x3x3xf32, #ge.layout<NCHW>>) -> tensor<1x4x6x6xf32, #ge.layout<NCHW>>
  %xh = ge.data {index = 1 : i64} : tensor<1x8x8x4xf16, #ge.layout<NHWC>>
  %wh = ge.data {index = 2 : i64} : tensor<3x3x2x8xf16, #ge.layout<HWCN>>
  %yh = ge.conv2d %xh, %wh {data_format = "NHWC", groups = 2 : i64, dilations = array<i64: 1, 2, 2, 1>} : (tensor<1x8x8x4xf16, #ge.layout<NHWC>>, tensor<3x3x2x8xf16, #ge.layout<HWCN>>) -> tensor<1x4x4x8xf16, #ge.layout<NHWC>>
  ge.netoutput %y, %y2, %yh : tensor<1x4x4x4xf32, #ge.layout<NCHW>>, tensor<1x4x6x6xf32, #ge.layout<NCHW>>, tensor<1x4x4x8xf16, #ge.layout<NHWC>>
}

// -----

// CHECK-LABEL: ge.graph @conv2d_transpose
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<1x4x5x5xf32>
// CHECK-NEXT:    [[W:%.*]] = ge.data {index = 1 : i64} : tensor<4x2x3x3xf32>
// CHECK-NEXT:    [[B:%.*]] = ge.data {index = 2 : i64} : tensor<2xf32>
// CHECK-NEXT:    [[Y:%.*]] = ge.conv2d_transpose [[X]], [[W]], [[B]] {data_format = "NCHW", strides = array<i64: 1, 1, 2, 2>, output_padding = array<i64: 1, 1>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x12x12xf32>
// CHECK-NEXT:    [[Y2:%.*]] = ge.conv2d_transpose [[X]], [[W]] {data_format = "NCHW"} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32>
// CHECK-NEXT:    ge.netoutput [[Y]], [[Y2]] :
ge.graph @conv2d_transpose {
  %x = ge.data {index = 0 : i64} : tensor<1x4x5x5xf32>
  %w = ge.data {index = 1 : i64} : tensor<4x2x3x3xf32>
  %b = ge.data {index = 2 : i64} : tensor<2xf32>
  %y = ge.conv2d_transpose %x, %w, %b {data_format = "NCHW", strides = array<i64: 1, 1, 2, 2>, output_padding = array<i64: 1, 1>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x12x12xf32>
  %y2 = ge.conv2d_transpose %x, %w {data_format = "NCHW"} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32>
  ge.netoutput %y, %y2 : tensor<1x2x12x12xf32>, tensor<1x2x7x7xf32>
}

// -----

// CHECK-LABEL: ge.graph @pools
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<1x16x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[M:%.*]] = ge.max_pool [[X]] {data_format = "NCHW", ksize = array<i64: 1, 1, 3, 3>, strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 1, 1, 1, 1>, ceil_mode = true} : tensor<1x16x8x8xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x16x5x5xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[A:%.*]] = ge.avg_pool [[X]] {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>} : tensor<1x16x8x8xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x16x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[GA:%.*]] = ge.global_avg_pool [[X]] {data_format = "NCHW"} : tensor<1x16x8x8xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x16x1x1xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[XH:%.*]] = ge.data {index = 1 : i64} : tensor<2x6x6x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    [[GM:%.*]] = ge.global_max_pool [[XH]] {data_format = "NHWC"} : tensor<2x6x6x3xf32, #ge.layout<NHWC>> -> tensor<2x1x1x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    [[MH:%.*]] = ge.max_pool [[XH]] {data_format = "NHWC", ksize = array<i64: 1, 2, 2, 1>} : tensor<2x6x6x3xf32, #ge.layout<NHWC>> -> tensor<2x5x5x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    ge.netoutput [[M]], [[A]], [[GA]], [[GM]], [[MH]] :
ge.graph @pools {
  %x = ge.data {index = 0 : i64} : tensor<1x16x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
  %m = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 3, 3>, strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 1, 1, 1, 1>, ceil_mode = true} : tensor<1x16x8x8xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x16x5x5xf16, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.avg_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>, count_include_pad = false} : tensor<1x16x8x8xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x16x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %ga = ge.global_avg_pool %x {data_format = "NCHW"} : tensor<1x16x8x8xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x16x1x1xf16, #ge.layout<NCHW, NC1HWC0>>
  %xh = ge.data {index = 1 : i64} : tensor<2x6x6x3xf32, #ge.layout<NHWC>>
  %gm = ge.global_max_pool %xh {data_format = "NHWC"} : tensor<2x6x6x3xf32, #ge.layout<NHWC>> -> tensor<2x1x1x3xf32, #ge.layout<NHWC>>
  %mh = ge.max_pool %xh {data_format = "NHWC", ksize = array<i64: 1, 2, 2, 1>} : tensor<2x6x6x3xf32, #ge.layout<NHWC>> -> tensor<2x5x5x3xf32, #ge.layout<NHWC>>
  ge.netoutput %m, %a, %ga, %gm, %mh : tensor<1x16x5x5xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<1x16x4x4xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<1x16x1x1xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<2x1x1x3xf32, #ge.layout<NHWC>>, tensor<2x5x5x3xf32, #ge.layout<NHWC>>
}

// -----

// CHECK-LABEL: ge.graph @norms
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<2x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    [[P:%.*]] = ge.const {value = dense<1.000000e+00> : tensor<3xf32>} : tensor<3xf32>
// CHECK-NEXT:    [[BN:%.*]] = ge.batch_norm [[X]], [[P]], [[P]], [[P]], [[P]] {data_format = "NCHW", epsilon = 1.000000e-03 : f32} : (tensor<2x3x4x4xf32, #ge.layout<NCHW>>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    [[IN:%.*]] = ge.instance_norm [[BN]], [[P]], [[P]] {data_format = "NCHW"} : (tensor<2x3x4x4xf32, #ge.layout<NCHW>>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    [[L:%.*]] = ge.lrn [[IN]] {data_format = "NCHW", size = 3 : i64, bias = 2.000000e+00 : f32} : tensor<2x3x4x4xf32, #ge.layout<NCHW>> -> tensor<2x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    [[BA:%.*]] = ge.bias_add [[L]], [[P]] {data_format = "NCHW"} : (tensor<2x3x4x4xf32, #ge.layout<NCHW>>, tensor<3xf32>) -> tensor<2x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    [[XH:%.*]] = ge.data {index = 1 : i64} : tensor<2x4x4x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    [[BH:%.*]] = ge.batch_norm [[XH]], [[P]], [[P]], [[P]], [[P]] {data_format = "NHWC"} : (tensor<2x4x4x3xf32, #ge.layout<NHWC>>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x4x4x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    [[BAH:%.*]] = ge.bias_add [[BH]], [[P]] {data_format = "NHWC"} : (tensor<2x4x4x3xf32, #ge.layout<NHWC>>, tensor<3xf32>) -> tensor<2x4x4x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    [[M:%.*]] = ge.data {index = 2 : i64} : tensor<5x3xf32>
// CHECK-NEXT:    [[BAM:%.*]] = ge.bias_add [[M]], [[P]] {data_format = "NCHW"} : (tensor<5x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
// CHECK-NEXT:    ge.netoutput [[BA]], [[BAH]], [[BAM]] :
ge.graph @norms {
  %x = ge.data {index = 0 : i64} : tensor<2x3x4x4xf32, #ge.layout<NCHW>>
  %p = ge.const {value = dense<1.0> : tensor<3xf32>} : tensor<3xf32>
  %bn = ge.batch_norm %x, %p, %p, %p, %p {data_format = "NCHW", epsilon = 1.0e-03 : f32} : (tensor<2x3x4x4xf32, #ge.layout<NCHW>>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32, #ge.layout<NCHW>>
  %in = ge.instance_norm %bn, %p, %p {data_format = "NCHW"} : (tensor<2x3x4x4xf32, #ge.layout<NCHW>>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32, #ge.layout<NCHW>>
  %l = ge.lrn %in {data_format = "NCHW", size = 3 : i64, alpha = 1.0e-04 : f32, beta = 0.75 : f32, bias = 2.0 : f32} : tensor<2x3x4x4xf32, #ge.layout<NCHW>> -> tensor<2x3x4x4xf32, #ge.layout<NCHW>>
  %ba = ge.bias_add %l, %p {data_format = "NCHW"} : (tensor<2x3x4x4xf32, #ge.layout<NCHW>>, tensor<3xf32>) -> tensor<2x3x4x4xf32, #ge.layout<NCHW>>
  %xh = ge.data {index = 1 : i64} : tensor<2x4x4x3xf32, #ge.layout<NHWC>>
  %bh = ge.batch_norm %xh, %p, %p, %p, %p {data_format = "NHWC"} : (tensor<2x4x4x3xf32, #ge.layout<NHWC>>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x4x4x3xf32, #ge.layout<NHWC>>
  %bah = ge.bias_add %bh, %p {data_format = "NHWC"} : (tensor<2x4x4x3xf32, #ge.layout<NHWC>>, tensor<3xf32>) -> tensor<2x4x4x3xf32, #ge.layout<NHWC>>
  %m = ge.data {index = 2 : i64} : tensor<5x3xf32>
  %bam = ge.bias_add %m, %p {data_format = "NCHW"} : (tensor<5x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  ge.netoutput %ba, %bah, %bam : tensor<2x3x4x4xf32, #ge.layout<NCHW>>, tensor<2x4x4x3xf32, #ge.layout<NHWC>>, tensor<5x3xf32>
}

// -----

// Results declared with unknown dims are placeholders (infer-shape fills them).
// CHECK-LABEL: ge.graph @placeholder_result
// CHECK:         ge.conv2d {{.*}} -> tensor<?x?x?x?xf32>
ge.graph @placeholder_result {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  %w = ge.const {value = dense<1.0> : tensor<4x3x3x3xf32>} : tensor<4x3x3x3xf32>
  %y = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x?x?x?xf32>
  ge.netoutput %y : tensor<?x?x?x?xf32>
}

// -----

// Dilated windows and the Lp pools; `p` defaults to 2 and is elided.

// CHECK-LABEL: ge.graph @lp_pools
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<1x17x5x5xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[L:%.*]] = ge.lp_pool [[X]] {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, dilations = array<i64: 1, 1, 2, 2>, p = 3.000000e+00 : f32} : tensor<1x17x5x5xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[M:%.*]] = ge.max_pool [[X]] {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>, dilations = array<i64: 1, 1, 2, 3>, ceil_mode = true} : tensor<1x17x5x5xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[G:%.*]] = ge.global_lp_pool [[X]] {data_format = "NCHW"} : tensor<1x17x5x5xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x1x1xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    ge.netoutput [[L]], [[M]], [[G]] :
ge.graph @lp_pools {
  %x = ge.data {index = 0 : i64} : tensor<1x17x5x5xf32, #ge.layout<NCHW, NC1HWC0>>
  %l = ge.lp_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, dilations = array<i64: 1, 1, 2, 2>, p = 3.0 : f32} : tensor<1x17x5x5xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  %m = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>, dilations = array<i64: 1, 1, 2, 3>, ceil_mode = true} : tensor<1x17x5x5xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  %g = ge.global_lp_pool %x {data_format = "NCHW", p = 2.0 : f32} : tensor<1x17x5x5xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x1x1xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %l, %m, %g : tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x17x2x2xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x17x1x1xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// MaxPool's Indices: two results, the values and their int64 positions.

// CHECK-LABEL: ge.graph @argmax
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<1x3x5x5xf32>
// CHECK-NEXT:    [[Y:%.*]], [[I:%.*]] = ge.max_pool_with_argmax [[X]] {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 1, 0, 1, 0>, storage_order = 1 : i64} : tensor<1x3x5x5xf32> -> tensor<1x3x3x3xf32>, tensor<1x3x3x3xi64>
// CHECK-NEXT:    ge.netoutput [[Y]], [[I]] :
ge.graph @argmax {
  %x = ge.data {index = 0 : i64} : tensor<1x3x5x5xf32>
  %y, %i = ge.max_pool_with_argmax %x {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 1, 0, 1, 0>, storage_order = 1 : i64} : tensor<1x3x5x5xf32> -> tensor<1x3x3x3xf32>, tensor<1x3x3x3xi64>
  ge.netoutput %y, %i : tensor<1x3x3x3xf32>, tensor<1x3x3x3xi64>
}

// -----

// CHECK-LABEL: ge.graph @unpool
// CHECK:         [[U:%.*]] = ge.max_unpool %{{.*}}, %{{.*}} {output_shape = array<i64: 1, 3, 5, 5>} : (tensor<1x3x2x2xf32>, tensor<1x3x2x2xi64>) -> tensor<1x3x5x5xf32>
// CHECK-NEXT:    ge.netoutput [[U]]
ge.graph @unpool {
  %x = ge.data {index = 0 : i64} : tensor<1x3x2x2xf32>
  %i = ge.data {index = 1 : i64} : tensor<1x3x2x2xi64>
  %u = ge.max_unpool %x, %i {output_shape = array<i64: 1, 3, 5, 5>} : (tensor<1x3x2x2xf32>, tensor<1x3x2x2xi64>) -> tensor<1x3x5x5xf32>
  ge.netoutput %u : tensor<1x3x5x5xf32>
}
