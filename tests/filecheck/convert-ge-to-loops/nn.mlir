// RUN: ge-opt %s --split-input-file -p convert-ge-to-loops | filecheck %s

// Convolution on NC1HWC0 with external FRACTAL_Z weights (a function
// argument with its key). Pads go into a zero-bordered scratch copy; the f16
// result accumulates in an f32 scratch buffer; the reduction nest is
// acc[n, c1o, ho, wo, c0o] += x[..., ho * 2 + kh, wo * 2 + kw, c0i] * w[kh * 3 + kw, c1o, c0o, c0i].

// CHECK-LABEL: func.func @conv(
// CHECK-SAME:      %[[X:.*]]: memref<1x1x4x4x16xf16> {ge.input = 0 : i64},
// CHECK-SAME:      %[[W:.*]]: memref<9x2x16x16xf16> {ge.weight = "conv.w"}) -> memref<1x2x2x2x16xf16> {
// CHECK:         %[[Y:.*]] = memref.alloc() : memref<1x2x2x2x16xf16>
// CHECK:         %[[P:.*]] = memref.alloc() : memref<1x1x6x6x16xf16>
// CHECK:         affine.store %{{.*}}, %[[P]][0, 0, %{{.*}} + 1, %{{.*}} + 1, %{{.*}}]
// CHECK:         %[[ACC:.*]] = memref.alloc() : memref<1x2x2x2x16xf32>
// CHECK:         affine.store %{{.*}}, %[[ACC]]
// CHECK:         affine.for %[[CO1:.*]] = 0 to 2 {
// CHECK-NEXT:      affine.for %[[HO:.*]] = 0 to 2 {
// CHECK-NEXT:        affine.for %[[WO:.*]] = 0 to 2 {
// CHECK-NEXT:          affine.for %[[CO0:.*]] = 0 to 16 {
// CHECK-NEXT:            affine.for %[[KH:.*]] = 0 to 3 {
// CHECK-NEXT:              affine.for %[[KW:.*]] = 0 to 3 {
// CHECK-NEXT:                affine.for %[[CI:.*]] = 0 to 16 {
// CHECK-NEXT:                  %[[XV:.*]] = affine.load %[[P]][0, 0, %[[HO]] * 2 + %[[KH]], %[[WO]] * 2 + %[[KW]], %[[CI]]]
// CHECK-NEXT:                  %[[XE:.*]] = arith.extf %[[XV]] : f16 to f32
// CHECK-NEXT:                  %[[WV:.*]] = affine.load %[[W]][%[[KH]] * 3 + %[[KW]], %[[CO1]], %[[CO0]], %[[CI]]]
// CHECK-NEXT:                  %[[WE:.*]] = arith.extf %[[WV]] : f16 to f32
// CHECK-NEXT:                  %[[M:.*]] = arith.mulf %[[XE]], %[[WE]] : f32
// CHECK-NEXT:                  %[[A:.*]] = affine.load %[[ACC]][0, %[[CO1]], %[[HO]], %[[WO]], %[[CO0]]]
// CHECK-NEXT:                  %[[S:.*]] = arith.addf %[[A]], %[[M]] : f32
// CHECK-NEXT:                  affine.store %[[S]], %[[ACC]][0, %[[CO1]], %[[HO]], %[[WO]], %[[CO0]]]
// CHECK:         arith.truncf %{{.*}} : f32 to f16
// CHECK:         memref.dealloc %[[P]]
// CHECK-NEXT:    memref.dealloc %[[ACC]]
// CHECK-NEXT:    func.return %[[Y]]
ge.graph @conv {
  %x = ge.data {index = 0 : i64} : tensor<1x16x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %w = ge.const {value = #ge.external<"conv.w">} : tensor<32x16x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
  %y = ge.conv2d %x, %w {data_format = "NCHW", strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x4x4xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<32x16x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>) -> tensor<1x32x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %y : tensor<1x32x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// Max pooling pads with -inf, so padding never wins; the f32 result is its
// own accumulator.

// CHECK-LABEL: func.func @maxpool(
// CHECK:         %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[Y:.*]] = memref.alloc() : memref<1x2x2x2x8xf32>
// CHECK:         %[[P:.*]] = memref.alloc() : memref<1x2x6x6x8xf32>
// CHECK:         affine.store %[[NEG]], %[[P]]
// CHECK:         affine.store %[[NEG]], %[[Y]]
// CHECK:         affine.load %[[P]][0, %{{.*}}, %[[HO:.*]] * 2 + %[[KH:.*]], %[[WO:.*]] * 2 + %[[KW:.*]], %{{.*}}]
// CHECK-NEXT:    affine.load %[[Y]]
// CHECK-NEXT:    arith.maximumf
// CHECK-NEXT:    affine.store %{{.*}}, %[[Y]]
ge.graph @maxpool {
  %x = ge.data {index = 0 : i64} : tensor<1x16x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  %y = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 3, 3>, strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x16x4x4xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x16x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %y : tensor<1x16x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// A 9x9 average over a 2x2 map (ceil mode: one output) sums the 2x2 taps
// that read the map, no padded copy, no loop over the other 77; its
// divisor still counts the window's taps by the rule (9 long masks).

// CHECK-LABEL: func.func @window_past_the_input(
// CHECK-SAME:      %[[X:[^:]*]]: memref<1x3x2x2xf32> {ge.input = 0 : i64})
// CHECK-NOT:     memref.alloc() : memref<1x3x9x9xf32>
// CHECK:         affine.for %{{.*}} = 0 to 3 {
// CHECK-NEXT:      affine.store
// CHECK:         affine.for %[[C:.*]] = 0 to 3 {
// CHECK-NEXT:      affine.for %[[KH:.*]] = 0 to 2 {
// CHECK-NEXT:        affine.for %[[KW:.*]] = 0 to 2 {
// CHECK-NEXT:          %{{.*}} = affine.load %[[X]][0, %[[C]], %[[KH]], %[[KW]]] : memref<1x3x2x2xf32>
ge.graph @window_past_the_input {
  %x = ge.data {index = 0 : i64} : tensor<1x3x2x2xf32>
  %y = ge.avg_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 9, 9>, strides = array<i64: 1, 1, 9, 9>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = true} : tensor<1x3x2x2xf32> -> tensor<1x3x1x1xf32>
  ge.netoutput %y : tensor<1x3x1x1xf32>
}

// -----

// Matmul on FRACTAL_NZ: a[m, k] at [k1, m1, m0, k0], b[k, n] at [n1, k1, k0, n0].

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:      %[[A:.*]]: memref<2x1x16x16xf16> {ge.input = 0 : i64},
// CHECK-SAME:      %[[B:.*]]: memref<1x2x16x16xf16> {ge.input = 1 : i64})
// CHECK:         %[[ACC:.*]] = memref.alloc() : memref<1x1x16x16xf32>
// CHECK:         affine.store %{{.*}}, %[[ACC]]
// CHECK:         affine.for %[[M:.*]] = 0 to 16 {
// CHECK-NEXT:      affine.for %[[N:.*]] = 0 to 16 {
// CHECK-NEXT:        affine.for %[[K1:.*]] = 0 to 2 {
// CHECK-NEXT:          affine.for %[[K0:.*]] = 0 to 16 {
// CHECK-NEXT:            affine.load %[[A]][%[[K1]], 0, %[[M]], %[[K0]]]
// CHECK-NEXT:            arith.extf
// CHECK-NEXT:            affine.load %[[B]][0, %[[K1]], %[[K0]], %[[N]]]
ge.graph @matmul {
  %a = ge.data {index = 0 : i64} : tensor<16x32xf16, #ge.layout<ND, FRACTAL_NZ>>
  %b = ge.data {index = 1 : i64} : tensor<32x16xf16, #ge.layout<ND, FRACTAL_NZ>>
  %y = ge.matmul %a, %b : (tensor<16x32xf16, #ge.layout<ND, FRACTAL_NZ>>, tensor<32x16xf16, #ge.layout<ND, FRACTAL_NZ>>) -> tensor<16x16xf16, #ge.layout<ND, FRACTAL_NZ>>
  ge.netoutput %y : tensor<16x16xf16, #ge.layout<ND, FRACTAL_NZ>>
}

// -----

// Lp pooling: |x|^p summed over dilated taps (zero padding adds nothing),
// then the p-th root; p = 2 is a square and a square root. The padding of
// the last C0 block (17 channels: one valid lane of 8) is never read.

// CHECK-LABEL: func.func @lp_pool(
// CHECK-SAME:      %[[X:.*]]: memref<1x3x5x5x8xf32> {ge.input = 0 : i64})
// CHECK-DAG:     %[[THIRD:.*]] = arith.constant 0.333333343 : f32
// CHECK-DAG:     %[[THREE:.*]] = arith.constant 3.000000e+00 : f32
// CHECK:         %[[Y:.*]] = memref.alloc() : memref<1x3x3x3x8xf32>
// CHECK:         %[[T:.*]] = affine.load %[[X]][0, %[[C:.*]], %[[HO:.*]] + %[[KH:.*]] * 2, %[[WO:.*]] + %[[KW:.*]] * 2, %{{.*}}]
// CHECK-NEXT:    %[[A:.*]] = math.absf %[[T]] : f32
// CHECK-NEXT:    %[[P:.*]] = math.powf %[[A]], %[[THREE]] : f32
// CHECK-NEXT:    %[[S:.*]] = affine.load %[[Y]]
// CHECK-NEXT:    arith.addf %[[S]], %[[P]] : f32
// CHECK:         affine.load %[[X]][0, 2, %{{.*}} + %{{.*}} * 2, %{{.*}} + %{{.*}} * 2, 0]
// CHECK:         math.powf %{{.*}}, %[[THIRD]] : f32
// CHECK:         %[[G:.*]] = memref.alloc() : memref<1x3x1x1x8xf32>
// CHECK:         %[[V:.*]] = affine.load %[[X]]
// CHECK-NEXT:    arith.mulf %[[V]], %[[V]] : f32
// CHECK:         math.sqrt
// CHECK-NOT:     math.powf
// CHECK:         func.return %[[Y]], %[[G]]
ge.graph @lp_pool {
  %x = ge.data {index = 0 : i64} : tensor<1x17x5x5xf32, #ge.layout<NCHW, NC1HWC0>>
  %y = ge.lp_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, dilations = array<i64: 1, 1, 2, 2>, p = 3.0 : f32} : tensor<1x17x5x5xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  %g = ge.global_lp_pool %x {data_format = "NCHW"} : tensor<1x17x5x5xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x1x1xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %y, %g : tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x17x1x1xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// ge.lp_norm: the squares summed along the axis into a [1, 17] scratch
// buffer, then x / sqrt(sum), with 0 where the norm is 0.

// CHECK-LABEL: func.func @lp_norm(
// CHECK-SAME:      %[[X:.*]]: memref<3x17xf32> {ge.input = 0 : i64})
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[Y:.*]] = memref.alloc() : memref<3x17xf32>
// CHECK-NEXT:    %[[SUM:.*]] = memref.alloc() : memref<1x17xf32>
// CHECK:         %[[V:.*]] = affine.load %[[X]][%[[I:.*]], %[[J:.*]]] : memref<3x17xf32>
// CHECK-NEXT:    %[[SQ:.*]] = arith.mulf %[[V]], %[[V]] : f32
// CHECK-NEXT:    %[[S:.*]] = affine.load %[[SUM]][0, %[[J]]]
// CHECK-NEXT:    arith.addf %[[S]], %[[SQ]] : f32
// CHECK:         %[[T:.*]] = affine.load %[[SUM]][0, %[[COL:.*]]]
// CHECK-NEXT:    %[[NORM:.*]] = math.sqrt %[[T]] : f32
// CHECK-NEXT:    %[[XV:.*]] = affine.load %[[X]][%[[ROW:.*]], %[[COL]]]
// CHECK-NEXT:    %[[Q:.*]] = arith.divf %[[XV]], %[[NORM]] : f32
// CHECK-NEXT:    %[[Z:.*]] = arith.cmpf oeq, %[[NORM]], %[[ZERO]] : f32
// CHECK-NEXT:    %[[R:.*]] = arith.select %[[Z]], %[[ZERO]], %[[Q]] : f32
// CHECK-NEXT:    affine.store %[[R]], %[[Y]][%[[ROW]], %[[COL]]]
ge.graph @lp_norm {
  %x = ge.data {index = 0 : i64} : tensor<3x17xf32>
  %y = ge.lp_norm %x {axis = 0 : i64, p = 2 : i64} : tensor<3x17xf32> -> tensor<3x17xf32>
  ge.netoutput %y : tensor<3x17xf32>
}

// -----

// Max pooling with positions: a tap wins when it is larger, or when no
// position is held yet (-1) and the tap lies inside the input; its flat
// column-major position is (c * 25) + row + column * 5, row = 2 oh + kh - 1
// and column = 2 ow + kw - 1 (one pad row and column before).

// CHECK-LABEL: func.func @argmax(
// CHECK:         %[[NONE:.*]] = arith.constant -1 : i64
// CHECK:         %[[Y:.*]] = memref.alloc() : memref<1x3x3x3xf32>
// CHECK-NEXT:    %[[I:.*]] = memref.alloc() : memref<1x3x3x3xi64>
// CHECK:         affine.store %[[NONE]], %[[I]]
// CHECK:         %[[TAP:.*]] = affine.load %[[P:.*]][0, %[[C:.*]], %[[OH:.*]] * 2 + %[[KH:.*]], %[[OW:.*]] * 2 + %[[KW:.*]]] : memref<1x3x6x6xf32>
// CHECK-NEXT:    %[[BEST:.*]] = affine.load %[[Y]][0, %[[C]], %[[OH]], %[[OW]]]
// CHECK-NEXT:    %[[HELD:.*]] = affine.load %[[I]][0, %[[C]], %[[OH]], %[[OW]]]
// CHECK:         %[[UNSET:.*]] = arith.cmpi eq, %[[HELD]], %[[NONE]] : i64
// CHECK:         %[[MAX:.*]] = arith.maximumf %[[TAP]], %[[BEST]] : f32
// CHECK-NEXT:    %[[LARGER:.*]] = arith.cmpf une, %[[MAX]], %[[BEST]] : f32
// CHECK-NEXT:    %[[TAKE:.*]] = arith.ori %{{.*}}, %[[LARGER]] : i1
// CHECK-NEXT:    arith.select %[[TAKE]], %[[TAP]], %[[BEST]] : f32
// CHECK:         %[[FLAT:.*]] = affine.apply affine_map<(d0, d1, d2, d3, d4) -> (((((((d0 * 25) + -6) + (d1 * 2)) + d2) + (d3 * 10)) + (d4 * 5)))> (%[[C]], %[[OH]], %[[KH]], %[[OW]], %[[KW]])
// CHECK-NEXT:    %[[POS:.*]] = arith.index_cast %[[FLAT]] : index to i64
// CHECK-NEXT:    %[[NEW:.*]] = arith.select %[[TAKE]], %[[POS]], %[[HELD]] : i64
// CHECK-NEXT:    affine.store %[[NEW]], %[[I]][0, %[[C]], %[[OH]], %[[OW]]]
ge.graph @argmax {
  %x = ge.data {index = 0 : i64} : tensor<1x3x5x5xf32>
  %y, %i = ge.max_pool_with_argmax %x {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 1, 0, 1, 0>, storage_order = 1 : i64} : tensor<1x3x5x5xf32> -> tensor<1x3x3x3xf32>, tensor<1x3x3x3xi64>
  ge.netoutput %y, %i : tensor<1x3x3x3xf32>, tensor<1x3x3x3xi64>
}

// -----

// ge.max_unpool: zeros, then each element stored at its flat position split
// into the result's axes (remainders and quotients by 5, 5, 3, 1).

// CHECK-LABEL: func.func @unpool(
// CHECK-SAME:      %[[X:.*]]: memref<1x3x2x2xf32> {ge.input = 0 : i64}, %[[I:.*]]: memref<1x3x2x2xi64> {ge.input = 1 : i64})
// CHECK:         %[[Y:.*]] = memref.alloc() : memref<1x3x5x5xf32>
// CHECK:         affine.store %{{.*}}, %[[Y]]
// CHECK:         %[[RAW:.*]] = affine.load %[[I]]
// CHECK-NEXT:    %[[FLAT:.*]] = arith.index_cast %[[RAW]] : i64 to index
// CHECK-NEXT:    %[[W:.*]] = arith.remui %[[FLAT]], %[[FIVE:.*]] : index
// CHECK-NEXT:    %[[REST:.*]] = arith.divui %[[FLAT]], %[[FIVE]] : index
// CHECK-NEXT:    %[[H:.*]] = arith.remui %[[REST]], %[[FIVE]] : index
// CHECK:         %[[V:.*]] = affine.load %[[X]]
// CHECK-NEXT:    memref.store %[[V]], %[[Y]][%{{.*}}, %{{.*}}, %[[H]], %[[W]]] : memref<1x3x5x5xf32>
ge.graph @unpool {
  %x = ge.data {index = 0 : i64} : tensor<1x3x2x2xf32>
  %i = ge.data {index = 1 : i64} : tensor<1x3x2x2xi64>
  %u = ge.max_unpool %x, %i {output_shape = array<i64: 1, 3, 5, 5>} : (tensor<1x3x2x2xf32>, tensor<1x3x2x2xi64>) -> tensor<1x3x5x5xf32>
  ge.netoutput %u : tensor<1x3x5x5xf32>
}
