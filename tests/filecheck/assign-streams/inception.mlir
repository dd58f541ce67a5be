// RUN: ge-opt %s -p assign-streams | filecheck %s
// RUN: ge-opt %s -p 'assign-streams{max-streams=4}' | filecheck %s --check-prefix=FOUR

// An Inception block (17 input channels): four independent towers joined by
// a concat. With two streams the list scheduler alternates the towers
// between the streams (tower 2 starts on stream 1 while tower 1 runs on
// stream 0), each tower stays on one stream (no event inside a tower), and
// the concat, on stream 1 after tower 4, waits for one event only: the last
// op of stream 0 (towers 1 and 3 before it are ordered by stream order).
// With four streams each tower has its own stream and the concat waits for
// the three others.

// CHECK-LABEL: ge.graph @block attributes {ge.stream_count = 2 : i64, ge.event_count = 1 : i64}
// CHECK:         ge.conv2d {{.*}}name = "t1", ge.stream_id = 0 : i64}
// CHECK-NEXT:    ge.relu {{.*}}name = "r1", ge.stream_id = 0 : i64}
// CHECK-NEXT:    ge.conv2d {{.*}}name = "t2a", ge.stream_id = 1 : i64}
// CHECK-NEXT:    ge.relu {{.*}}name = "r2a", ge.stream_id = 1 : i64}
// CHECK-NEXT:    ge.conv2d {{.*}}name = "t2b", ge.stream_id = 1 : i64}
// CHECK-NEXT:    ge.relu {{.*}}name = "r2b", ge.stream_id = 1 : i64}
// CHECK-NEXT:    ge.conv2d {{.*}}name = "t3a", ge.stream_id = 0 : i64}
// CHECK-NEXT:    ge.relu {{.*}}name = "r3a", ge.stream_id = 0 : i64}
// CHECK-NEXT:    ge.conv2d {{.*}}name = "t3b", ge.stream_id = 0 : i64}
// CHECK-NEXT:    ge.relu {{.*}}name = "r3b", ge.stream_id = 0 : i64, ge.record_events = array<i64: 0>}
// CHECK-NEXT:    ge.max_pool {{.*}}name = "p4", ge.stream_id = 1 : i64}
// CHECK-NEXT:    ge.conv2d {{.*}}name = "t4", ge.stream_id = 1 : i64}
// CHECK-NEXT:    ge.relu {{.*}}name = "r4", ge.stream_id = 1 : i64}
// CHECK-NEXT:    ge.concat {{.*}}name = "cat", ge.stream_id = 1 : i64, ge.wait_events = array<i64: 0>}

// FOUR-LABEL: ge.graph @block attributes {ge.stream_count = 4 : i64, ge.event_count = 3 : i64}
// FOUR:         ge.relu {{.*}}name = "r1", ge.stream_id = 0 : i64, ge.record_events = array<i64: 0>}
// FOUR:         ge.relu {{.*}}name = "r2b", ge.stream_id = 1 : i64}
// FOUR:         ge.relu {{.*}}name = "r3b", ge.stream_id = 2 : i64, ge.record_events = array<i64: 1>}
// FOUR:         ge.relu {{.*}}name = "r4", ge.stream_id = 3 : i64, ge.record_events = array<i64: 2>}
// FOUR-NEXT:    ge.concat {{.*}}name = "cat", ge.stream_id = 1 : i64, ge.wait_events = array<i64: 0, 1, 2>}
ge.graph @block {
  %x = ge.data {index = 0 : i64} : tensor<1x17x8x8xf32>
  %w1 = ge.const {value = #ge.external<"w1">} : tensor<16x17x1x1xf32>
  %w2a = ge.const {value = #ge.external<"w2a">} : tensor<8x17x1x1xf32>
  %w2b = ge.const {value = #ge.external<"w2b">} : tensor<16x8x3x3xf32>
  %w3a = ge.const {value = #ge.external<"w3a">} : tensor<4x17x1x1xf32>
  %w3b = ge.const {value = #ge.external<"w3b">} : tensor<8x4x5x5xf32>
  %w4 = ge.const {value = #ge.external<"w4">} : tensor<8x17x1x1xf32>
  %t1 = ge.conv2d %x, %w1 {data_format = "NCHW", name = "t1"} : (tensor<1x17x8x8xf32>, tensor<16x17x1x1xf32>) -> tensor<1x16x8x8xf32>
  %r1 = ge.relu %t1 {name = "r1"} : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  %t2a = ge.conv2d %x, %w2a {data_format = "NCHW", name = "t2a"} : (tensor<1x17x8x8xf32>, tensor<8x17x1x1xf32>) -> tensor<1x8x8x8xf32>
  %r2a = ge.relu %t2a {name = "r2a"} : tensor<1x8x8x8xf32> -> tensor<1x8x8x8xf32>
  %t2b = ge.conv2d %r2a, %w2b {data_format = "NCHW", pads = array<i64: 1, 1, 1, 1>, name = "t2b"} : (tensor<1x8x8x8xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x8x8xf32>
  %r2b = ge.relu %t2b {name = "r2b"} : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  %t3a = ge.conv2d %x, %w3a {data_format = "NCHW", name = "t3a"} : (tensor<1x17x8x8xf32>, tensor<4x17x1x1xf32>) -> tensor<1x4x8x8xf32>
  %r3a = ge.relu %t3a {name = "r3a"} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %t3b = ge.conv2d %r3a, %w3b {data_format = "NCHW", pads = array<i64: 2, 2, 2, 2>, name = "t3b"} : (tensor<1x4x8x8xf32>, tensor<8x4x5x5xf32>) -> tensor<1x8x8x8xf32>
  %r3b = ge.relu %t3b {name = "r3b"} : tensor<1x8x8x8xf32> -> tensor<1x8x8x8xf32>
  %p4 = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 3, 3>, pads = array<i64: 1, 1, 1, 1>, name = "p4"} : tensor<1x17x8x8xf32> -> tensor<1x17x8x8xf32>
  %t4 = ge.conv2d %p4, %w4 {data_format = "NCHW", name = "t4"} : (tensor<1x17x8x8xf32>, tensor<8x17x1x1xf32>) -> tensor<1x8x8x8xf32>
  %r4 = ge.relu %t4 {name = "r4"} : tensor<1x8x8x8xf32> -> tensor<1x8x8x8xf32>
  %cat = ge.concat %r1, %r2b, %r3b, %r4 {axis = 1 : i64, name = "cat"} : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>, tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x48x8x8xf32>
  ge.netoutput %cat : tensor<1x48x8x8xf32>
}
