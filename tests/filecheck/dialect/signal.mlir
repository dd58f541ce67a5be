// RUN: ge-opt %s --split-input-file | ge-opt --split-input-file | filecheck %s
// RUN: ge-opt %s --split-input-file --print-op-generic | ge-opt --split-input-file | filecheck %s

// `ge.dft` (ONNX DFT): a forward, a one-sided (6 bins of 10) and an irfft
// (real output); inverse and onesided default to false and are elided.

// CHECK-LABEL: ge.graph @dft
// CHECK-NEXT:    [[X:%.*]] = ge.data {index = 0 : i64} : tensor<2x10x3x2xf32>
// CHECK-NEXT:    [[F:%.*]] = ge.dft [[X]] {axis = 1 : i64, length = 12 : i64} : tensor<2x10x3x2xf32> -> tensor<2x12x3x2xf32>
// CHECK-NEXT:    [[R:%.*]] = ge.dft [[X]] {axis = 1 : i64, length = 10 : i64, onesided = true} : tensor<2x10x3x2xf32> -> tensor<2x6x3x2xf32>
// CHECK-NEXT:    [[I:%.*]] = ge.dft [[R]] {axis = 1 : i64, length = 10 : i64, inverse = true, onesided = true} : tensor<2x6x3x2xf32> -> tensor<2x10x3x1xf32>
// CHECK-NEXT:    ge.netoutput [[F]], [[R]], [[I]]
ge.graph @dft {
  %x = ge.data {index = 0 : i64} : tensor<2x10x3x2xf32>
  %f = ge.dft %x {axis = 1 : i64, length = 12 : i64, inverse = false} : tensor<2x10x3x2xf32> -> tensor<2x12x3x2xf32>
  %r = ge.dft %x {axis = 1 : i64, length = 10 : i64, onesided = true} : tensor<2x10x3x2xf32> -> tensor<2x6x3x2xf32>
  %i = ge.dft %r {axis = 1 : i64, length = 10 : i64, inverse = true, onesided = true} : tensor<2x6x3x2xf32> -> tensor<2x10x3x1xf32>
  ge.netoutput %f, %r, %i : tensor<2x12x3x2xf32>, tensor<2x6x3x2xf32>, tensor<2x10x3x1xf32>
}

// STFT: [batch, frames, bins, 2]; the window is optional.

// CHECK-LABEL: ge.graph @stft
// CHECK:         {{%.*}} = ge.stft {{%.*}}, {{%.*}} {frame_step = 8 : i64, frame_length = 16 : i64} : (tensor<1x128x1xf32>, tensor<16xf32>) -> tensor<1x15x9x2xf32>
// CHECK-NEXT:    {{%.*}} = ge.stft {{%.*}} {frame_step = 5 : i64, frame_length = 17 : i64, onesided = false} : (tensor<1x128x1xf32>) -> tensor<1x23x17x2xf32>
ge.graph @stft {
  %x = ge.data {index = 0 : i64} : tensor<1x128x1xf32>
  %w = ge.data {index = 1 : i64} : tensor<16xf32>
  %y = ge.stft %x, %w {frame_step = 8 : i64, frame_length = 16 : i64} : (tensor<1x128x1xf32>, tensor<16xf32>) -> tensor<1x15x9x2xf32>
  %z = ge.stft %x {frame_step = 5 : i64, frame_length = 17 : i64, onesided = false} : (tensor<1x128x1xf32>) -> tensor<1x23x17x2xf32>
  ge.netoutput %y, %z : tensor<1x15x9x2xf32>, tensor<1x23x17x2xf32>
}

// MelWeightMatrix: five scalars, a [?, ?] result of dst_type.

// CHECK-LABEL: ge.graph @mel_weight_matrix
// CHECK:         {{%.*}} = ge.mel_weight_matrix {{.*}} {dst_type = f32} : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<?x?xf32>
ge.graph @mel_weight_matrix {
  %n = ge.data {index = 0 : i64} : tensor<i64>
  %d = ge.data {index = 1 : i64} : tensor<i64>
  %s = ge.data {index = 2 : i64} : tensor<i64>
  %l = ge.data {index = 3 : i64} : tensor<f32>
  %u = ge.data {index = 4 : i64} : tensor<f32>
  %y = ge.mel_weight_matrix %n, %d, %s, %l, %u {dst_type = f32} : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<?x?xf32>
  ge.netoutput %y : tensor<?x?xf32>
}
