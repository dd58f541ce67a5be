// RUN: ge-opt %s --opinfo %S/../inputs/aicpu_tile.json -p partition-engines,plan-memory | filecheck %s

// ge.tile runs on AI CPU (inputs/aicpu_tile.json).
// Engine subgraphs are planned as the scheduler sinks them: inlined, so the
// AI Core and AI CPU ops share one arena. %r (1024 bytes) dies at the tile,
// %t (4096 bytes) is live with %r at the tile and %e reuses it in place:
// arena 5120 = the lower bound.

// CHECK-LABEL: ge.graph @main attributes {ge.arena_size = 5120 : i64, ge.memory_report = {peak_bytes = 5120 : i64, lower_bound_bytes = 5120 : i64
// CHECK:         ge.partitioned_call {{.*}} {engine = "AICore"}
// CHECK:           ge.relu {{.*}} {ge.mem_offset = array<i64: [[R:[0-9]+]]>}
// CHECK:         ge.partitioned_call {{.*}} {engine = "AICPU"}
// CHECK:           ge.tile {{.*}}ge.mem_offset = array<i64: [[T:[0-9]+]]>
// CHECK:         ge.partitioned_call {{.*}} {engine = "AICore"}
// CHECK:           ge.exp {{.*}} {ge.mem_offset = array<i64: [[T]]>}
ge.graph @main {
  %x = ge.data {index = 0 : i64} : tensor<1x16x4x4xf32>
  %r = ge.relu %x : tensor<1x16x4x4xf32> -> tensor<1x16x4x4xf32>
  %t = ge.tile %r {multiples = array<i64: 1, 1, 2, 2>} : tensor<1x16x4x4xf32> -> tensor<1x16x8x8xf32>
  %e = ge.exp %t : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  ge.netoutput %e : tensor<1x16x8x8xf32>
}
