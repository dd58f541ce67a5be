// RUN: ge-opt %s --partition-engines | filecheck %s

// The built-in op information puts ge.tile on AI Core with bfloat16 (CANN's
// Ascend 910B Tile): a bfloat16 relu -> tile -> sigmoid chain is one AI Core
// subgraph, no AI CPU Cast insertion needed.

// CHECK-LABEL: ge.graph @bf16_tile
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %s = ge.partitioned_call %x {engine = "AICore"} : (tensor<2x3xbf16>) -> tensor<4x3xbf16> {
// CHECK:           ge.relu
// CHECK-NEXT:      ge.tile
// CHECK-NEXT:      ge.sigmoid
// CHECK:         }
// CHECK-NOT:     AICPU
ge.graph @bf16_tile {
  %x = ge.data {index = 0 : i64} : tensor<2x3xbf16>
  %r = ge.relu %x : tensor<2x3xbf16> -> tensor<2x3xbf16>
  %t = ge.tile %r {multiples = array<i64: 2, 1>, name = "t"} : tensor<2x3xbf16> -> tensor<4x3xbf16>
  %s = ge.sigmoid %t : tensor<4x3xbf16> -> tensor<4x3xbf16>
  ge.netoutput %s : tensor<4x3xbf16>
}
