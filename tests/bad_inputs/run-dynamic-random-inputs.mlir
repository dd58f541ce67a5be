// ge-run: a graph with an unknown dim cannot get --random-inputs.
ge.graph @main {
  %x = ge.data {index = 0 : i64, name = "x"} : tensor<?x3xf32>
  %y = ge.relu %x : tensor<?x3xf32> -> tensor<?x3xf32>
  ge.netoutput %y : tensor<?x3xf32>
}
