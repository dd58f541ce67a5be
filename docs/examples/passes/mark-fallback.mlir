ge.graph @modes {
  %x = ge.data {index = 0 : i64} : tensor<?x10xf32>
  %i = ge.data {index = 1 : i64} : tensor<2xi64>
  %r = ge.relu %x : tensor<?x10xf32> -> tensor<?x10xf32>
  %s = ge.softmax %r {name = "probs"} : tensor<?x10xf32> -> tensor<?x10xf32>
  %t = ge.softmax %s : tensor<?x10xf32> -> tensor<?x10xf32>
  %g = ge.broadcast_to %t, %i {name = "expand"} : (tensor<?x10xf32>, tensor<2xi64>) -> tensor<?x10xf32>
  ge.netoutput %g : tensor<?x10xf32>
}
