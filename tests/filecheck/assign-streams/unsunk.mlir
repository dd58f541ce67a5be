// RUN: ge-opt %s --split-input-file -p assign-streams | filecheck %s
// RUN: not ge-opt %s --split-input-file -p 'assign-streams{max-streams=0}' 2>&1 | filecheck %s --check-prefix=BAD

// Graphs that are not sunk get no streams: control flow and dynamic shapes
// run op by op on the host.

// CHECK-LABEL: ge.graph @control_flow {
// CHECK-NOT:     ge.stream_id
// CHECK:         ge.netoutput
ge.graph @control_flow {
  %c = ge.data {index = 0 : i64} : tensor<i1>
  %x = ge.data {index = 1 : i64} : tensor<4xf32>
  %r = ge.relu %x : tensor<4xf32> -> tensor<4xf32>
  %y = ge.if %c, %x : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32> then {
    %a = ge.data {parent_index = 1 : i64} : tensor<4xf32>
    %b = ge.exp %a : tensor<4xf32> -> tensor<4xf32>
    ge.netoutput %b : tensor<4xf32>
  } else {
    %a = ge.data {parent_index = 1 : i64} : tensor<4xf32>
    ge.netoutput %a : tensor<4xf32>
  }
  %s = ge.add %r, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  ge.netoutput %s : tensor<4xf32>
}

// -----

// CHECK-LABEL: ge.graph @dynamic {
// CHECK-NOT:     ge.stream_id
// CHECK:         ge.netoutput
ge.graph @dynamic {
  %x = ge.data {index = 0 : i64} : tensor<?x16xf32>
  %a = ge.relu %x : tensor<?x16xf32> -> tensor<?x16xf32>
  %b = ge.exp %x : tensor<?x16xf32> -> tensor<?x16xf32>
  %c = ge.add %a, %b : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32>
  ge.netoutput %c : tensor<?x16xf32>
}

// BAD: error: pass 'assign-streams': option 'max-streams': must be in [1, 1024], got 0
