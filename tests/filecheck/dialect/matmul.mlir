// RUN: ge-opt %s | ge-opt | filecheck %s
// RUN: ge-opt %s --print-op-generic | ge-opt | filecheck %s

// Matrix products: matmul (rank 2, optional bias), batch_matmul, gemm.

// CHECK-LABEL: ge.graph @matmul
// CHECK:         [[A:%.*]] = ge.data {index = 0 : i64} : tensor<2x3xf16, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    [[B:%.*]] = ge.data {index = 1 : i64} : tensor<3x5xf16, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    [[BT:%.*]] = ge.data {index = 2 : i64} : tensor<5x3xf16>
// CHECK-NEXT:    [[BIAS:%.*]] = ge.data {index = 3 : i64} : tensor<5xf16>
// CHECK-NEXT:    [[M:%.*]] = ge.matmul [[A]], [[B]] : (tensor<2x3xf16, #ge.layout<ND, FRACTAL_NZ>>, tensor<3x5xf16, #ge.layout<ND, FRACTAL_NZ>>) -> tensor<2x5xf16, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    [[MT:%.*]] = ge.matmul [[A]], [[BT]], [[BIAS]] {transpose_x2 = true} : (tensor<2x3xf16, #ge.layout<ND, FRACTAL_NZ>>, tensor<5x3xf16>, tensor<5xf16>) -> tensor<2x5xf16>
// CHECK-NEXT:    [[MA:%.*]] = ge.matmul [[B]], [[BT]] {transpose_x1 = true, transpose_x2 = true} : (tensor<3x5xf16, #ge.layout<ND, FRACTAL_NZ>>, tensor<5x3xf16>) -> tensor<5x5xf16>
// CHECK-NEXT:    [[X:%.*]] = ge.data {index = 4 : i64} : tensor<4x1x2x3xf32>
// CHECK-NEXT:    [[Y:%.*]] = ge.data {index = 5 : i64} : tensor<5x3x6xf32>
// CHECK-NEXT:    [[BM:%.*]] = ge.batch_matmul [[X]], [[Y]] : (tensor<4x1x2x3xf32>, tensor<5x3x6xf32>) -> tensor<4x5x2x6xf32>
// CHECK-NEXT:    [[BMA:%.*]] = ge.batch_matmul [[Y]], [[Y]] {adj_x1 = true} : (tensor<5x3x6xf32>, tensor<5x3x6xf32>) -> tensor<5x6x6xf32>
// CHECK-NEXT:    [[GA:%.*]] = ge.data {index = 6 : i64} : tensor<3x2xf32>
// CHECK-NEXT:    [[GB:%.*]] = ge.data {index = 7 : i64} : tensor<4x3xf32>
// CHECK-NEXT:    [[GC:%.*]] = ge.const {value = dense<1.000000e+00> : tensor<4xf32>} : tensor<4xf32>
// CHECK-NEXT:    [[G:%.*]] = ge.gemm [[GA]], [[GB]], [[GC]] {alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32, trans_a = true, trans_b = true} : (tensor<3x2xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    [[G2:%.*]] = ge.gemm [[GB]], [[GA]] : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
// CHECK-NEXT:    [[D:%.*]] = ge.data {index = 8 : i64} : tensor<?x?xf32>
// CHECK-NEXT:    [[MD:%.*]] = ge.matmul [[D]], [[GA]] : (tensor<?x?xf32>, tensor<3x2xf32>) -> tensor<?x2xf32>
// CHECK-NEXT:    ge.netoutput [[M]], [[MT]], [[MA]], [[BM]], [[BMA]], [[G]], [[G2]], [[MD]] :
ge.graph @matmul {
  %a = ge.data {index = 0 : i64} : tensor<2x3xf16, #ge.layout<ND, FRACTAL_NZ>>
  %b = ge.data {index = 1 : i64} : tensor<3x5xf16, #ge.layout<ND, FRACTAL_NZ>>
  %bt = ge.data {index = 2 : i64} : tensor<5x3xf16>
  %bias = ge.data {index = 3 : i64} : tensor<5xf16>
  %m = ge.matmul %a, %b : (tensor<2x3xf16, #ge.layout<ND, FRACTAL_NZ>>, tensor<3x5xf16, #ge.layout<ND, FRACTAL_NZ>>) -> tensor<2x5xf16, #ge.layout<ND, FRACTAL_NZ>>
  %mt = ge.matmul %a, %bt, %bias {transpose_x2 = true} : (tensor<2x3xf16, #ge.layout<ND, FRACTAL_NZ>>, tensor<5x3xf16>, tensor<5xf16>) -> tensor<2x5xf16>
  %ma = ge.matmul %b, %bt {transpose_x1 = true, transpose_x2 = true} : (tensor<3x5xf16, #ge.layout<ND, FRACTAL_NZ>>, tensor<5x3xf16>) -> tensor<5x5xf16>
  %x = ge.data {index = 4 : i64} : tensor<4x1x2x3xf32>
  %y = ge.data {index = 5 : i64} : tensor<5x3x6xf32>
  %bm = ge.batch_matmul %x, %y : (tensor<4x1x2x3xf32>, tensor<5x3x6xf32>) -> tensor<4x5x2x6xf32>
  %bma = ge.batch_matmul %y, %y {adj_x1 = true, adj_x2 = false} : (tensor<5x3x6xf32>, tensor<5x3x6xf32>) -> tensor<5x6x6xf32>
  %ga = ge.data {index = 6 : i64} : tensor<3x2xf32>
  %gb = ge.data {index = 7 : i64} : tensor<4x3xf32>
  %gc = ge.const {value = dense<1.0> : tensor<4xf32>} : tensor<4xf32>
  %g = ge.gemm %ga, %gb, %gc {alpha = 0.5 : f32, beta = 2.0 : f32, trans_a = true, trans_b = true} : (tensor<3x2xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %g2 = ge.gemm %gb, %ga : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %d = ge.data {index = 8 : i64} : tensor<?x?xf32>
  %md = ge.matmul %d, %ga : (tensor<?x?xf32>, tensor<3x2xf32>) -> tensor<?x2xf32>
  ge.netoutput %m, %mt, %ma, %bm, %bma, %g, %g2, %md : tensor<2x5xf16, #ge.layout<ND, FRACTAL_NZ>>, tensor<2x5xf16>, tensor<5x5xf16>, tensor<4x5x2x6xf32>, tensor<5x6x6xf32>, tensor<2x4xf32>, tensor<4x2xf32>, tensor<?x2xf32>
}
