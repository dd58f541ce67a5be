// RUN: ge-opt %s --split-input-file -p convert-ge-to-loops | filecheck %s
// RUN: ge-run %s --graph crop --random-inputs --check --trace --output-dir %t | filecheck %s --check-prefix=JIT

// ge.resize lowers axis by axis: the taps of each resampled axis (input
// indices and weights, from the op's own interpolation_taps) are constant
// memref.globals; each output element gathers its taps with memref.load
// and sums them weighted. Untouched axes cost nothing; nearest taps have
// weight 1 (no multiply).

// JIT: check: JIT vs reference on 1 ops
// JIT-NOT: reference:
// JIT: : ok

// CHECK:       "memref.global"() <{sym_name = "linear_table0", type = memref<8x2xi64>, initial_value = dense<{{\[\[}}0, 0], [0, 1], [1, 2], [1, 2], [2, 3], [2, 3], [3, 4], [4, 4]]> : tensor<8x2xi64>, sym_visibility = "private", constant}>
// CHECK-NEXT:  "memref.global"() <{sym_name = "linear_table1", type = memref<8x2xf32>, initial_value = dense<{{\[\[}}1.875000e-01, 8.125000e-01], {{.*}}, constant}>
// CHECK-LABEL: func.func @linear(
// CHECK-SAME:      %[[X:[0-9]+]]: memref<3x5xf32>
// CHECK:         %[[Y:[0-9]+]] = memref.alloc() : memref<3x8xf32>
// CHECK:         %[[I:[0-9]+]] = memref.get_global @linear_table0
// CHECK:         %[[W:[0-9]+]] = memref.get_global @linear_table1
// CHECK:         affine.for %[[A:[0-9]+]] = 0 to 3 {
// CHECK-NEXT:      affine.for %[[B:[0-9]+]] = 0 to 8 {
// CHECK-NEXT:        %[[I0:[0-9]+]] = affine.load %[[I]][%[[B]], 0]
// CHECK-NEXT:        %[[K0:[0-9]+]] = arith.index_cast %[[I0]] : i64 to index
// CHECK-NEXT:        %[[R:[0-9]+]] = affine.apply
// CHECK-NEXT:        %[[V0:[0-9]+]] = memref.load %[[X]][%[[R]], %[[K0]]]
// CHECK-NEXT:        %[[W0:[0-9]+]] = affine.load %[[W]][%[[B]], 0]
// CHECK-NEXT:        %[[T0:[0-9]+]] = arith.mulf %[[V0]], %[[W0]]
// CHECK:             %[[T1:[0-9]+]] = arith.mulf
// CHECK-NEXT:        %[[S:[0-9]+]] = arith.addf %[[T0]], %[[T1]]
// CHECK-NEXT:        affine.store %[[S]], %[[Y]][%[[A]], %[[B]]]
ge.graph @linear {
  %x = ge.data {index = 0 : i64, name = "x"} : tensor<3x5xf32>
  %y = ge.resize %x {sizes = array<i64: 3, 8>, scales = array<f32: 1.0, 1.6>, mode = "linear"} : tensor<3x5xf32> -> tensor<3x8xf32>
  ge.netoutput %y : tensor<3x8xf32>
}

// -----

// tf_crop_and_resize: outputs outside the roi take extrapolation_value
// (an i1 table per axis, selected after the taps).

// CHECK-LABEL: func.func @crop(
// CHECK-NEXT:    %[[FILL:[0-9]+]] = arith.constant 3.000000e+00 : f32
// CHECK:         memref.get_global @crop_table0 : memref<4x1xi64>
// CHECK-NOT:     arith.mulf
// CHECK:         %[[MASK:[0-9]+]] = memref.get_global @crop_table1 : memref<4xi1>
// CHECK:         %[[OUT:[0-9]+]] = affine.load %[[MASK]]
// CHECK-NEXT:    arith.select %[[OUT]], %[[FILL]], %{{[0-9]+}} : f32
ge.graph @crop {
  %x = ge.data {index = 0 : i64, name = "x"} : tensor<1x3x4x4xf32>
  %y = ge.resize %x {sizes = array<i64: 1, 3, 4, 4>, scales = array<f32: 1.0, 1.0, 1.0, 1.0>, roi = array<f32: 0.0, 0.0, -0.5, 0.0, 1.0, 1.0, 1.5, 1.0>, mode = "nearest", coordinate_transformation_mode = "tf_crop_and_resize", extrapolation_value = 3.0 : f32} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  ge.netoutput %y : tensor<1x3x4x4xf32>
}

// -----

// ge.grid_sample: a nest per spatial axis turns the grid's coordinate
// (component 1 for H, 0 for W) into tap indices (clamped, i64) and weights;
// with reflection the coordinate and then each tap fold into the bounds
// (aligned corners: 0 and length - 1). The result nest loads each axis's
// taps once and gathers x at every combination (2 x 2 for linear).

// CHECK-LABEL: func.func @grid_sample(
// CHECK-SAME:      %[[X:.*]]: memref<1x3x5x4xf32> {ge.input = 0 : i64}, %[[G:.*]]: memref<1x2x3x2xf32> {ge.input = 1 : i64})
// CHECK-DAG:     %[[FOUR:.*]] = arith.constant 4.000000e+00 : f32
// CHECK-DAG:     %[[THREE:.*]] = arith.constant 3.000000e+00 : f32
// CHECK:         %[[HI:.*]] = memref.alloc() : memref<1x2x3x2xi64>
// CHECK-NEXT:    %[[HW:.*]] = memref.alloc() : memref<1x2x3x2xf32>
// CHECK:         affine.load %[[G]][0, %{{.*}}, %{{.*}}, 1]
// CHECK:         arith.mulf %{{.*}}, %[[FOUR]] : f32
// CHECK:         math.floor
// CHECK:         arith.cmpf une
// CHECK:         math.trunc
// CHECK:         arith.minimumf %{{.*}}, %[[FOUR]] : f32
// CHECK:         arith.fptosi %{{.*}} : f32 to i64
// CHECK:         affine.store %{{.*}}, %[[HI]][0, %{{.*}}, %{{.*}}, 0]
// CHECK:         affine.store %{{.*}}, %[[HW]][0, %{{.*}}, %{{.*}}, 0]
// CHECK:         %[[WI:.*]] = memref.alloc() : memref<1x2x3x2xi64>
// CHECK-NEXT:    %[[WW:.*]] = memref.alloc() : memref<1x2x3x2xf32>
// CHECK:         affine.load %[[G]][0, %{{.*}}, %{{.*}}, 0]
// CHECK:         arith.minimumf %{{.*}}, %[[THREE]] : f32
// CHECK:         affine.for %[[C:.*]] = 0 to 3 {
// CHECK-NEXT:      affine.for %[[OH:.*]] = 0 to 2 {
// CHECK-NEXT:        affine.for %[[OW:.*]] = 0 to 3 {
// CHECK-NEXT:          %[[H0:.*]] = affine.load %[[HI]][0, %[[OH]], %[[OW]], 0]
// CHECK-NEXT:          arith.cmpi sge, %[[H0]]
// CHECK-NEXT:          %[[H0C:.*]] = arith.maxsi %[[H0]]
// CHECK-NEXT:          %[[H0I:.*]] = arith.index_cast %[[H0C]] : i64 to index
// CHECK:               %[[W0:.*]] = affine.load %[[WI]][0, %[[OH]], %[[OW]], 0]
// CHECK-NEXT:          arith.cmpi sge, %[[W0]]
// CHECK-NEXT:          %[[W0C:.*]] = arith.maxsi %[[W0]]
// CHECK-NEXT:          %[[W0I:.*]] = arith.index_cast %[[W0C]] : i64 to index
// CHECK:               memref.load %[[X]][%{{.*}}, %{{.*}}, %[[H0I]], %[[W0I]]] : memref<1x3x5x4xf32>
// CHECK-COUNT-3:       memref.load %[[X]]
// CHECK-NOT:           memref.load
// CHECK:               affine.store %{{.*}}, %{{.*}}[0, %[[C]], %[[OH]], %[[OW]]] : memref<1x3x2x3xf32>
ge.graph @grid_sample {
  %x = ge.data {index = 0 : i64} : tensor<1x3x5x4xf32>
  %g = ge.data {index = 1 : i64} : tensor<1x2x3x2xf32>
  %y = ge.grid_sample %x, %g {padding_mode = "reflection", align_corners = true} : (tensor<1x3x5x4xf32>, tensor<1x2x3x2xf32>) -> tensor<1x3x2x3xf32>
  ge.netoutput %y : tensor<1x3x2x3xf32>
}

// -----

// ge.roi_align: H and W tap tables [rois, bins, samples, 2] from the rois
// (columns 1, 3 for H; 0, 2 for W), then per output element the image
// picked by batch_indices is gathered at 2 x 2 samples of 2 x 2 corners;
// max mode keeps the largest weighted corner.

// CHECK-LABEL: func.func @roi_align(
// CHECK-SAME:      %[[X:.*]]: memref<1x3x9x7xf32> {ge.input = 0 : i64}, %[[R:.*]]: memref<2x4xf32> {ge.input = 1 : i64}, %[[B:.*]]: memref<2xi64> {ge.input = 2 : i64})
// CHECK:         %[[HI:.*]] = memref.alloc() : memref<2x3x2x2xi64>
// CHECK:         affine.load %[[R]][%{{.*}}, 1]
// CHECK:         affine.load %[[R]][%{{.*}}, 3]
// CHECK:         %[[WI:.*]] = memref.alloc() : memref<2x2x2x2xi64>
// CHECK:         affine.load %[[R]][%{{.*}}, 0]
// CHECK:         affine.load %[[R]][%{{.*}}, 2]
// CHECK:         affine.for %[[ROI:.*]] = 0 to 2 {
// CHECK:           %[[IMAGE:.*]] = affine.load %[[B]][%[[ROI]]] : memref<2xi64>
// CHECK-NEXT:      %[[N:.*]] = arith.index_cast %[[IMAGE]] : i64 to index
// CHECK:           memref.load %[[X]][%[[N]], %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x3x9x7xf32>
// CHECK-COUNT-15:  memref.load %[[X]][%[[N]]
// CHECK-NOT:       memref.load
// CHECK:           arith.maximumf
// CHECK-NOT:       arith.divf
// CHECK:           affine.store
ge.graph @roi_align {
  %x = ge.data {index = 0 : i64} : tensor<1x3x9x7xf32>
  %r = ge.data {index = 1 : i64} : tensor<2x4xf32>
  %b = ge.data {index = 2 : i64} : tensor<2xi64>
  %y = ge.roi_align %x, %r, %b {output_height = 3 : i64, output_width = 2 : i64, sampling_ratio = 2 : i64, mode = "max"} : (tensor<1x3x9x7xf32>, tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x3x3x2xf32>
  ge.netoutput %y : tensor<2x3x3x2xf32>
}
