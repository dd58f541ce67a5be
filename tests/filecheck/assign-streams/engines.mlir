// RUN: ge-opt %s --opinfo %S/../inputs/aicpu_tile.json -p partition-engines,assign-streams,plan-memory | filecheck %s
// RUN: ge-opt %s --opinfo %S/../inputs/aicpu_tile.json -p partition-engines,assign-streams,plan-memory -o %t.mlir
// RUN: ge-run %t.mlir --random-inputs --check --trace --output-dir %t | filecheck %s --check-prefix=EXEC

// ge.tile runs on AI CPU (inputs/aicpu_tile.json).
// Engine subgraphs are assigned as the scheduler sinks them: inlined, so
// the ops inside the `ge.partitioned_call`s (AI Core and AI CPU) get
// streams and events of the one graph. ge-run runs the two branches on two
// threads, the trace saying which stream ran each op and when, and the
// result matches the reference evaluator.

// CHECK-LABEL: ge.graph @main attributes {ge.stream_count = 2 : i64, ge.event_count = 1 : i64
// CHECK:         ge.partitioned_call {{.*}}engine = "AICore"
// CHECK:           ge.relu {{.*}}name = "a", ge.stream_id = 0 : i64
// CHECK:         ge.partitioned_call {{.*}}engine = "AICPU"
// CHECK:           ge.tile {{.*}}name = "t", ge.stream_id = 0 : i64
// CHECK:         ge.partitioned_call {{.*}}engine = "AICore"
// CHECK:           ge.exp {{.*}}name = "b", ge.stream_id = 1 : i64
// CHECK:         ge.partitioned_call {{.*}}engine = "AICPU"
// CHECK:           ge.tile {{.*}}name = "bt", ge.stream_id = 1 : i64, ge.record_events = array<i64: 0>
// CHECK:         ge.partitioned_call {{.*}}engine = "AICore"
// CHECK:           ge.add {{.*}}name = "c", ge.stream_id = 0 : i64, ge.wait_events = array<i64: 0>

// EXEC:      schedule: sink scheduling: 1 sunk part(s), 0 fallback op(s), 2 streams
// EXEC-DAG:  trace: a ge.relu AICore sunk (part 0, 2 streams) stream 0 at {{[0-9.]+-[0-9.]+}} ms -> 1x16x32x32
// EXEC-DAG:  trace: t ge.tile AICPU sunk (part 0, 2 streams) stream 0 at
// EXEC-DAG:  trace: b ge.exp AICore sunk (part 0, 2 streams) stream 1 at
// EXEC-DAG:  trace: bt ge.tile AICPU sunk (part 0, 2 streams) stream 1 at
// EXEC:      trace: c ge.add AICore sunk (part 0, 2 streams) stream 0 at {{.*}} -> 1x16x64x64
// EXEC:      check output_0: {{.*}}: ok
ge.graph @main {
  %x = ge.data {index = 0 : i64} : tensor<1x16x32x32xf32>
  %a = ge.relu %x {name = "a"} : tensor<1x16x32x32xf32> -> tensor<1x16x32x32xf32>
  %t = ge.tile %a {multiples = array<i64: 1, 1, 2, 2>, name = "t"} : tensor<1x16x32x32xf32> -> tensor<1x16x64x64xf32>
  %b = ge.exp %x {name = "b"} : tensor<1x16x32x32xf32> -> tensor<1x16x32x32xf32>
  %bt = ge.tile %b {multiples = array<i64: 1, 1, 2, 2>, name = "bt"} : tensor<1x16x32x32xf32> -> tensor<1x16x64x64xf32>
  %c = ge.add %t, %bt {name = "c"} : (tensor<1x16x64x64xf32>, tensor<1x16x64x64xf32>) -> tensor<1x16x64x64xf32>
  ge.netoutput %c : tensor<1x16x64x64xf32>
}
