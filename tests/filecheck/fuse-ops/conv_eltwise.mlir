// RUN: ge-opt %s --split-input-file --fuse-ops | filecheck %s

// ConvEltwiseFusion: a convolution and its elementwise epilogue become one
// ge.fused. 17 input and 33 output channels leave a partial C1 block.

// Bias (a conv operand), scale by a constant, relu.
// CHECK-LABEL: ge.graph @conv_scale_relu
// CHECK:         %[[Y:.*]] = ge.fused %x, %w, %b, %s {fusion_rule = "ConvEltwiseFusion", name = "conv+scale+relu"}
// CHECK-NEXT:      %[[X:.*]] = ge.data {parent_index = 0 : i64}
// CHECK-NEXT:      %[[W:.*]] = ge.data {parent_index = 1 : i64}
// CHECK-NEXT:      %[[B:.*]] = ge.data {parent_index = 2 : i64}
// CHECK-NEXT:      %[[S:.*]] = ge.data {parent_index = 3 : i64}
// CHECK-NEXT:      %[[C:.*]] = ge.conv2d %[[X]], %[[W]], %[[B]]
// CHECK-NEXT:      %[[M:.*]] = ge.mul %[[C]], %[[S]]
// CHECK-NEXT:      %[[R:.*]] = ge.relu %[[M]]
// CHECK-NEXT:      ge.netoutput %[[R]]
// CHECK-NEXT:    }
// CHECK-NEXT:    ge.netoutput %[[Y]]
ge.graph @conv_scale_relu {
  %x = ge.data {index = 0 : i64} : tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
  %w = ge.const {value = #ge.external<"w">} : tensor<33x17x3x3xf32, #ge.layout<NCHW, FRACTAL_Z>>
  %b = ge.const {value = dense<0.25> : tensor<33xf32>} : tensor<33xf32>
  %s = ge.const {value = dense<0.5> : tensor<1xf32>} : tensor<1xf32>
  %c = ge.conv2d %x, %w, %b {data_format = "NCHW", pads = array<i64: 1, 1, 1, 1>, name = "conv"} : (tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<33x17x3x3xf32, #ge.layout<NCHW, FRACTAL_Z>>, tensor<33xf32>) -> tensor<1x33x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
  %m = ge.mul %c, %s {name = "scale"} : (tensor<1x33x6x6xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1xf32>) -> tensor<1x33x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.relu %m {name = "relu"} : tensor<1x33x6x6xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x33x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %r : tensor<1x33x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// Residual add and relu; the convolution's result is also a graph output, so
// the group keeps it: an extra result of ge.fused, the tile stored twice.
// CHECK-LABEL: ge.graph @conv_residual_relu_keeps_shared
// CHECK:         %[[K:.*]], %[[Y:.*]] = ge.fused %x, %w, %skip {fusion_rule = "ConvEltwiseFusion"}
// CHECK:           %[[C:.*]] = ge.conv2d
// CHECK-NEXT:      %[[A:.*]] = ge.add %[[C]], %{{.*}}
// CHECK-NEXT:      %[[R:.*]] = ge.relu %[[A]]
// CHECK-NEXT:      ge.netoutput %[[C]], %[[R]]
// CHECK:         ge.netoutput %[[Y]], %[[K]]
ge.graph @conv_residual_relu_keeps_shared {
  %x = ge.data {index = 0 : i64} : tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
  %skip = ge.data {index = 1 : i64} : tensor<1x33x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
  %w = ge.const {value = #ge.external<"w">} : tensor<33x17x1x1xf32, #ge.layout<NCHW, FRACTAL_Z>>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<33x17x1x1xf32, #ge.layout<NCHW, FRACTAL_Z>>) -> tensor<1x33x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.add %c, %skip : (tensor<1x33x6x6xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x33x6x6xf32, #ge.layout<NCHW, NC1HWC0>>) -> tensor<1x33x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.relu %a : tensor<1x33x6x6xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x33x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %r, %c : tensor<1x33x6x6xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x33x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// A separate bias_add and relu6 (clip), NHWC convolution in origin format.
// CHECK-LABEL: ge.graph @conv_nhwc_bias_add_clip
// CHECK:         ge.fused %x, %w, %b {fusion_rule = "ConvEltwiseFusion"}
// CHECK:           ge.conv2d
// CHECK-NEXT:      ge.bias_add
// CHECK-NEXT:      ge.clip
// CHECK-NEXT:      ge.netoutput
ge.graph @conv_nhwc_bias_add_clip {
  %x = ge.data {index = 0 : i64} : tensor<1x5x5x3xf32, #ge.layout<NHWC>>
  %w = ge.const {value = dense<0.125> : tensor<3x3x3x17xf32>} : tensor<3x3x3x17xf32, #ge.layout<HWCN>>
  %b = ge.const {value = dense<-0.5> : tensor<17xf32>} : tensor<17xf32>
  %c = ge.conv2d %x, %w {data_format = "NHWC", strides = array<i64: 1, 2, 2, 1>} : (tensor<1x5x5x3xf32, #ge.layout<NHWC>>, tensor<3x3x3x17xf32, #ge.layout<HWCN>>) -> tensor<1x2x2x17xf32, #ge.layout<NHWC>>
  %d = ge.bias_add %c, %b {data_format = "NHWC"} : (tensor<1x2x2x17xf32, #ge.layout<NHWC>>, tensor<17xf32>) -> tensor<1x2x2x17xf32, #ge.layout<NHWC>>
  %e = ge.clip %d {min = 0.0 : f32, max = 6.0 : f32} : tensor<1x2x2x17xf32, #ge.layout<NHWC>> -> tensor<1x2x2x17xf32, #ge.layout<NHWC>>
  ge.netoutput %e : tensor<1x2x2x17xf32, #ge.layout<NHWC>>
}

// -----

// float16: a grouped convolution and a sigmoid.
// CHECK-LABEL: ge.graph @grouped_conv_sigmoid_f16
// CHECK:         ge.fused %x, %w {fusion_rule = "ConvEltwiseFusion"}
// CHECK:           ge.conv2d {{.*}}groups = 3
// CHECK-NEXT:      ge.sigmoid
ge.graph @grouped_conv_sigmoid_f16 {
  %x = ge.data {index = 0 : i64} : tensor<1x6x4x4xf16, #ge.layout<NCHW>>
  %w = ge.const {value = dense<0.25> : tensor<9x2x3x3xf16>} : tensor<9x2x3x3xf16, #ge.layout<NCHW>>
  %c = ge.conv2d %x, %w {data_format = "NCHW", groups = 3 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x6x4x4xf16, #ge.layout<NCHW>>, tensor<9x2x3x3xf16, #ge.layout<NCHW>>) -> tensor<1x9x4x4xf16, #ge.layout<NCHW>>
  %s = ge.sigmoid %c : tensor<1x9x4x4xf16, #ge.layout<NCHW>> -> tensor<1x9x4x4xf16, #ge.layout<NCHW>>
  ge.netoutput %s : tensor<1x9x4x4xf16, #ge.layout<NCHW>>
}

// -----

// Two convolutions: a group has one heavy op; each takes its own relu.
// CHECK-LABEL: ge.graph @no_fuse_two_convolutions
// CHECK:         %[[A:.*]] = ge.fused %x, %w1 {fusion_rule = "ConvEltwiseFusion"}
// CHECK:           ge.conv2d
// CHECK-NEXT:      ge.relu
// CHECK:         %[[B:.*]] = ge.fused %[[A]], %w2 {fusion_rule = "ConvEltwiseFusion"}
// CHECK:           ge.conv2d
// CHECK-NEXT:      ge.relu
// CHECK:         ge.netoutput %[[B]]
ge.graph @no_fuse_two_convolutions {
  %x = ge.data {index = 0 : i64} : tensor<1x3x5x5xf32, #ge.layout<NCHW>>
  %w1 = ge.const {value = dense<0.5> : tensor<8x3x1x1xf32>} : tensor<8x3x1x1xf32, #ge.layout<NCHW>>
  %w2 = ge.const {value = dense<0.5> : tensor<8x8x1x1xf32>} : tensor<8x8x1x1xf32, #ge.layout<NCHW>>
  %a = ge.conv2d %x, %w1 {data_format = "NCHW"} : (tensor<1x3x5x5xf32, #ge.layout<NCHW>>, tensor<8x3x1x1xf32, #ge.layout<NCHW>>) -> tensor<1x8x5x5xf32, #ge.layout<NCHW>>
  %ar = ge.relu %a : tensor<1x8x5x5xf32, #ge.layout<NCHW>> -> tensor<1x8x5x5xf32, #ge.layout<NCHW>>
  %b = ge.conv2d %ar, %w2 {data_format = "NCHW"} : (tensor<1x8x5x5xf32, #ge.layout<NCHW>>, tensor<8x8x1x1xf32, #ge.layout<NCHW>>) -> tensor<1x8x5x5xf32, #ge.layout<NCHW>>
  %br = ge.relu %b : tensor<1x8x5x5xf32, #ge.layout<NCHW>> -> tensor<1x8x5x5xf32, #ge.layout<NCHW>>
  ge.netoutput %br : tensor<1x8x5x5xf32, #ge.layout<NCHW>>
}

// -----

// The convolution's result is also read by an op placed between it and the
// relu: the group would have to sit before that reader, so the relu stays.
// CHECK-LABEL: ge.graph @no_fuse_multi_consumer_before
// CHECK-NOT:     ge.fused
// CHECK:         ge.conv2d
// CHECK-NEXT:    ge.transdata
// CHECK-NEXT:    ge.relu
ge.graph @no_fuse_multi_consumer_before {
  %x = ge.data {index = 0 : i64} : tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
  %w = ge.const {value = #ge.external<"w">} : tensor<33x17x1x1xf32, #ge.layout<NCHW, FRACTAL_Z>>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<33x17x1x1xf32, #ge.layout<NCHW, FRACTAL_Z>>) -> tensor<1x33x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
  %t = ge.transdata %c {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x33x6x6xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x33x6x6xf32, #ge.layout<NCHW>>
  %r = ge.relu %c : tensor<1x33x6x6xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x33x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %r, %t : tensor<1x33x6x6xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x33x6x6xf32, #ge.layout<NCHW>>
}

// -----

// The add reads the relu twice: directly and through a pooling outside the
// group. Taking it in would make a cycle, so the group stops at the relu;
// the add joins the pooling's group instead (PoolEltwiseFusion), reading the
// relu as an operand.
// CHECK-LABEL: ge.graph @no_fuse_multi_consumer_cycle
// CHECK:         %[[G:.*]] = ge.fused %x, %w {fusion_rule = "ConvEltwiseFusion"}
// CHECK:           ge.conv2d
// CHECK-NEXT:      ge.relu
// CHECK-NEXT:      ge.netoutput
// CHECK:         %[[A:.*]] = ge.fused %[[G]] {fusion_rule = "PoolEltwiseFusion"}
// CHECK-NEXT:      %[[R:.*]] = ge.data {parent_index = 0 : i64}
// CHECK-NEXT:      %[[P:.*]] = ge.max_pool %[[R]]
// CHECK-NEXT:      ge.add %[[R]], %[[P]]
// CHECK:         ge.netoutput %[[A]]
ge.graph @no_fuse_multi_consumer_cycle {
  %x = ge.data {index = 0 : i64} : tensor<1x8x4x4xf32, #ge.layout<NCHW>>
  %w = ge.const {value = dense<0.125> : tensor<8x8x1x1xf32>} : tensor<8x8x1x1xf32, #ge.layout<NCHW>>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x8x4x4xf32, #ge.layout<NCHW>>, tensor<8x8x1x1xf32, #ge.layout<NCHW>>) -> tensor<1x8x4x4xf32, #ge.layout<NCHW>>
  %r = ge.relu %c : tensor<1x8x4x4xf32, #ge.layout<NCHW>> -> tensor<1x8x4x4xf32, #ge.layout<NCHW>>
  %p = ge.max_pool %r {data_format = "NCHW", ksize = array<i64: 1, 1, 3, 3>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x8x4x4xf32, #ge.layout<NCHW>> -> tensor<1x8x4x4xf32, #ge.layout<NCHW>>
  %a = ge.add %r, %p : (tensor<1x8x4x4xf32, #ge.layout<NCHW>>, tensor<1x8x4x4xf32, #ge.layout<NCHW>>) -> tensor<1x8x4x4xf32, #ge.layout<NCHW>>
  ge.netoutput %a : tensor<1x8x4x4xf32, #ge.layout<NCHW>>
}

// -----

// The relu stores NCHW while the convolution's tile is NC1HWC0: one nest
// cannot hold both, so they stay apart.
// CHECK-LABEL: ge.graph @no_fuse_format_mismatch
// CHECK-NOT:     ge.fused
ge.graph @no_fuse_format_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
  %w = ge.const {value = #ge.external<"w">} : tensor<33x17x1x1xf32, #ge.layout<NCHW, FRACTAL_Z>>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<33x17x1x1xf32, #ge.layout<NCHW, FRACTAL_Z>>) -> tensor<1x33x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.relu %c : tensor<1x33x6x6xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x33x6x6xf32, #ge.layout<NCHW>>
  ge.netoutput %r : tensor<1x33x6x6xf32, #ge.layout<NCHW>>
}

// -----

// A cast does not fuse and groups compute in floats: the int32 relu stays out.
// CHECK-LABEL: ge.graph @no_fuse_dtype_mismatch
// CHECK-NOT:     ge.fused
ge.graph @no_fuse_dtype_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %w = ge.const {value = dense<0.5> : tensor<8x3x1x1xf32>} : tensor<8x3x1x1xf32, #ge.layout<NCHW>>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x4x4xf32, #ge.layout<NCHW>>, tensor<8x3x1x1xf32, #ge.layout<NCHW>>) -> tensor<1x8x4x4xf32, #ge.layout<NCHW>>
  %i = ge.cast %c {dst_type = i32} : tensor<1x8x4x4xf32, #ge.layout<NCHW>> -> tensor<1x8x4x4xi32, #ge.layout<NCHW>>
  %r = ge.relu %i : tensor<1x8x4x4xi32, #ge.layout<NCHW>> -> tensor<1x8x4x4xi32, #ge.layout<NCHW>>
  ge.netoutput %r : tensor<1x8x4x4xi32, #ge.layout<NCHW>>
}
