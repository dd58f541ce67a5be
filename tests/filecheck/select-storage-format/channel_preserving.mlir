// RUN: ge-opt %s --split-input-file --refine-running-format --select-storage-format | filecheck %s
// RUN: ge-opt %s --split-input-file --ge-format-pipeline=data-format=NHWC | filecheck %s --check-prefix=PIPE

// A pad or a reduction runs in NC1HWC0 when it leaves C alone
// (`accepts_layouts`): pads of N, H, W and reductions over N, H, W keep
// C's blocks, as GE's PadD and ReduceMeanD do; C padded or reduced: origin.

// Reflect-padding H and W between two NHWC convs (C = 33): 5HD throughout,
// one TransData in and one out.
// CHECK-LABEL: ge.graph @pad_hw_nhwc
// CHECK:         %p = ge.pad %c {paddings = array<i64: 0, 1, 0, 0, 0, 1, 1, 0>, mode = "reflect"} : tensor<1x6x6x33xf32, #ge.layout<NHWC, NC1HWC0>> -> tensor<1x8x7x33xf32, #ge.layout<NHWC, NC1HWC0>>
// CHECK-NEXT:    %d = ge.conv2d %p, %v {data_format = "NHWC", input_layouts = [#ge.layout<NHWC, NC1HWC0>, #ge.layout<HWCN, FRACTAL_Z>]}
// PIPE-LABEL: ge.graph @pad_hw_nhwc
// PIPE-COUNT-2: ge.transdata %
// PIPE-NOT:     ge.transdata %
// PIPE:         ge.netoutput
ge.graph @pad_hw_nhwc {
  %x = ge.data {index = 0 : i64} : tensor<1x6x6x17xf32, #ge.layout<NHWC>>
  %w = ge.const {value = dense<0.5> : tensor<1x1x17x33xf32>} : tensor<1x1x17x33xf32, #ge.layout<HWCN>>
  %v = ge.const {value = dense<0.25> : tensor<3x3x33x17xf32>} : tensor<3x3x33x17xf32, #ge.layout<HWCN>>
  %c = ge.conv2d %x, %w {data_format = "NHWC"} : (tensor<1x6x6x17xf32, #ge.layout<NHWC>>, tensor<1x1x17x33xf32, #ge.layout<HWCN>>) -> tensor<1x6x6x33xf32, #ge.layout<NHWC>>
  %p = ge.pad %c {paddings = array<i64: 0, 1, 0, 0, 0, 1, 1, 0>, mode = "reflect"} : tensor<1x6x6x33xf32, #ge.layout<NHWC>> -> tensor<1x8x7x33xf32, #ge.layout<NHWC>>
  %d = ge.conv2d %p, %v {data_format = "NHWC"} : (tensor<1x8x7x33xf32, #ge.layout<NHWC>>, tensor<3x3x33x17xf32, #ge.layout<HWCN>>) -> tensor<1x6x5x17xf32, #ge.layout<NHWC>>
  ge.netoutput %d : tensor<1x6x5x17xf32, #ge.layout<NHWC>>
}

// -----

// Padding C (17 -> 33) would move channels across C0 blocks: the pad reads
// and writes NCHW, the pool after it goes back into 5HD.
// CHECK-LABEL: ge.graph @no_pad_of_channels
// CHECK:         %p = ge.pad %c {paddings = array<i64: 0, 0, 1, 1, 0, 16, 1, 1>, input_layouts = [#ge.layout<NCHW>]} : tensor<1x17x5x5xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x33x7x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    ge.max_pool %p {{.*}}input_layouts = [#ge.layout<NCHW, NC1HWC0>]
ge.graph @no_pad_of_channels {
  %x = ge.data {index = 0 : i64} : tensor<1x17x5x5xf32, #ge.layout<NCHW>>
  %w = ge.const {value = dense<0.5> : tensor<17x17x1x1xf32>} : tensor<17x17x1x1xf32, #ge.layout<NCHW>>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x17x5x5xf32, #ge.layout<NCHW>>, tensor<17x17x1x1xf32, #ge.layout<NCHW>>) -> tensor<1x17x5x5xf32, #ge.layout<NCHW>>
  %p = ge.pad %c {paddings = array<i64: 0, 0, 1, 1, 0, 16, 1, 1>} : tensor<1x17x5x5xf32, #ge.layout<NCHW>> -> tensor<1x33x7x7xf32, #ge.layout<NCHW>>
  %m = ge.max_pool %p {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>} : tensor<1x33x7x7xf32, #ge.layout<NCHW>> -> tensor<1x33x3x3xf32, #ge.layout<NCHW>>
  ge.netoutput %m : tensor<1x33x3x3xf32, #ge.layout<NCHW>>
}

// -----

// Squeeze-and-excitation: the mean over H, W (kept dims) reads and writes
// 5HD, so the block's convs, sigmoid and the scaling mul stay in 5HD.
// CHECK-LABEL: ge.graph @squeeze_excite_nhwc
// CHECK:         %m = ge.reduce_mean %x {axes = array<i64: 1, 2>, input_layouts = [#ge.layout<NHWC, NC1HWC0>]} : tensor<1x5x5x17xf32, #ge.layout<NHWC>> -> tensor<1x1x1x17xf32, #ge.layout<NHWC, NC1HWC0>>
// CHECK-NEXT:    %r = ge.conv2d %m, %w {data_format = "NHWC", input_layouts = [#ge.layout<NHWC, NC1HWC0>, #ge.layout<HWCN, FRACTAL_Z>]}
// CHECK:         %s = ge.sigmoid %e : tensor<1x1x1x17xf32, #ge.layout<NHWC, NC1HWC0>> -> tensor<1x1x1x17xf32, #ge.layout<NHWC, NC1HWC0>>
// CHECK-NEXT:    %y = ge.mul %x, %s {input_layouts = [#ge.layout<NHWC, NC1HWC0>, #ge.layout<NHWC, NC1HWC0>]} : {{.*}} -> tensor<1x5x5x17xf32, #ge.layout<NHWC, NC1HWC0>>
// PIPE-LABEL: ge.graph @squeeze_excite_nhwc
// PIPE-COUNT-2: ge.transdata %
// PIPE-NOT:     ge.transdata %
// PIPE:         ge.netoutput
ge.graph @squeeze_excite_nhwc {
  %x = ge.data {index = 0 : i64} : tensor<1x5x5x17xf32, #ge.layout<NHWC>>
  %w = ge.const {value = dense<0.5> : tensor<1x1x17x3xf32>} : tensor<1x1x17x3xf32, #ge.layout<HWCN>>
  %u = ge.const {value = dense<0.25> : tensor<1x1x3x17xf32>} : tensor<1x1x3x17xf32, #ge.layout<HWCN>>
  %m = ge.reduce_mean %x {axes = array<i64: 1, 2>} : tensor<1x5x5x17xf32, #ge.layout<NHWC>> -> tensor<1x1x1x17xf32, #ge.layout<NHWC>>
  %r = ge.conv2d %m, %w {data_format = "NHWC"} : (tensor<1x1x1x17xf32, #ge.layout<NHWC>>, tensor<1x1x17x3xf32, #ge.layout<HWCN>>) -> tensor<1x1x1x3xf32, #ge.layout<NHWC>>
  %e = ge.conv2d %r, %u {data_format = "NHWC"} : (tensor<1x1x1x3xf32, #ge.layout<NHWC>>, tensor<1x1x3x17xf32, #ge.layout<HWCN>>) -> tensor<1x1x1x17xf32, #ge.layout<NHWC>>
  %s = ge.sigmoid %e : tensor<1x1x1x17xf32, #ge.layout<NHWC>> -> tensor<1x1x1x17xf32, #ge.layout<NHWC>>
  %y = ge.mul %x, %s : (tensor<1x5x5x17xf32, #ge.layout<NHWC>>, tensor<1x1x1x17xf32, #ge.layout<NHWC>>) -> tensor<1x5x5x17xf32, #ge.layout<NHWC>>
  %z = ge.conv2d %y, %w {data_format = "NHWC"} : (tensor<1x5x5x17xf32, #ge.layout<NHWC>>, tensor<1x1x17x3xf32, #ge.layout<HWCN>>) -> tensor<1x5x5x3xf32, #ge.layout<NHWC>>
  ge.netoutput %z : tensor<1x5x5x3xf32, #ge.layout<NHWC>>
}

// -----

// A global mean to [N, C] reads 5HD and writes ND (for the matmul).
// CHECK-LABEL: ge.graph @global_mean_to_matmul
// CHECK:         %m = ge.reduce_mean %c {axes = array<i64: 1, 2>, keep_dims = false} : tensor<1x4x4x33xf32, #ge.layout<NHWC, NC1HWC0>> -> tensor<1x33xf32>
// PIPE-LABEL: ge.graph @global_mean_to_matmul
// PIPE:         %[[M:.*]] = ge.reduce_mean %{{.*}} {axes = array<i64: 1, 2>, keep_dims = false} : tensor<1x4x4x33xf32, #ge.layout<NHWC, NC1HWC0>> -> tensor<1x33xf32>
// PIPE-NEXT:    ge.transdata %[[M]] {src_format = #ge.format<ND>, dst_format = #ge.format<FRACTAL_NZ>}
ge.graph @global_mean_to_matmul {
  %x = ge.data {index = 0 : i64} : tensor<1x4x4x17xf32, #ge.layout<NHWC>>
  %w = ge.const {value = dense<0.5> : tensor<1x1x17x33xf32>} : tensor<1x1x17x33xf32, #ge.layout<HWCN>>
  %k = ge.const {value = dense<0.5> : tensor<33x5xf32>} : tensor<33x5xf32>
  %c = ge.conv2d %x, %w {data_format = "NHWC"} : (tensor<1x4x4x17xf32, #ge.layout<NHWC>>, tensor<1x1x17x33xf32, #ge.layout<HWCN>>) -> tensor<1x4x4x33xf32, #ge.layout<NHWC>>
  %m = ge.reduce_mean %c {axes = array<i64: 1, 2>, keep_dims = false} : tensor<1x4x4x33xf32, #ge.layout<NHWC>> -> tensor<1x33xf32>
  %y = ge.matmul %m, %k : (tensor<1x33xf32>, tensor<33x5xf32>) -> tensor<1x5xf32>
  ge.netoutput %y : tensor<1x5xf32>
}

// -----

// A sum over C and a max over every axis read the origin format.
// CHECK-LABEL: ge.graph @no_reduce_of_channels
// CHECK:         %s = ge.reduce_sum %c {axes = array<i64: -1>, input_layouts = [#ge.layout<NHWC>]}
// CHECK-NEXT:    %a = ge.reduce_max %c {input_layouts = [#ge.layout<NHWC>]}
ge.graph @no_reduce_of_channels {
  %x = ge.data {index = 0 : i64} : tensor<1x4x4x17xf32, #ge.layout<NHWC>>
  %w = ge.const {value = dense<0.5> : tensor<1x1x17x33xf32>} : tensor<1x1x17x33xf32, #ge.layout<HWCN>>
  %c = ge.conv2d %x, %w {data_format = "NHWC"} : (tensor<1x4x4x17xf32, #ge.layout<NHWC>>, tensor<1x1x17x33xf32, #ge.layout<HWCN>>) -> tensor<1x4x4x33xf32, #ge.layout<NHWC>>
  %s = ge.reduce_sum %c {axes = array<i64: -1>} : tensor<1x4x4x33xf32, #ge.layout<NHWC>> -> tensor<1x4x4x1xf32, #ge.layout<NHWC>>
  %a = ge.reduce_max %c : tensor<1x4x4x33xf32, #ge.layout<NHWC>> -> tensor<1x1x1x1xf32, #ge.layout<NHWC>>
  ge.netoutput %s, %a : tensor<1x4x4x1xf32, #ge.layout<NHWC>>, tensor<1x1x1x1xf32, #ge.layout<NHWC>>
}
