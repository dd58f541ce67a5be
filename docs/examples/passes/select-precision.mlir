// PIPELINE: select-precision{mode=allow_mix_precision}
ge.graph @scores {
  %q = ge.data {index = 0 : i64} : tensor<4x8xf32>
  %k = ge.data {index = 1 : i64} : tensor<8x4xf32>
  %m = ge.data {index = 2 : i64} : tensor<4x4xf32>
  %c = ge.const {value = dense<0.25> : tensor<f32>} : tensor<f32>
  %s = ge.matmul %q, %k : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %d = ge.mul %s, %c : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %a = ge.add %d, %m : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %p = ge.softmax %a : tensor<4x4xf32> -> tensor<4x4xf32>
  ge.netoutput %p : tensor<4x4xf32>
}
