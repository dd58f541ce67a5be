// RUN: ge-opt %s --split-input-file --fuse-ops | filecheck %s

// MatMulEltwiseFusion: matmul, batch_matmul and gemm with their epilogues.

// Gemm (origin format only) with relu.
// CHECK-LABEL: ge.graph @gemm_relu
// CHECK:         %[[Y:.*]] = ge.fused %a, %b, %c {fusion_rule = "MatMulEltwiseFusion"}
// CHECK:           ge.gemm
// CHECK-NEXT:      ge.relu
// CHECK-NEXT:      ge.netoutput
// CHECK:         ge.netoutput %[[Y]]
ge.graph @gemm_relu {
  %a = ge.data {index = 0 : i64} : tensor<3x17xf32>
  %b = ge.const {value = dense<0.125> : tensor<33x17xf32>} : tensor<33x17xf32>
  %c = ge.const {value = dense<-0.5> : tensor<33xf32>} : tensor<33xf32>
  %g = ge.gemm %a, %b, %c {trans_b = true, alpha = 2.0 : f32} : (tensor<3x17xf32>, tensor<33x17xf32>, tensor<33xf32>) -> tensor<3x33xf32>
  %r = ge.relu %g : tensor<3x33xf32> -> tensor<3x33xf32>
  ge.netoutput %r : tensor<3x33xf32>
}

// -----

// Matmul on FRACTAL_NZ with a residual add and a sigmoid, all in FRACTAL_NZ.
// CHECK-LABEL: ge.graph @matmul_nz_add_sigmoid
// CHECK:         ge.fused %x, %w, %r {fusion_rule = "MatMulEltwiseFusion"}
// CHECK:           ge.matmul
// CHECK-NEXT:      ge.add
// CHECK-NEXT:      ge.sigmoid
ge.graph @matmul_nz_add_sigmoid {
  %x = ge.data {index = 0 : i64} : tensor<17x33xf32, #ge.layout<ND, FRACTAL_NZ>>
  %r = ge.data {index = 1 : i64} : tensor<17x20xf32, #ge.layout<ND, FRACTAL_NZ>>
  %w = ge.const {value = #ge.external<"w">} : tensor<33x20xf32, #ge.layout<ND, FRACTAL_NZ>>
  %m = ge.matmul %x, %w : (tensor<17x33xf32, #ge.layout<ND, FRACTAL_NZ>>, tensor<33x20xf32, #ge.layout<ND, FRACTAL_NZ>>) -> tensor<17x20xf32, #ge.layout<ND, FRACTAL_NZ>>
  %s = ge.add %m, %r : (tensor<17x20xf32, #ge.layout<ND, FRACTAL_NZ>>, tensor<17x20xf32, #ge.layout<ND, FRACTAL_NZ>>) -> tensor<17x20xf32, #ge.layout<ND, FRACTAL_NZ>>
  %y = ge.sigmoid %s : tensor<17x20xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<17x20xf32, #ge.layout<ND, FRACTAL_NZ>>
  ge.netoutput %y : tensor<17x20xf32, #ge.layout<ND, FRACTAL_NZ>>
}

// -----

// Batched matmul with a scale by a constant (float16).
// CHECK-LABEL: ge.graph @batch_matmul_scale_f16
// CHECK:         ge.fused %x, %y, %s {fusion_rule = "MatMulEltwiseFusion"}
// CHECK:           ge.batch_matmul
// CHECK-NEXT:      ge.mul
ge.graph @batch_matmul_scale_f16 {
  %x = ge.data {index = 0 : i64} : tensor<2x3x5xf16>
  %y = ge.data {index = 1 : i64} : tensor<2x5x7xf16>
  %s = ge.const {value = dense<0.5> : tensor<1xf16>} : tensor<1xf16>
  %m = ge.batch_matmul %x, %y : (tensor<2x3x5xf16>, tensor<2x5x7xf16>) -> tensor<2x3x7xf16>
  %z = ge.mul %m, %s : (tensor<2x3x7xf16>, tensor<1xf16>) -> tensor<2x3x7xf16>
  ge.netoutput %z : tensor<2x3x7xf16>
}

// -----

// The matmul's tile is FRACTAL_NZ, the relu stores ND: no group.
// CHECK-LABEL: ge.graph @no_fuse_matmul_format_mismatch
// CHECK-NOT:     ge.fused
ge.graph @no_fuse_matmul_format_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<17x33xf32, #ge.layout<ND, FRACTAL_NZ>>
  %w = ge.const {value = #ge.external<"w">} : tensor<33x20xf32, #ge.layout<ND, FRACTAL_NZ>>
  %m = ge.matmul %x, %w : (tensor<17x33xf32, #ge.layout<ND, FRACTAL_NZ>>, tensor<33x20xf32, #ge.layout<ND, FRACTAL_NZ>>) -> tensor<17x20xf32, #ge.layout<ND, FRACTAL_NZ>>
  %y = ge.relu %m : tensor<17x20xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<17x20xf32>
  ge.netoutput %y : tensor<17x20xf32>
}

// -----

// Gemm's kernels are origin-format only (its op info fusion formats): a gemm
// whose result is stored as FRACTAL_NZ does not head a group.
// CHECK-LABEL: ge.graph @no_fuse_gemm_in_nz
// CHECK-NOT:     ge.fused
ge.graph @no_fuse_gemm_in_nz {
  %a = ge.data {index = 0 : i64} : tensor<16x16xf32>
  %b = ge.data {index = 1 : i64} : tensor<16x16xf32>
  %g = ge.gemm %a, %b : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32, #ge.layout<ND, FRACTAL_NZ>>
  %r = ge.relu %g : tensor<16x16xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<16x16xf32, #ge.layout<ND, FRACTAL_NZ>>
  ge.netoutput %r : tensor<16x16xf32, #ge.layout<ND, FRACTAL_NZ>>
}
