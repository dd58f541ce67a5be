// RUN: ge-opt %s --split-input-file -p 'assign-streams{max-streams=4}' | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'assign-streams{max-streams=1},plan-memory' | filecheck %s --check-prefix=SEQ
// RUN: ge-opt %s --split-input-file -p plan-memory | filecheck %s --check-prefix=SEQ

// A chain has nothing to overlap: even with four streams allowed it stays on
// stream 0 with no event (an operand from another stream would cost one).

// CHECK-LABEL: ge.graph @chain attributes {ge.stream_count = 1 : i64, ge.event_count = 0 : i64}
// CHECK-NOT:     ge.stream_id = 1
// CHECK-NOT:     _events
// CHECK:         ge.netoutput

// One stream is the sequential block order: every op on stream 0, no event,
// and the same memory plan as without a stream plan (both SEQ runs).

// SEQ-LABEL: ge.graph @chain
// SEQ:         ge.relu {{.*}}ge.mem_offset = array<i64: 0>}
// SEQ-NEXT:    ge.tile {{.*}}ge.mem_offset = array<i64: 4096>}
// SEQ-NEXT:    ge.exp {{.*}}ge.mem_offset = array<i64: 4096>}
ge.graph @chain {
  %x = ge.data {index = 0 : i64} : tensor<1x16x8x8xf32>
  %a = ge.relu %x : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  %t = ge.tile %a {multiples = array<i64: 1, 1, 2, 2>} : tensor<1x16x8x8xf32> -> tensor<1x16x16x16xf32>
  %e = ge.exp %t : tensor<1x16x16x16xf32> -> tensor<1x16x16x16xf32>
  ge.netoutput %e : tensor<1x16x16x16xf32>
}

// -----

// CHECK-LABEL: ge.graph @branches attributes {ge.stream_count = 2 : i64, ge.event_count = 1 : i64}

// SEQ-LABEL: ge.graph @branches
// SEQ-NOT:     ge.stream_id = 1
// SEQ-NOT:     _events
// SEQ:         ge.relu {{.*}}ge.mem_offset = array<i64: 0>}
// SEQ-NEXT:    ge.exp {{.*}}ge.mem_offset = array<i64: 0>}
// SEQ-NEXT:    ge.sigmoid {{.*}}ge.mem_offset = array<i64: 4096>}
// SEQ-NEXT:    ge.tanh {{.*}}ge.mem_offset = array<i64: 4096>}
// SEQ-NEXT:    ge.add {{.*}}ge.mem_offset = array<i64: 0>}
ge.graph @branches {
  %x = ge.data {index = 0 : i64} : tensor<1x16x8x8xf32>
  %a = ge.relu %x : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  %a2 = ge.exp %a : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  %b = ge.sigmoid %x : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  %b2 = ge.tanh %b : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  %c = ge.add %a2, %b2 : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  ge.netoutput %c : tensor<1x16x8x8xf32>
}
