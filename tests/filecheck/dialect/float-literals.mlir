// RUN: ge-opt %s --split-input-file | ge-opt --split-input-file | filecheck %s
// RUN: ge-opt %s --split-input-file --print-op-generic | ge-opt --split-input-file | filecheck %s

// Float constants MLIR has no decimal spelling for (±inf, NaN) are the
// element's bits as a hexadecimal literal; they read back as those bits, and a
// constant is a splat only when every element has the same bits (-0.0 is not
// 0.0). Float attributes too (a NaN and an infinite clip bound; the default
// bounds, -inf and +inf, are elided like every default).

// CHECK-LABEL: ge.graph @specials
// CHECK-NEXT:    [[X:%.*]] = ge.data {index = 0 : i64, name = "x"} : tensor<3xf32>
// CHECK-NEXT:    [[F32:%.*]] = ge.const {value = dense<[0xFF800000, 0x7F800000, 0x7FC00000]> : tensor<3xf32>} : tensor<3xf32>
// CHECK-NEXT:    [[F16:%.*]] = ge.const {value = dense<[0xFC00, 0x7C00, 0xFE00]> : tensor<3xf16>} : tensor<3xf16>
// CHECK-NEXT:    [[BF16:%.*]] = ge.const {value = dense<[0xFF80, 0x7F80, 0x7FC0]> : tensor<3xbf16>} : tensor<3xbf16>
// CHECK-NEXT:    [[F64:%.*]] = ge.const {value = dense<[0xFFF0000000000000, 0x7FF0000000000000, 0x7FF8000000000000]> : tensor<3xf64>} : tensor<3xf64>
// CHECK-NEXT:    [[ZEROS:%.*]] = ge.const {value = dense<[0.000000e+00, -0.000000e+00, 0.000000e+00]> : tensor<3xf32>} : tensor<3xf32>
// CHECK-NEXT:    [[SPLAT:%.*]] = ge.const {value = dense<0xFF800000> : tensor<3xf32>} : tensor<3xf32>
// CHECK-NEXT:    [[MAX:%.*]] = ge.maximum [[X]], [[SPLAT]]
// CHECK-NEXT:    [[CLIP:%.*]] = ge.clip [[X]] {min = 0x7FC00000 : f32, max = 0xFF800000 : f32}
// CHECK-NEXT:    ge.netoutput [[F32]], [[F16]], [[BF16]], [[F64]], [[ZEROS]], [[MAX]], [[CLIP]]

ge.graph @specials {
  %x = ge.data {index = 0 : i64, name = "x"} : tensor<3xf32>
  %f32 = ge.const {value = dense<[0xFF800000, 0x7F800000, 0x7FC00000]> : tensor<3xf32>} : tensor<3xf32>
  %f16 = ge.const {value = dense<[0xFC00, 0x7C00, 0xFE00]> : tensor<3xf16>} : tensor<3xf16>
  %bf16 = ge.const {value = dense<[0xff80, 0x7f80, 0x7fc0]> : tensor<3xbf16>} : tensor<3xbf16>
  %f64 = ge.const {value = dense<[0xFFF0000000000000, 0x7FF0000000000000, 0x7FF8000000000000]> : tensor<3xf64>} : tensor<3xf64>
  %zeros = ge.const {value = dense<[0.0, -0.0, 0.0]> : tensor<3xf32>} : tensor<3xf32>
  %splat = ge.const {value = dense<[0xFF800000, 0xFF800000, 0xFF800000]> : tensor<3xf32>} : tensor<3xf32>
  %max = ge.maximum %x, %splat : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %clip = ge.clip %x {min = 0x7FC00000 : f32, max = 0xFF800000 : f32} : tensor<3xf32> -> tensor<3xf32>
  ge.netoutput %f32, %f16, %bf16, %f64, %zeros, %max, %clip : tensor<3xf32>, tensor<3xf16>, tensor<3xbf16>, tensor<3xf64>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
