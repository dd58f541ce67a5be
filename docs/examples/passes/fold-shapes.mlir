// The static dims a ge.shape / ge.size reads become constants; the dynamic
// batch dim keeps its ge.shape (run by host scheduling).
ge.graph @main {
  %x = ge.data {index = 0 : i64, name = "x"} : tensor<?x11x64xf32>
  %all = ge.shape %x {name = "all"} : (tensor<?x11x64xf32>) -> tensor<3xi64>
  %tail = ge.shape %x {start = 1 : i64, name = "tail"} : (tensor<?x11x64xf32>) -> tensor<2xi64>
  ge.netoutput %all, %tail : tensor<3xi64>, tensor<2xi64>
}
