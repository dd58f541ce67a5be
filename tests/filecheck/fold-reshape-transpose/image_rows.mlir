// RUN: ge-opt %s --split-input-file --fold-reshape-transpose | filecheck %s

// A patch embedding: the convolution's result flattened over H, W and the
// channels moved last become one confusion transpose (17 channels, 3x11
// patches: whole channel vectors move whatever the sizes).
// CHECK-LABEL: ge.graph @patch_tokens
// CHECK:         %c = ge.conv2d
// CHECK-NEXT:    %t = ge.confusion_transpose %c {perm = array<i64: 0, 2, 1>, shape = array<i64: 2, 17, 33>, name = "flattenmove"} : tensor<2x17x3x11xf32> -> tensor<2x33x17xf32>
// CHECK-NEXT:    ge.netoutput %t
ge.graph @patch_tokens {
  %x = ge.data {index = 0 : i64} : tensor<2x3x6x22xf32>
  %w = ge.const {value = dense<0.5> : tensor<17x3x2x2xf32>} : tensor<17x3x2x2xf32>
  %c = ge.conv2d %x, %w {strides = array<i64: 1, 1, 2, 2>, data_format = "NCHW"} : (tensor<2x3x6x22xf32>, tensor<17x3x2x2xf32>) -> tensor<2x17x3x11xf32>
  %r = ge.reshape %c {shape = array<i64: 2, 17, 33>, name = "flatten"} : tensor<2x17x3x11xf32> -> tensor<2x17x33xf32>
  %t = ge.transpose %r {perm = array<i64: 0, 2, 1>, name = "move"} : tensor<2x17x33xf32> -> tensor<2x33x17xf32>
  ge.netoutput %t : tensor<2x33x17xf32>
}

// -----

// A CTC head: an activation after the convolution, a squeeze of the unit H
// axis, the channels moved last for the classifier's product.
// CHECK-LABEL: ge.graph @ctc_columns
// CHECK:         %a = ge.relu %c
// CHECK-NEXT:    %t = ge.confusion_transpose %a {perm = array<i64: 0, 2, 1>, shape = array<i64: 1, 100, 17>} : tensor<1x100x1x17xf32> -> tensor<1x17x100xf32>
// CHECK-NEXT:    %y = ge.batch_matmul %t, %v
ge.graph @ctc_columns {
  %x = ge.data {index = 0 : i64} : tensor<1x3x1x17xf32>
  %w = ge.const {value = dense<0.5> : tensor<100x3x1x1xf32>} : tensor<100x3x1x1xf32>
  %v = ge.const {value = dense<0.25> : tensor<100x3xf32>} : tensor<100x3xf32>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x1x17xf32>, tensor<100x3x1x1xf32>) -> tensor<1x100x1x17xf32>
  %a = ge.relu %c : tensor<1x100x1x17xf32> -> tensor<1x100x1x17xf32>
  %s = ge.squeeze %a {axes = array<i64: 2>} : tensor<1x100x1x17xf32> -> tensor<1x100x17xf32>
  %t = ge.transpose %s {perm = array<i64: 0, 2, 1>} : tensor<1x100x17xf32> -> tensor<1x17x100xf32>
  %y = ge.batch_matmul %t, %v : (tensor<1x17x100xf32>, tensor<100x3xf32>) -> tensor<1x17x3xf32>
  ge.netoutput %y : tensor<1x17x3xf32>
}

// -----

// Tokens folded back into an image for the next convolution (SVTR's mixing
// blocks end so): reshape to [N, H, W, C], channels moved to axis 1.
// CHECK-LABEL: ge.graph @rows_to_image
// CHECK:         %t = ge.confusion_transpose %x {perm = array<i64: 0, 3, 1, 2>, shape = array<i64: 1, 1, 33, 17>} : tensor<1x33x17xf32> -> tensor<1x17x1x33xf32>
// CHECK-NEXT:    %c = ge.conv2d %t, %w
ge.graph @rows_to_image {
  %x = ge.data {index = 0 : i64} : tensor<1x33x17xf32>
  %w = ge.const {value = dense<0.5> : tensor<3x17x1x1xf32>} : tensor<3x17x1x1xf32>
  %r = ge.reshape %x {shape = array<i64: 1, 1, 33, 17>} : tensor<1x33x17xf32> -> tensor<1x1x33x17xf32>
  %t = ge.transpose %r {perm = array<i64: 0, 3, 1, 2>} : tensor<1x1x33x17xf32> -> tensor<1x17x1x33xf32>
  %c = ge.conv2d %t, %w {data_format = "NCHW"} : (tensor<1x17x1x33xf32>, tensor<3x17x1x1xf32>) -> tensor<1x3x1x33xf32>
  ge.netoutput %c : tensor<1x3x1x33xf32>
}

// -----

// An attention head merge reads a matrix product, not an image anchored in
// NC1HWC0: it stays for fuse-confusion-transpose between FRACTAL_NZ values.
// CHECK-LABEL: ge.graph @no_head_merge
// CHECK:         ge.transpose
// CHECK-NEXT:    ge.reshape
// CHECK-NOT:     ge.confusion_transpose
ge.graph @no_head_merge {
  %a = ge.data {index = 0 : i64} : tensor<2x3x17x16xf32>
  %b = ge.data {index = 1 : i64} : tensor<2x3x16x16xf32>
  %p = ge.batch_matmul %a, %b : (tensor<2x3x17x16xf32>, tensor<2x3x16x16xf32>) -> tensor<2x3x17x16xf32>
  %t = ge.transpose %p {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x17x16xf32> -> tensor<2x17x3x16xf32>
  %r = ge.reshape %t {shape = array<i64: 2, 17, 48>} : tensor<2x17x3x16xf32> -> tensor<2x17x48xf32>
  ge.netoutput %r : tensor<2x17x48xf32>
}

// -----

// The rows interleave channels with H (C and H merged, then moved last):
// no channel vector stays whole, the chain stays.
// CHECK-LABEL: ge.graph @no_interleaved_channels
// CHECK:         ge.reshape
// CHECK-NEXT:    ge.transpose
// CHECK-NOT:     ge.confusion_transpose
ge.graph @no_interleaved_channels {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32>
  %w = ge.const {value = dense<0.5> : tensor<32x3x1x1xf32>} : tensor<32x3x1x1xf32>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x4x4xf32>, tensor<32x3x1x1xf32>) -> tensor<1x32x4x4xf32>
  %r = ge.reshape %c {shape = array<i64: 1, 128, 4>} : tensor<1x32x4x4xf32> -> tensor<1x128x4xf32>
  %t = ge.transpose %r {perm = array<i64: 0, 2, 1>} : tensor<1x128x4xf32> -> tensor<1x4x128xf32>
  ge.netoutput %t : tensor<1x4x128xf32>
}

// -----

// A reshape alone (no transpose) is not this fusion.
// CHECK-LABEL: ge.graph @no_transpose
// CHECK:         ge.reshape
// CHECK-NOT:     ge.confusion_transpose
ge.graph @no_transpose {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32>
  %w = ge.const {value = dense<0.5> : tensor<17x3x1x1xf32>} : tensor<17x3x1x1xf32>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x4x4xf32>, tensor<17x3x1x1xf32>) -> tensor<1x17x4x4xf32>
  %r = ge.reshape %c {shape = array<i64: 1, 17, 16>} : tensor<1x17x4x4xf32> -> tensor<1x17x16xf32>
  ge.netoutput %r : tensor<1x17x16xf32>
}
