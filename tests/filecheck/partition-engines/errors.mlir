// RUN: not ge-opt %s --opinfo %S/../inputs/aicpu_tile.json --partition-engines 2>&1 | filecheck %s
// RUN: ge-opt %s --opinfo %S/../inputs/aicpu_tile.json --insert-aicpu-cast --partition-engines | filecheck %s --check-prefix=CAST

// With inputs/aicpu_tile.json ge.tile runs on AI CPU, whose kernels have no
// bfloat16: in a bfloat16 graph it is an error unless AI CPU Cast insertion
// runs first.

// CHECK: errors.mlir:[[# @LINE + 8]]:3: error: 'ge.tile' op (node 't') runs on AICPU, which does not support bfloat16 (supported: bool, float16, float32, int32, int64); enable AI CPU Cast insertion (ge-opt --insert-aicpu-cast, ge-atc --auto_cast_mode=1)

// CAST:      ge.partitioned_call %x {engine = "AICore"}
// CAST:      ge.partitioned_call {{.*}} {engine = "AICPU"} : (tensor<2x3xf32>) -> tensor<4x3xf32>
// CAST:      ge.partitioned_call {{.*}} {engine = "AICore"} : (tensor<4x3xf32>) -> tensor<4x3xbf16>
ge.graph @bf16_tile {
  %x = ge.data {index = 0 : i64} : tensor<2x3xbf16>
  %r = ge.relu %x : tensor<2x3xbf16> -> tensor<2x3xbf16>
  %t = ge.tile %r {multiples = array<i64: 2, 1>, name = "t"} : tensor<2x3xbf16> -> tensor<4x3xbf16>
  ge.netoutput %t : tensor<4x3xbf16>
}
