// RUN: ge-opt %s --split-input-file -p plan-memory | filecheck %s
// RUN: not ge-opt %s --split-input-file -p 'plan-memory{strategy=next-fit}' 2>&1 | filecheck %s --check-prefix=BAD

// Graphs that are not sunk get no plan: control flow runs its branches on
// the host, dynamic shapes are only known at run time.

// CHECK-LABEL: ge.graph @control_flow {
// CHECK-NOT:     ge.mem_offset
// CHECK:         ge.netoutput
ge.graph @control_flow {
  %c = ge.data {index = 0 : i64} : tensor<i1>
  %x = ge.data {index = 1 : i64} : tensor<4xf32>
  %y = ge.if %c, %x : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32> then {
    %a = ge.data {parent_index = 1 : i64} : tensor<4xf32>
    %b = ge.relu %a : tensor<4xf32> -> tensor<4xf32>
    ge.netoutput %b : tensor<4xf32>
  } else {
    %a = ge.data {parent_index = 1 : i64} : tensor<4xf32>
    ge.netoutput %a : tensor<4xf32>
  }
  ge.netoutput %y : tensor<4xf32>
}

// -----

// CHECK-LABEL: ge.graph @dynamic {
// CHECK-NOT:     ge.mem_offset
// CHECK:         ge.netoutput
ge.graph @dynamic {
  %x = ge.data {index = 0 : i64} : tensor<?x16xf32>
  %y = ge.relu %x : tensor<?x16xf32> -> tensor<?x16xf32>
  ge.netoutput %y : tensor<?x16xf32>
}

// BAD: ge-opt: error: pass 'plan-memory': option 'strategy': unknown value 'next-fit' (one of best-fit, first-fit, greedy-by-size, lowest-offset)
