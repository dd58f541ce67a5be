// RUN: ge-opt %s --split-input-file --fold-squeeze-chain | filecheck %s

// Silero's encoder: a 1-D conv's squeeze of the unit H axis, a ReLU, the
// next conv's unsqueeze. The ReLU keeps the axis; both reshapes go.
// CHECK-LABEL: ge.graph @conv1d_relu_conv1d
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %w = ge.const
// CHECK-NEXT:    %c = ge.conv2d %x, %w
// CHECK-NEXT:    %r = ge.relu %c : tensor<1x16x1x5xf32> -> tensor<1x16x1x5xf32>
// CHECK-NEXT:    %d = ge.conv2d %r, %w {data_format = "NCHW"} : (tensor<1x16x1x5xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x1x5xf32>
ge.graph @conv1d_relu_conv1d {
  %x = ge.data {index = 0 : i64} : tensor<1x16x1x5xf32>
  %w = ge.const {value = dense<0.5> : tensor<16x16x1x1xf32>} : tensor<16x16x1x1xf32>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x16x1x5xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x1x5xf32>
  %s = ge.squeeze %c {axes = array<i64: 2>} : tensor<1x16x1x5xf32> -> tensor<1x16x5xf32>
  %r = ge.relu %s : tensor<1x16x5xf32> -> tensor<1x16x5xf32>
  %u = ge.unsqueeze %r {axes = array<i64: 2>} : tensor<1x16x5xf32> -> tensor<1x16x1x5xf32>
  %d = ge.conv2d %u, %w {data_format = "NCHW"} : (tensor<1x16x1x5xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x1x5xf32>
  ge.netoutput %d : tensor<1x16x1x5xf32>
}

// -----

// Silero's STFT magnitude: two channel slices (their axis moves past the
// unit axis), a power by a scalar, a sum and a square root.
// CHECK-LABEL: ge.graph @stft_magnitude
// CHECK:         %re = ge.slice %x {begins = array<i64: 0>, ends = array<i64: 8>, axes = array<i64: 1>} : tensor<1x16x1x5xf32> -> tensor<1x8x1x5xf32>
// CHECK-NEXT:    %im = ge.slice %x {begins = array<i64: 8>, ends = array<i64: 16>, axes = array<i64: 1>} : tensor<1x16x1x5xf32> -> tensor<1x8x1x5xf32>
// CHECK-NEXT:    %re2 = ge.pow %re, %two : (tensor<1x8x1x5xf32>, tensor<f32>) -> tensor<1x8x1x5xf32>
// CHECK-NEXT:    %im2 = ge.pow %im, %two : (tensor<1x8x1x5xf32>, tensor<f32>) -> tensor<1x8x1x5xf32>
// CHECK-NEXT:    %sum = ge.add %re2, %im2 : (tensor<1x8x1x5xf32>, tensor<1x8x1x5xf32>) -> tensor<1x8x1x5xf32>
// CHECK-NEXT:    %mag = ge.sqrt %sum : tensor<1x8x1x5xf32> -> tensor<1x8x1x5xf32>
// CHECK-NEXT:    ge.netoutput %mag : tensor<1x8x1x5xf32>
ge.graph @stft_magnitude {
  %x = ge.data {index = 0 : i64} : tensor<1x16x1x5xf32>
  %two = ge.const {value = dense<2.0> : tensor<f32>} : tensor<f32>
  %s = ge.squeeze %x {axes = array<i64: 2>} : tensor<1x16x1x5xf32> -> tensor<1x16x5xf32>
  %re = ge.slice %s {begins = array<i64: 0>, ends = array<i64: 8>, axes = array<i64: 1>} : tensor<1x16x5xf32> -> tensor<1x8x5xf32>
  %im = ge.slice %s {begins = array<i64: 8>, ends = array<i64: 16>, axes = array<i64: 1>} : tensor<1x16x5xf32> -> tensor<1x8x5xf32>
  %re2 = ge.pow %re, %two : (tensor<1x8x5xf32>, tensor<f32>) -> tensor<1x8x5xf32>
  %im2 = ge.pow %im, %two : (tensor<1x8x5xf32>, tensor<f32>) -> tensor<1x8x5xf32>
  %sum = ge.add %re2, %im2 : (tensor<1x8x5xf32>, tensor<1x8x5xf32>) -> tensor<1x8x5xf32>
  %mag = ge.sqrt %sum : tensor<1x8x5xf32> -> tensor<1x8x5xf32>
  %u = ge.unsqueeze %mag {axes = array<i64: 2>} : tensor<1x8x5xf32> -> tensor<1x8x1x5xf32>
  ge.netoutput %u : tensor<1x8x1x5xf32>
}

// -----

// The squeezed value also reaches the graph output: it leaves the region,
// nothing changes.
// CHECK-LABEL: ge.graph @no_fold_value_leaves
// CHECK:         %s = ge.squeeze
// CHECK:         %u = ge.unsqueeze
ge.graph @no_fold_value_leaves {
  %x = ge.data {index = 0 : i64} : tensor<1x16x1x5xf32>
  %s = ge.squeeze %x {axes = array<i64: 2>} : tensor<1x16x1x5xf32> -> tensor<1x16x5xf32>
  %r = ge.relu %s : tensor<1x16x5xf32> -> tensor<1x16x5xf32>
  %u = ge.unsqueeze %r {axes = array<i64: 2>} : tensor<1x16x5xf32> -> tensor<1x16x1x5xf32>
  ge.netoutput %u, %r : tensor<1x16x1x5xf32>, tensor<1x16x5xf32>
}

// -----

// The unsqueeze puts the unit axis elsewhere: nothing changes.
// CHECK-LABEL: ge.graph @no_fold_other_axis
// CHECK:         %s = ge.squeeze
// CHECK:         %u = ge.unsqueeze %r {axes = array<i64: 3>}
ge.graph @no_fold_other_axis {
  %x = ge.data {index = 0 : i64} : tensor<1x16x1x5xf32>
  %s = ge.squeeze %x {axes = array<i64: 2>} : tensor<1x16x1x5xf32> -> tensor<1x16x5xf32>
  %r = ge.relu %s : tensor<1x16x5xf32> -> tensor<1x16x5xf32>
  %u = ge.unsqueeze %r {axes = array<i64: 3>} : tensor<1x16x5xf32> -> tensor<1x16x5x1xf32>
  ge.netoutput %u : tensor<1x16x5x1xf32>
}

// -----

// A per-channel operand [16, 1] broadcasts differently once the axis is
// back: nothing changes.
// CHECK-LABEL: ge.graph @no_fold_broadcast_operand
// CHECK:         %s = ge.squeeze
ge.graph @no_fold_broadcast_operand {
  %x = ge.data {index = 0 : i64} : tensor<1x16x1x5xf32>
  %k = ge.const {value = dense<0.5> : tensor<16x1xf32>} : tensor<16x1xf32>
  %s = ge.squeeze %x {axes = array<i64: 2>} : tensor<1x16x1x5xf32> -> tensor<1x16x5xf32>
  %m = ge.mul %s, %k : (tensor<1x16x5xf32>, tensor<16x1xf32>) -> tensor<1x16x5xf32>
  %u = ge.unsqueeze %m {axes = array<i64: 2>} : tensor<1x16x5xf32> -> tensor<1x16x1x5xf32>
  ge.netoutput %u : tensor<1x16x1x5xf32>
}
