// RUN: not ge-opt %s --opinfo %S/../inputs/aicpu_tile.json --insert-aicpu-cast 2>&1 | filecheck %s

// ge.tile's AI CPU kernels (inputs/aicpu_tile.json) take float16, float32,
// int32 and int64: none holds every float64 value, so there is nothing to cast to.

// CHECK: errors.mlir:[[# @LINE + 3]]:3: error: 'ge.tile' op (node 'wide') runs on AICPU, which does not support float64 and has no dtype that holds its values (supported: float16, float32, bool, int32, int64)
ge.graph @no_dtype_to_cast_to {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf64>
  %t = ge.tile %x {multiples = array<i64: 1, 2>, name = "wide"} : tensor<2x3xf64> -> tensor<2x6xf64>
  ge.netoutput %t : tensor<2x6xf64>
}
