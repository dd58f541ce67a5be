ge.graph @main {
  %w = ge.const {value = dense_resource<w> : tensor<3xf32>} : tensor<3xf32>
  ge.netoutput %w : tensor<3xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F00000040"
    }
  }
#-}
