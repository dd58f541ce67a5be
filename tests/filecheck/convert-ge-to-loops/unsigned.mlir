// RUN: ge-opt %s --split-input-file -p convert-ge-to-loops | filecheck %s

// Loop IR is upstream MLIR: integer types are signless. The op choice keeps
// an unsigned tensor's meaning (divui, cmpi ult, maxui, extui, uitofp, ...),
// and the function's arguments and results whose graph type is unsigned say
// so with `ge.element_type`.

// CHECK-LABEL: func.func @unsigned_div(
// CHECK-SAME:      %[[A:.*]]: memref<5xi8> {ge.input = 0 : i64, ge.element_type = ui8},
// CHECK-SAME:      %[[B:.*]]: memref<5xi8> {ge.input = 1 : i64, ge.element_type = ui8})
// CHECK-SAME:      -> (memref<5xi8> {ge.element_type = ui8})
// CHECK:         %[[Y:.*]] = memref.alloc() : memref<5xi8>
// CHECK:           %[[X0:.*]] = affine.load %[[A]][%[[I:.*]]] : memref<5xi8>
// CHECK-NEXT:      %[[X1:.*]] = affine.load %[[B]][%[[I]]] : memref<5xi8>
// CHECK-NEXT:      %[[Q:.*]] = arith.divui %[[X0]], %[[X1]] : i8
// CHECK-NEXT:      affine.store %[[Q]], %[[Y]][%[[I]]] : memref<5xi8>
// CHECK:         func.return %[[Y]] : memref<5xi8>
// CHECK-NOT:     ui8
ge.graph @unsigned_div {
  %a = ge.data {index = 0 : i64} : tensor<5xui8>
  %b = ge.data {index = 1 : i64} : tensor<5xui8>
  %d = ge.div %a, %b : (tensor<5xui8>, tensor<5xui8>) -> tensor<5xui8>
  ge.netoutput %d : tensor<5xui8>
}

// -----

// A bound above the signed range is the same bits written signed (255 is -1).

// CHECK-LABEL: func.func @unsigned_clip(
// CHECK-DAG:     %[[HIGH:.*]] = arith.constant -6 : i8
// CHECK-DAG:     %[[LOW:.*]] = arith.constant 3 : i8
// CHECK:           %[[X:.*]] = affine.load
// CHECK-NEXT:      %[[UP:.*]] = arith.maxui %[[X]], %[[LOW]] : i8
// CHECK-NEXT:      arith.minui %[[UP]], %[[HIGH]] : i8
ge.graph @unsigned_clip {
  %a = ge.data {index = 0 : i64} : tensor<7xui8>
  %y = ge.clip %a {min = 3.0 : f32, max = 250.0 : f32} : tensor<7xui8> -> tensor<7xui8>
  ge.netoutput %y : tensor<7xui8>
}

// -----

// Casts from an unsigned type zero-extend and convert as unsigned.

// CHECK-LABEL: func.func @unsigned_casts(
// CHECK-SAME:      -> (memref<6xi32>, memref<6xf32>, memref<6xi16> {ge.element_type = ui16})
// CHECK:           %[[X:.*]] = affine.load %{{.*}}[%[[I:.*]]] : memref<6xi8>
// CHECK-NEXT:      %[[W:.*]] = arith.extui %[[X]] : i8 to i32
// CHECK:           %[[X2:.*]] = affine.load %{{.*}}[%[[I2:.*]]] : memref<6xi8>
// CHECK-NEXT:      %[[F:.*]] = arith.uitofp %[[X2]] : i8 to f32
// CHECK:           %[[F2:.*]] = affine.load %{{.*}}[%[[I3:.*]]] : memref<6xf32>
// CHECK-NEXT:      arith.fptoui %[[F2]] : f32 to i16
// CHECK-NOT:     arith.extsi
// CHECK-NOT:     arith.sitofp
ge.graph @unsigned_casts {
  %a = ge.data {index = 0 : i64} : tensor<6xui8>
  %w = ge.cast %a {dst_type = i32} : tensor<6xui8> -> tensor<6xi32>
  %f = ge.cast %a {dst_type = f32} : tensor<6xui8> -> tensor<6xf32>
  %u = ge.cast %f {dst_type = ui16} : tensor<6xf32> -> tensor<6xui16>
  ge.netoutput %w, %f, %u : tensor<6xi32>, tensor<6xf32>, tensor<6xui16>
}

// -----

// A signed or float graph has no `ge.element_type`: its memrefs say it all.

// CHECK-LABEL: func.func @no_element_type_on_signed(
// CHECK-SAME:      %{{.*}}: memref<5xi8> {ge.input = 0 : i64})
// CHECK-SAME:      -> memref<5xi8> {
// CHECK:           arith.divsi
// CHECK-NOT:     ge.element_type
ge.graph @no_element_type_on_signed {
  %a = ge.data {index = 0 : i64} : tensor<5xi8>
  %d = ge.div %a, %a : (tensor<5xi8>, tensor<5xi8>) -> tensor<5xi8>
  ge.netoutput %d : tensor<5xi8>
}
