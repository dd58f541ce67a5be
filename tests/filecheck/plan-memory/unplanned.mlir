// RUN: ge-opt %s --split-input-file -p plan-memory | filecheck %s
// RUN: not ge-opt %s --split-input-file -p 'plan-memory{strategy=next-fit}' 2>&1 | filecheck %s --check-prefix=BAD

// Graphs of dynamic shapes get no plan: sizes are only known at run time
// (control flow is planned: control_flow.mlir).

// CHECK-LABEL: ge.graph @dynamic {
// CHECK-NOT:     ge.mem_offset
// CHECK:         ge.netoutput
ge.graph @dynamic {
  %x = ge.data {index = 0 : i64} : tensor<?x16xf32>
  %y = ge.relu %x : tensor<?x16xf32> -> tensor<?x16xf32>
  ge.netoutput %y : tensor<?x16xf32>
}

// BAD: ge-opt: error: pass 'plan-memory': option 'strategy': unknown value 'next-fit' (one of best-fit, first-fit, greedy-by-size, lowest-offset)
