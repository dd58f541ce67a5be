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

// -----

// The float8 and float4 types (MLIR's f8E4M3FN, f8E4M3FNUZ, f8E5M2,
// f8E5M2FNUZ, f8E8M0FNU, f4E2M1FN) and the sub-byte integers print and read
// back the same way: each type's NaN (0x7F in E4M3FN, 0x80 in the FNUZ types,
// 0xFF in E8M0FNU), E5M2's infinities, the largest finite values (448, 240,
// 57344, 6; E8M0FNU's 2^127) and -0.0 where the type has one. Decimals have
// six digits, more than these types hold, so they read back to the same bits.

// CHECK-LABEL: ge.graph @narrow_specials
// CHECK-NEXT:    ge.const {value = dense<[0xFF, 0x7F, 4.480000e+02, -4.480000e+02, -0.000000e+00, 1.953120e-03]> : tensor<6xf8E4M3FN>}
// CHECK-NEXT:    ge.const {value = dense<[0x80, 2.400000e+02, -2.400000e+02, 0.000000e+00, 9.765620e-04]> : tensor<5xf8E4M3FNUZ>}
// CHECK-NEXT:    ge.const {value = dense<[0xFC, 0x7C, 0x7E, 5.734400e+04, -0.000000e+00, 1.525880e-05]> : tensor<6xf8E5M2>}
// CHECK-NEXT:    ge.const {value = dense<[0x80, 5.734400e+04, -5.734400e+04, 7.629390e-06]> : tensor<4xf8E5M2FNUZ>}
// CHECK-NEXT:    ge.const {value = dense<[0xFF, 1.000000e+00, 5.877470e-39, 1.701410e+38]> : tensor<4xf8E8M0FNU>}
// CHECK-NEXT:    ge.const {value = dense<[6.000000e+00, -6.000000e+00, -0.000000e+00, 5.000000e-01]> : tensor<4xf4E2M1FN>}
// CHECK-NEXT:    ge.const {value = dense<[-2, 1, 0]> : tensor<3xi2>}
// CHECK-NEXT:    ge.const {value = dense<[3, 0]> : tensor<2xui2>}
// CHECK-NEXT:    ge.const {value = dense<[-8, 7]> : tensor<2xi4>}
ge.graph @narrow_specials {
  %e4m3fn = ge.const {value = dense<[0xFF, 0x7F, 448.0, -448.0, -0.0, 0.001953125]> : tensor<6xf8E4M3FN>} : tensor<6xf8E4M3FN>
  %e4m3fnuz = ge.const {value = dense<[0x80, 240.0, -240.0, 0.0, 0.0009765625]> : tensor<5xf8E4M3FNUZ>} : tensor<5xf8E4M3FNUZ>
  %e5m2 = ge.const {value = dense<[0xFC, 0x7C, 0x7E, 57344.0, -0.0, 0.0000152587890625]> : tensor<6xf8E5M2>} : tensor<6xf8E5M2>
  %e5m2fnuz = ge.const {value = dense<[0x80, 57344.0, -57344.0, 0.00000762939453125]> : tensor<4xf8E5M2FNUZ>} : tensor<4xf8E5M2FNUZ>
  %e8m0 = ge.const {value = dense<[0xFF, 1.0, 0x00, 0xFE]> : tensor<4xf8E8M0FNU>} : tensor<4xf8E8M0FNU>
  %e2m1 = ge.const {value = dense<[6.0, -6.0, -0.0, 0.5]> : tensor<4xf4E2M1FN>} : tensor<4xf4E2M1FN>
  %i2 = ge.const {value = dense<[-2, 1, 0]> : tensor<3xi2>} : tensor<3xi2>
  %ui2 = ge.const {value = dense<[3, 0]> : tensor<2xui2>} : tensor<2xui2>
  %i4 = ge.const {value = dense<[-8, 7]> : tensor<2xi4>} : tensor<2xi4>
  ge.netoutput %e4m3fn, %e4m3fnuz, %e5m2, %e5m2fnuz, %e8m0, %e2m1, %i2, %ui2, %i4 : tensor<6xf8E4M3FN>, tensor<5xf8E4M3FNUZ>, tensor<6xf8E5M2>, tensor<4xf8E5M2FNUZ>, tensor<4xf8E8M0FNU>, tensor<4xf4E2M1FN>, tensor<3xi2>, tensor<2xui2>, tensor<2xi4>
}
