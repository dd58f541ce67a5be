// RUN: ge-opt %s --split-input-file -p convert-ge-to-loops | filecheck %s

// float8 and float4 are MLIR's own types (f8E4M3FN, ...). A cast to a float8
// type with a sign saturates by default (ONNX Cast's `saturate`): the value
// is clamped to the type's largest finite value in f32 (NaN stays NaN:
// maximumf/minimumf propagate it), then `arith.truncf` rounds to nearest even.

// CHECK-LABEL: func.func @saturating(
// CHECK-SAME:      %[[X:.*]]: memref<3xf32> {ge.input = 0 : i64}) -> memref<3xf8E4M3FN> {
// CHECK-DAG:     %[[MAX:.*]] = arith.constant 4.480000e+02 : f32
// CHECK-DAG:     %[[MIN:.*]] = arith.constant -4.480000e+02 : f32
// CHECK:         %[[Y:.*]] = memref.alloc() : memref<3xf8E4M3FN>
// CHECK:         affine.for %[[I:.*]] = 0 to 3 {
// CHECK-NEXT:      %[[V:.*]] = affine.load %[[X]][%[[I]]] : memref<3xf32>
// CHECK-NEXT:      %[[LOW:.*]] = arith.maximumf %[[V]], %[[MIN]] : f32
// CHECK-NEXT:      %[[HIGH:.*]] = arith.minimumf %[[LOW]], %[[MAX]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[HIGH]] : f32 to f8E4M3FN
// CHECK-NEXT:      affine.store %[[T]], %[[Y]][%[[I]]] : memref<3xf8E4M3FN>
ge.graph @saturating {
  %x = ge.data {index = 0 : i64} : tensor<3xf32>
  %y = ge.cast %x {dst_type = f8E4M3FN} : tensor<3xf32> -> tensor<3xf8E4M3FN>
  ge.netoutput %y : tensor<3xf8E4M3FN>
}

// -----

// saturate = false: IEEE rounding only (out of range becomes NaN in a type
// without infinities).

// CHECK-LABEL: func.func @no_saturate(
// CHECK-NOT:     arith.maximumf
// CHECK:         %[[V:.*]] = affine.load %{{.*}}[%{{.*}}] : memref<3xf16>
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %[[V]] : f16 to f8E5M2FNUZ
// CHECK-NEXT:    affine.store %[[T]], %{{.*}}[%{{.*}}] : memref<3xf8E5M2FNUZ>
ge.graph @no_saturate {
  %x = ge.data {index = 0 : i64} : tensor<3xf16>
  %y = ge.cast %x {dst_type = f8E5M2FNUZ, saturate = false} : tensor<3xf16> -> tensor<3xf8E5M2FNUZ>
  ge.netoutput %y : tensor<3xf8E5M2FNUZ>
}

// -----

// float8_e8m0fnu holds an exponent only: its bits are the f32 exponent,
// rounded as `round_mode` says ("nearest": guard bit and sticky bits), kept
// below 255 (NaN) when saturating, 255 for NaN and infinities.

// CHECK-LABEL: func.func @e8m0(
// CHECK-DAG:     %[[SHIFT:.*]] = arith.constant 23 : i32
// CHECK-DAG:     %[[ALL:.*]] = arith.constant 255 : i32
// CHECK-DAG:     %[[TOP:.*]] = arith.constant 254 : i32
// CHECK:         %[[E:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT:    %[[BITS:.*]] = arith.bitcast %[[E]] : f32 to i32
// CHECK-NEXT:    %[[S:.*]] = arith.shrui %[[BITS]], %[[SHIFT]] : i32
// CHECK-NEXT:    %[[EXP:.*]] = arith.andi %[[S]], %[[ALL]] : i32
// CHECK:         %[[BELOW:.*]] = arith.cmpi ne, %[[EXP]], %[[TOP]] : i32
// CHECK:         %[[UP:.*]] = arith.addi %[[EXP]], %{{.*}} : i32
// CHECK-NEXT:    %[[SPECIAL:.*]] = arith.cmpi eq, %[[EXP]], %[[ALL]] : i32
// CHECK-NEXT:    %[[R:.*]] = arith.select %[[SPECIAL]], %[[EXP]], %[[UP]] : i32
// CHECK-NEXT:    %[[B:.*]] = arith.trunci %[[R]] : i32 to i8
// CHECK-NEXT:    %[[F:.*]] = arith.bitcast %[[B]] : i8 to f8E8M0FNU
// CHECK-NEXT:    affine.store %[[F]], %{{.*}}[%{{.*}}] : memref<3xf8E8M0FNU>
ge.graph @e8m0 {
  %x = ge.data {index = 0 : i64} : tensor<3xf16>
  %y = ge.cast %x {dst_type = f8E8M0FNU, round_mode = "nearest"} : tensor<3xf16> -> tensor<3xf8E8M0FNU>
  ge.netoutput %y : tensor<3xf8E8M0FNU>
}

// -----

// float4 widens with `arith.extf`; int2 (one value per byte in memory, two
// bits counted by the storage formats) converts with `arith.sitofp`, in f32
// because the cast saturates.

// CHECK-LABEL: func.func @narrow_to_wide(
// CHECK-SAME:      %[[X:.*]]: memref<3xf4E2M1FN> {ge.input = 0 : i64}, %[[I:.*]]: memref<3xi2> {ge.input = 1 : i64})
// CHECK:         %[[V:.*]] = affine.load %[[X]][%{{.*}}] : memref<3xf4E2M1FN>
// CHECK-NEXT:    %{{.*}} = arith.extf %[[V]] : f4E2M1FN to f32
// CHECK:         %[[W:.*]] = affine.load %[[I]][%{{.*}}] : memref<3xi2>
// CHECK-NEXT:    %[[F:.*]] = arith.sitofp %[[W]] : i2 to f32
// CHECK-NEXT:    %[[LOW:.*]] = arith.maximumf %[[F]], %{{.*}} : f32
// CHECK-NEXT:    %[[HIGH:.*]] = arith.minimumf %[[LOW]], %{{.*}} : f32
// CHECK-NEXT:    %{{.*}} = arith.truncf %[[HIGH]] : f32 to f8E4M3FNUZ
ge.graph @narrow_to_wide {
  %x = ge.data {index = 0 : i64} : tensor<3xf4E2M1FN>
  %i = ge.data {index = 1 : i64} : tensor<3xi2>
  %y = ge.cast %x {dst_type = f32} : tensor<3xf4E2M1FN> -> tensor<3xf32>
  %z = ge.cast %i {dst_type = f8E4M3FNUZ} : tensor<3xi2> -> tensor<3xf8E4M3FNUZ>
  ge.netoutput %y, %z : tensor<3xf32>, tensor<3xf8E4M3FNUZ>
}
