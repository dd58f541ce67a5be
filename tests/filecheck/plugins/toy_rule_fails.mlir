// A user rule that fails when propagation reaches its op (used by
// infer-origin-format/user_plugin.mlir; not a test by itself).
ge.graph @failed_when_infer_reached {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %f = toy.fail %x : (tensor<1x3x4x4xf32, #ge.layout<NCHW>>) -> tensor<1x3x4x4xf32>
  ge.netoutput %f : tensor<1x3x4x4xf32>
}
