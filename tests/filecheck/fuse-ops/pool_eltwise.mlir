// RUN: ge-opt %s --split-input-file --fuse-ops | filecheck %s

// PoolEltwiseFusion: pooling (windowed and global) with its epilogue.

// CHECK-LABEL: ge.graph @max_pool_relu
// CHECK:         ge.fused %x {fusion_rule = "PoolEltwiseFusion"}
// CHECK:           ge.max_pool
// CHECK-NEXT:      ge.relu
ge.graph @max_pool_relu {
  %x = ge.data {index = 0 : i64} : tensor<1x17x5x5xf32, #ge.layout<NCHW, NC1HWC0>>
  %p = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 3, 3>, strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x17x5x5xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.relu %p : tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %r : tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// Average pooling (its count division stays in the reduction's finish), then
// a per-channel scale stored as NC1HWC0.
// CHECK-LABEL: ge.graph @avg_pool_scale
// CHECK:         ge.fused %x, %s {fusion_rule = "PoolEltwiseFusion"}
// CHECK:           ge.avg_pool
// CHECK-NEXT:      ge.mul
ge.graph @avg_pool_scale {
  %x = ge.data {index = 0 : i64} : tensor<1x17x5x5xf32, #ge.layout<NCHW, NC1HWC0>>
  %s = ge.const {value = dense<1.5> : tensor<1x3x1x1x8xf32>} : tensor<1x17x1x1xf32, #ge.layout<NCHW, NC1HWC0>>
  %p = ge.avg_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 3, 3>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x17x5x5xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x5x5xf32, #ge.layout<NCHW, NC1HWC0>>
  %m = ge.mul %p, %s : (tensor<1x17x5x5xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x17x1x1xf32, #ge.layout<NCHW, NC1HWC0>>) -> tensor<1x17x5x5xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %m : tensor<1x17x5x5xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// Global average pooling in NHWC (the reduced axes are not the last ones).
// CHECK-LABEL: ge.graph @global_avg_pool_nhwc_sigmoid
// CHECK:         ge.fused %x {fusion_rule = "PoolEltwiseFusion"}
// CHECK:           ge.global_avg_pool
// CHECK-NEXT:      ge.sigmoid
ge.graph @global_avg_pool_nhwc_sigmoid {
  %x = ge.data {index = 0 : i64} : tensor<2x3x5x17xf32, #ge.layout<NHWC>>
  %p = ge.global_avg_pool %x {data_format = "NHWC"} : tensor<2x3x5x17xf32, #ge.layout<NHWC>> -> tensor<2x1x1x17xf32, #ge.layout<NHWC>>
  %s = ge.sigmoid %p : tensor<2x1x1x17xf32, #ge.layout<NHWC>> -> tensor<2x1x1x17xf32, #ge.layout<NHWC>>
  ge.netoutput %s : tensor<2x1x1x17xf32, #ge.layout<NHWC>>
}

// -----

// Global max pooling feeding two elementwise consumers: both join (a tree).
// CHECK-LABEL: ge.graph @global_max_pool_two_consumers
// CHECK:         %[[A:.*]], %[[B:.*]] = ge.fused %x {fusion_rule = "PoolEltwiseFusion"}
// CHECK:           ge.global_max_pool
// CHECK-NEXT:      ge.relu
// CHECK-NEXT:      ge.neg
// CHECK:         ge.netoutput %[[A]], %[[B]]
ge.graph @global_max_pool_two_consumers {
  %x = ge.data {index = 0 : i64} : tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  %p = ge.global_max_pool %x {data_format = "NCHW"} : tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x1x1xf32, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.relu %p : tensor<1x17x1x1xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x1x1xf32, #ge.layout<NCHW, NC1HWC0>>
  %b = ge.neg %p : tensor<1x17x1x1xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x1x1xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %a, %b : tensor<1x17x1x1xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x17x1x1xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// A pooling after a pooling: the second is not an epilogue.
// CHECK-LABEL: ge.graph @no_fuse_pool_after_pool
// CHECK-NOT:     ge.fused
ge.graph @no_fuse_pool_after_pool {
  %x = ge.data {index = 0 : i64} : tensor<1x8x4x4xf32, #ge.layout<NCHW>>
  %p = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>} : tensor<1x8x4x4xf32, #ge.layout<NCHW>> -> tensor<1x8x3x3xf32, #ge.layout<NCHW>>
  %q = ge.avg_pool %p {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>} : tensor<1x8x3x3xf32, #ge.layout<NCHW>> -> tensor<1x8x2x2xf32, #ge.layout<NCHW>>
  ge.netoutput %q : tensor<1x8x2x2xf32, #ge.layout<NCHW>>
}
