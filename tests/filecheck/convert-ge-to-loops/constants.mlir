// RUN: ge-opt %s -p convert-ge-to-loops | filecheck %s

// Small constants become private constant memref.globals.

// CHECK:       "memref.global"() <{sym_name = "constants_const0", type = memref<3xf32>, initial_value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>, sym_visibility = "private", constant}>
// CHECK-LABEL: func.func @constants(
// CHECK-NEXT:    %[[K:.*]] = memref.get_global @constants_const0 : memref<3xf32>
// CHECK:         affine.load %[[K]][%{{.*}}] : memref<3xf32>
ge.graph @constants {
  %x = ge.data {index = 0 : i64} : tensor<3xf32>
  %k = ge.const {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : tensor<3xf32>
  %y = ge.mul %x, %k : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  ge.netoutput %y : tensor<3xf32>
}
