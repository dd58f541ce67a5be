// RUN: ge-opt %s --split-input-file -p convert-ge-to-loops | filecheck %s

// An integer ge.resize: nearest gathers in the element type (exact, no
// float); linear and cubic compute in float64 (f64 weight tables) and round
// half to even, clamped into the type, at the end (ONNX's reference).

// CHECK-LABEL: func.func @nearest_i8(
// CHECK:           %[[K:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:           %[[V:.*]] = memref.load %{{.*}}[%{{.*}}, %[[K]]] : memref<3x5xi8>
// CHECK-NEXT:      affine.store %[[V]], %{{.*}}[%{{.*}}, %{{.*}}] : memref<3x8xi8>
// CHECK-NOT:     sitofp
ge.graph @nearest_i8 {
  %x = ge.data {index = 0 : i64} : tensor<3x5xi8>
  %y = ge.resize %x {sizes = array<i64: 3, 8>, scales = array<f32: 1.0, 1.6>, mode = "nearest"} : tensor<3x5xi8> -> tensor<3x8xi8>
  ge.netoutput %y : tensor<3x8xi8>
}

// -----

// CHECK-LABEL: func.func @linear_ui8(
// CHECK-DAG:     %[[LOW:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-DAG:     %[[HIGH:.*]] = arith.constant 2.550000e+02 : f64
// CHECK:         %[[T:.*]] = memref.alloc() : memref<3x8xf64>
// CHECK:           %[[V:.*]] = memref.load %{{.*}} : memref<3x5xi8>
// CHECK-NEXT:      %[[F:.*]] = arith.uitofp %[[V]] : i8 to f64
// CHECK-NEXT:      %[[W:.*]] = affine.load %{{.*}} : memref<8x2xf64>
// CHECK-NEXT:      arith.mulf %[[F]], %[[W]] : f64
// CHECK:           %[[S:.*]] = affine.load %[[T]][%{{.*}}, %{{.*}}] : memref<3x8xf64>
// CHECK-NEXT:      %[[R:.*]] = math.roundeven %[[S]] : f64
// CHECK-NEXT:      %[[A:.*]] = arith.maximumf %[[R]], %[[LOW]] : f64
// CHECK-NEXT:      %[[B:.*]] = arith.minimumf %[[A]], %[[HIGH]] : f64
// CHECK-NEXT:      %[[I:.*]] = arith.fptoui %[[B]] : f64 to i8
ge.graph @linear_ui8 {
  %x = ge.data {index = 0 : i64} : tensor<3x5xui8>
  %y = ge.resize %x {sizes = array<i64: 3, 8>, scales = array<f32: 1.0, 1.6>, mode = "linear"} : tensor<3x5xui8> -> tensor<3x8xui8>
  ge.netoutput %y : tensor<3x8xui8>
}
