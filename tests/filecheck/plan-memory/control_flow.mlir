// RUN: ge-opt %s --split-input-file -p plan-memory | filecheck %s
// RUN: ge-opt %s --split-input-file -p plan-memory,convert-ge-to-loops | filecheck %s --check-prefix=LOOPS
// RUN: ge-run %s --graph branches --random-inputs --check --trace --output-dir %t.if | filecheck %s --check-prefix=JIT
// RUN: ge-run %s --graph loop --random-inputs --check --trace --output-dir %t.while | filecheck %s --check-prefix=JIT

// Control-flow subgraphs are planned in the one arena, at their steps in the
// order the graph runs: a branch runs after its ge.if and before the ge.if's
// last step, so its values are live together with the ge.if's operands and
// results (and never share their bytes), and the lowering makes them views
// of the arena inside the scf regions.

// JIT: check: JIT vs reference on {{[0-9]+}} ops
// JIT-NOT: reference:
// JIT: : ok
// @branches: %p (an operand of the ge.if) and %y (its result) are live while
// the then branch runs, so %b and %d (in place over %b) take other bytes;
// %z reuses %y in place. 864 bytes = the lower bound (three 288-byte values).

// CHECK-LABEL: ge.graph @branches attributes {ge.arena_size = 864 : i64, ge.memory_report = {peak_bytes = 864 : i64, lower_bound_bytes = 864 : i64
// CHECK:         ge.exp %x {ge.mem_offset = array<i64: 0>}
// CHECK:         ge.if %c, %p {ge.mem_offset = array<i64: 288>}
// CHECK:           ge.relu %a {ge.mem_offset = array<i64: 576>}
// CHECK:           ge.neg %b {ge.mem_offset = array<i64: 576>}
// CHECK:         } else {
// CHECK:         ge.add %y, %p {ge.mem_offset = array<i64: 288>}

// LOOPS-LABEL: func.func @branches(
// LOOPS:         %[[ARENA:[0-9]+]] = memref.alloc() : memref<864xi8>
// LOOPS:         scf.if
// LOOPS-NEXT:      memref.view %[[ARENA]]
// LOOPS:         } else {
// LOOPS-NOT:     memref.alloc()
// LOOPS:         func.return
ge.graph @branches {
  %c = ge.data {index = 0 : i64, name = "c"} : tensor<i1>
  %x = ge.data {index = 1 : i64, name = "x"} : tensor<4x17xf32>
  %p = ge.exp %x : tensor<4x17xf32> -> tensor<4x17xf32>
  %y = ge.if %c, %p : (tensor<i1>, tensor<4x17xf32>) -> tensor<4x17xf32> then {
    %a = ge.data {parent_index = 1 : i64} : tensor<4x17xf32>
    %b = ge.relu %a : tensor<4x17xf32> -> tensor<4x17xf32>
    %d = ge.neg %b : tensor<4x17xf32> -> tensor<4x17xf32>
    ge.netoutput %d : tensor<4x17xf32>
  } else {
    %a = ge.data {parent_index = 1 : i64} : tensor<4x17xf32>
    ge.netoutput %a : tensor<4x17xf32>
  }
  %z = ge.add %y, %p : (tensor<4x17xf32>, tensor<4x17xf32>) -> tensor<4x17xf32>
  ge.netoutput %z : tensor<4x17xf32>
}

// -----

// @loop: the loop variables (the while's results) live through the whole
// loop; the body's values, rewritten each iteration, take other bytes.

// CHECK-LABEL: ge.graph @loop attributes {ge.arena_size = 544 : i64, ge.memory_report = {peak_bytes = 544 : i64, lower_bound_bytes = 544 : i64
// CHECK:         ge.while %n, %a {ge.mem_offset = array<i64: 160, 192>}
// CHECK:           ge.identity %i {ge.mem_offset = array<i64: -1>}
// CHECK:         } body {
// CHECK:           ge.sub %i_1, %one {ge.mem_offset = array<i64: 352>}
// CHECK:           ge.tanh %j_1 {ge.mem_offset = array<i64: 384>}
// CHECK:           ge.mul %s, %j_1 {ge.mem_offset = array<i64: 384>}

// LOOPS-LABEL: func.func @loop(
// LOOPS:         %[[ARENA:[0-9]+]] = memref.alloc() : memref<544xi8>
// LOOPS:         scf.while
// LOOPS:         } do {
// LOOPS-NEXT:      memref.view %[[ARENA]]
// LOOPS-NOT:     memref.alloc()
// LOOPS:         func.return
ge.graph @loop {
  %n = ge.const {value = dense<3> : tensor<i32>} : tensor<i32>
  %x = ge.data {index = 0 : i64, name = "x"} : tensor<33xf32>
  %a = ge.tanh %x : tensor<33xf32> -> tensor<33xf32>
  %r:2 = ge.while %n, %a : (tensor<i32>, tensor<33xf32>) -> (tensor<i32>, tensor<33xf32>) cond {
    %i = ge.data {parent_index = 0 : i64} : tensor<i32>
    %j = ge.data {parent_index = 1 : i64} : tensor<33xf32>
    %m = ge.identity %i : tensor<i32> -> tensor<i32>
    ge.netoutput %m : tensor<i32>
  } body {
    %i = ge.data {parent_index = 0 : i64} : tensor<i32>
    %j = ge.data {parent_index = 1 : i64} : tensor<33xf32>
    %one = ge.const {value = dense<1> : tensor<i32>} : tensor<i32>
    %k = ge.sub %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %s = ge.tanh %j : tensor<33xf32> -> tensor<33xf32>
    %q = ge.mul %s, %j : (tensor<33xf32>, tensor<33xf32>) -> tensor<33xf32>
    ge.netoutput %k, %q : tensor<i32>, tensor<33xf32>
  }
  ge.netoutput %r#1 : tensor<33xf32>
}
