// RUN: ge-opt %s --split-input-file -p plan-memory | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'plan-memory{in-place=false}' | filecheck %s --check-prefix=COPY

// A chain of elementwise ops on a 4096-byte tensor: each result overwrites
// its operand, which dies at that op, so one buffer serves the chain. The
// graph input is pinned (no offset). Without in-place reuse, %b needs a
// second buffer while %a is read, and %c takes %a's freed bytes.

// CHECK-LABEL: ge.graph @chain attributes {ge.arena_size = 4096 : i64, ge.memory_report = {peak_bytes = 4096 : i64, lower_bound_bytes = 4096 : i64, no_reuse_bytes = 4096 : i64, first_fit_bytes = 4096 : i64, strategy = "first-fit", {{.*}}, buffers = 1 : i64}} {
// CHECK-NEXT:    %[[X:.*]] = ge.data {index = 0 : i64} : tensor<1x16x8x8xf32>
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {ge.mem_offset = array<i64: 0>}
// CHECK-NEXT:    %[[B:.*]] = ge.exp %[[A]] {ge.mem_offset = array<i64: 0>}
// CHECK-NEXT:    %{{.*}} = ge.add %[[B]], %[[B]] {ge.mem_offset = array<i64: 0>}

// COPY-LABEL: ge.graph @chain attributes {ge.arena_size = 8192 : i64, ge.memory_report = {peak_bytes = 8192 : i64, lower_bound_bytes = 8192 : i64, no_reuse_bytes = 12288 : i64, {{.*}}, buffers = 3 : i64}} {
// COPY:          ge.relu {{.*}} {ge.mem_offset = array<i64: 0>}
// COPY-NEXT:     ge.exp {{.*}} {ge.mem_offset = array<i64: 4096>}
// COPY-NEXT:     ge.add {{.*}} {ge.mem_offset = array<i64: 0>}
ge.graph @chain {
  %x = ge.data {index = 0 : i64} : tensor<1x16x8x8xf32>
  %a = ge.relu %x : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  %b = ge.exp %a : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  %c = ge.add %b, %b : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  ge.netoutput %c : tensor<1x16x8x8xf32>
}

// -----

// Sizes are storage bytes rounded up to 32: 1x3x5x5xf16 is 150 bytes, 160 in
// the arena. %a and %b are live together; the add reuses %a in place.

// CHECK-LABEL: ge.graph @aligned attributes {ge.arena_size = 320 : i64
// CHECK:         ge.relu {{.*}} {ge.mem_offset = array<i64: 0>}
// CHECK-NEXT:    ge.sigmoid {{.*}} {ge.mem_offset = array<i64: 160>}
// CHECK-NEXT:    ge.add {{.*}} {ge.mem_offset = array<i64: 0>}
ge.graph @aligned {
  %x = ge.data {index = 0 : i64} : tensor<1x3x5x5xf16>
  %a = ge.relu %x : tensor<1x3x5x5xf16> -> tensor<1x3x5x5xf16>
  %b = ge.sigmoid %x : tensor<1x3x5x5xf16> -> tensor<1x3x5x5xf16>
  %c = ge.add %a, %b : (tensor<1x3x5x5xf16>, tensor<1x3x5x5xf16>) -> tensor<1x3x5x5xf16>
  ge.netoutput %c : tensor<1x3x5x5xf16>
}

// -----

// 17 channels in NC1HWC0 (C0 = 8 for f32): storage 1x3x4x4x8, 1536 bytes with
// padding. A padded result is never computed in place (the lowering zero-fills
// its padding when it allocates it).

// CHECK-LABEL: ge.graph @padded attributes {ge.arena_size = 3072 : i64
// CHECK:         ge.relu {{.*}} {ge.mem_offset = array<i64: 0>}
// CHECK-NEXT:    ge.exp {{.*}} {ge.mem_offset = array<i64: 1536>}
ge.graph @padded {
  %x = ge.data {index = 0 : i64} : tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.relu %x : tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  %b = ge.exp %a : tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %b : tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// An identity views its operand: same offset, and the buffer lives until the
// view's last use, so %s cannot take %a's bytes. An identity of a graph input
// stays outside the arena (-1).

// CHECK-LABEL: ge.graph @views attributes {ge.arena_size = 8192 : i64
// CHECK:         ge.identity {{.*}} {ge.mem_offset = array<i64: -1>}
// CHECK-NEXT:    ge.relu {{.*}} {ge.mem_offset = array<i64: 0>}
// CHECK-NEXT:    ge.identity {{.*}} {ge.mem_offset = array<i64: 0>}
// CHECK-NEXT:    ge.sigmoid {{.*}} {ge.mem_offset = array<i64: 4096>}
// CHECK-NEXT:    ge.add {{.*}} {ge.mem_offset = array<i64: 0>}
ge.graph @views {
  %x = ge.data {index = 0 : i64} : tensor<1x16x8x8xf32>
  %i = ge.identity %x : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  %a = ge.relu %i : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  %v = ge.identity %a : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  %s = ge.sigmoid %x : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  %c = ge.add %v, %s : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  ge.netoutput %c : tensor<1x16x8x8xf32>
}
