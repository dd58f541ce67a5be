// RUN: ge-opt %s --split-input-file -p assign-streams,plan-memory | filecheck %s
// RUN: ge-opt %s --split-input-file -p plan-memory | filecheck %s --check-prefix=SEQ

// plan-memory after assign-streams keeps a buffer live until every later op
// is ordered after its last access. In block order %a dies at the tile %t,
// so the sequential plan gives %b (stream 1) the bytes of %a; but %b may
// run while %t (stream 0) still reads %a, so with streams %b gets its own.

// CHECK-LABEL: ge.graph @overlap attributes {ge.stream_count = 2 : i64, ge.event_count = 1 : i64, ge.arena_size = 40960 : i64
// CHECK:         ge.relu {{.*}}name = "a", ge.stream_id = 0 : i64, ge.mem_offset = array<i64: 0>}
// CHECK-NEXT:    ge.tile {{.*}}name = "t", ge.stream_id = 0 : i64, ge.mem_offset = array<i64: 4096>}
// CHECK-NEXT:    ge.sigmoid {{.*}}name = "b", ge.stream_id = 1 : i64, ge.mem_offset = array<i64: 20480>}
// CHECK-NEXT:    ge.tile {{.*}}name = "bt", ge.stream_id = 1 : i64, ge.record_events = array<i64: 0>, ge.mem_offset = array<i64: 24576>}
// CHECK-NEXT:    ge.add {{.*}}name = "c", ge.stream_id = 0 : i64, ge.wait_events = array<i64: 0>, ge.mem_offset = array<i64: 4096>}

// SEQ-LABEL: ge.graph @overlap attributes {ge.arena_size = 36864 : i64
// SEQ:         ge.relu {{.*}}name = "a", ge.mem_offset = array<i64: 0>}
// SEQ-NEXT:    ge.tile {{.*}}name = "t", ge.mem_offset = array<i64: 4096>}
// SEQ-NEXT:    ge.sigmoid {{.*}}name = "b", ge.mem_offset = array<i64: 0>}
ge.graph @overlap {
  %x = ge.data {index = 0 : i64} : tensor<1x16x8x8xf32>
  %a = ge.relu %x {name = "a"} : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  %t = ge.tile %a {multiples = array<i64: 1, 1, 2, 2>, name = "t"} : tensor<1x16x8x8xf32> -> tensor<1x16x16x16xf32>
  %b = ge.sigmoid %x {name = "b"} : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  %bt = ge.tile %b {multiples = array<i64: 1, 1, 2, 2>, name = "bt"} : tensor<1x16x8x8xf32> -> tensor<1x16x16x16xf32>
  %c = ge.add %t, %bt {name = "c"} : (tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  ge.netoutput %c : tensor<1x16x16x16xf32>
}

// -----

// In place across streams: in block order %a's last reader is the exp %b,
// so sequentially %b overwrites %a. With streams the tile %t (stream 0) may
// still read %a while %b (stream 1) runs: no in-place reuse. The add %c on
// stream 1 overwrites %t in place: %t's only reader is %c.

// CHECK-LABEL: ge.graph @in_place attributes {ge.stream_count = 2 : i64, ge.event_count = 2 : i64
// CHECK:         ge.relu {{.*}}name = "a", ge.stream_id = 0 : i64, ge.record_events = array<i64: 0>, ge.mem_offset = array<i64: 0>}
// CHECK-NEXT:    ge.tile {{.*}}name = "t", ge.stream_id = 0 : i64, ge.record_events = array<i64: 1>, ge.mem_offset = array<i64: [[T:[0-9]+]]>}
// CHECK-NEXT:    ge.exp {{.*}}name = "b", ge.stream_id = 1 : i64, ge.wait_events = array<i64: 0>, ge.mem_offset = array<i64: [[B:[1-9][0-9]*]]>}
// CHECK-NEXT:    ge.tile {{.*}}name = "bt", ge.stream_id = 1 : i64, ge.mem_offset = array<i64: {{[0-9]+}}>}
// CHECK-NEXT:    ge.add {{.*}}name = "c", ge.stream_id = 1 : i64, ge.wait_events = array<i64: 1>, ge.mem_offset = array<i64: [[T]]>}

// SEQ-LABEL: ge.graph @in_place
// SEQ:         ge.relu {{.*}}name = "a", ge.mem_offset = array<i64: 0>}
// SEQ-NEXT:    ge.tile
// SEQ-NEXT:    ge.exp {{.*}}name = "b", ge.mem_offset = array<i64: 0>}
ge.graph @in_place {
  %x = ge.data {index = 0 : i64} : tensor<1x16x32x32xf32>
  %a = ge.relu %x {name = "a"} : tensor<1x16x32x32xf32> -> tensor<1x16x32x32xf32>
  %t = ge.tile %a {multiples = array<i64: 1, 1, 2, 2>, name = "t"} : tensor<1x16x32x32xf32> -> tensor<1x16x64x64xf32>
  %b = ge.exp %a {name = "b"} : tensor<1x16x32x32xf32> -> tensor<1x16x32x32xf32>
  %bt = ge.tile %b {multiples = array<i64: 1, 1, 2, 2>, name = "bt"} : tensor<1x16x32x32xf32> -> tensor<1x16x64x64xf32>
  %c = ge.add %t, %bt {name = "c"} : (tensor<1x16x64x64xf32>, tensor<1x16x64x64xf32>) -> tensor<1x16x64x64xf32>
  ge.netoutput %c : tensor<1x16x64x64xf32>
}
