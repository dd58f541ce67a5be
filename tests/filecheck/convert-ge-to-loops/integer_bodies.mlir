// RUN: ge-opt %s --split-input-file -p convert-ge-to-loops | filecheck %s

// Elementwise ops have scalar bodies for the integer dtypes their kernels
// compute, so an integer graph runs on the JIT, not on the reference.

// CHECK-LABEL: func.func @neg_i64(
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK:           %[[X:.*]] = affine.load %{{.*}}[%{{.*}}] : memref<17xi64>
// CHECK-NEXT:      %[[N:.*]] = arith.subi %[[ZERO]], %[[X]] : i64
// CHECK-NEXT:      affine.store %[[N]]
ge.graph @neg_i64 {
  %a = ge.data {index = 0 : i64} : tensor<17xi64>
  %y = ge.neg %a : tensor<17xi64> -> tensor<17xi64>
  ge.netoutput %y : tensor<17xi64>
}

// -----

// Bounds are rounded inwards and taken inside the type's range.

// CHECK-LABEL: func.func @clip_i8(
// CHECK-DAG:     %[[HIGH:.*]] = arith.constant 127 : i8
// CHECK-DAG:     %[[LOW:.*]] = arith.constant -2 : i8
// CHECK:           %[[X:.*]] = affine.load
// CHECK-NEXT:      %[[UP:.*]] = arith.maxsi %[[X]], %[[LOW]] : i8
// CHECK-NEXT:      arith.minsi %[[UP]], %[[HIGH]] : i8
ge.graph @clip_i8 {
  %a = ge.data {index = 0 : i64} : tensor<33xi8>
  %y = ge.clip %a {min = -2.5 : f32, max = 300.0 : f32} : tensor<33xi8> -> tensor<33xi8>
  ge.netoutput %y : tensor<33xi8>
}

// -----

// A float function of an integer computes in the float NumPy's function
// takes it to (float16 for int8), then converts back.

// CHECK-LABEL: func.func @sin_i8(
// CHECK:           %[[X:.*]] = affine.load %{{.*}} : memref<5xi8>
// CHECK-NEXT:      %[[F:.*]] = arith.sitofp %[[X]] : i8 to f16
// CHECK-NEXT:      %[[S:.*]] = math.sin %[[F]] : f16
// CHECK-NEXT:      %[[I:.*]] = arith.fptosi %[[S]] : f16 to i8
ge.graph @sin_i8 {
  %a = ge.data {index = 0 : i64} : tensor<5xi8>
  %y = ge.sin %a : tensor<5xi8> -> tensor<5xi8>
  ge.netoutput %y : tensor<5xi8>
}

// -----

// An unsigned value is its own absolute value and relu: no op at all.

// CHECK-LABEL: func.func @no_op_for_unsigned_abs(
// CHECK:           %[[X:.*]] = affine.load %{{.*}} : memref<5xi16>
// CHECK-NEXT:      affine.store %[[X]]
// CHECK-NOT:     math.absi
ge.graph @no_op_for_unsigned_abs {
  %a = ge.data {index = 0 : i64} : tensor<5xui16>
  %y = ge.abs %a : tensor<5xui16> -> tensor<5xui16>
  ge.netoutput %y : tensor<5xui16>
}

// -----

// CHECK-LABEL: func.func @abs_relu_i32(
// CHECK:           math.absi %{{.*}} : i32
// CHECK:           arith.maxsi %{{.*}}, %{{.*}} : i32
ge.graph @abs_relu_i32 {
  %a = ge.data {index = 0 : i64} : tensor<5xi32>
  %b = ge.abs %a : tensor<5xi32> -> tensor<5xi32>
  %y = ge.relu %a : tensor<5xi32> -> tensor<5xi32>
  ge.netoutput %b, %y : tensor<5xi32>, tensor<5xi32>
}
