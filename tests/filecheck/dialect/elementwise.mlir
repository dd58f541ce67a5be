// RUN: ge-opt %s --split-input-file | ge-opt --split-input-file | filecheck %s
// RUN: ge-opt %s --split-input-file --print-op-generic | ge-opt --split-input-file | filecheck %s

// Elementwise ops: unary (with optional attributes), binary with NumPy
// broadcasting, prelu and add_n.

// CHECK-LABEL: ge.graph @unary
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[U0:%.*]] = ge.relu [[X]] : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[U1:%.*]] = ge.sigmoid [[U0]] : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[U2:%.*]] = ge.tanh [[U1]] : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[U3:%.*]] = ge.softplus [[U2]] : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[U4:%.*]] = ge.neg [[U3]] : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[U5:%.*]] = ge.abs [[U4]] : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[U6:%.*]] = ge.exp [[U5]] : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[U7:%.*]] = ge.sqrt [[U6]] : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[U8:%.*]] = ge.log [[U7]] : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[U9:%.*]] = ge.reciprocal [[U8]] : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[U10:%.*]] = ge.identity [[U9]] : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[E0:%.*]] = ge.leaky_relu [[U10]] {alpha = 2.000000e-01 : f32} : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[E1:%.*]] = ge.leaky_relu [[E0]] : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[E2:%.*]] = ge.elu [[E1]] {alpha = 5.000000e-01 : f32} : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[E3:%.*]] = ge.selu [[E2]] {alpha = 1.500000e+00 : f32, gamma = 1.000000e+00 : f32} : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[E4:%.*]] = ge.clip [[E3]] {min = 0.000000e+00 : f32, max = 6.000000e+00 : f32} : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[E5:%.*]] = ge.clip [[E4]] {max = 1.000000e+00 : f32} : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    ge.netoutput [[E5]] : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
ge.graph @unary {
  %x = ge.data {index = 0 : i64} : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %u0 = ge.relu %x : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %u1 = ge.sigmoid %u0 : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %u2 = ge.tanh %u1 : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %u3 = ge.softplus %u2 : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %u4 = ge.neg %u3 : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %u5 = ge.abs %u4 : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %u6 = ge.exp %u5 : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %u7 = ge.sqrt %u6 : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %u8 = ge.log %u7 : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %u9 = ge.reciprocal %u8 : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %u10 = ge.identity %u9 : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %e0 = ge.leaky_relu %u10 {alpha = 2.000000e-01 : f32} : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %e1 = ge.leaky_relu %e0 : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %e2 = ge.elu %e1 {alpha = 5.000000e-01 : f32} : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %e3 = ge.selu %e2 {alpha = 1.500000e+00 : f32, gamma = 1.000000e+00 : f32} : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %e4 = ge.clip %e3 {min = 0.000000e+00 : f32, max = 6.000000e+00 : f32} : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %e5 = ge.clip %e4 {max = 1.000000e+00 : f32} : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %e5 : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// CHECK-LABEL: ge.graph @binary
// CHECK:         [[A:%.*]] = ge.data {index = 0 : i64} : tensor<4x1x3xf32>
// CHECK-NEXT:    [[B:%.*]] = ge.data {index = 1 : i64} : tensor<2x1xf32>
// CHECK-NEXT:    [[R0:%.*]] = ge.add [[A]], [[B]] : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    [[R1:%.*]] = ge.sub [[A]], [[B]] : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    [[R2:%.*]] = ge.mul [[A]], [[B]] : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    [[R3:%.*]] = ge.div [[A]], [[B]] : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    [[R4:%.*]] = ge.pow [[A]], [[B]] : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    [[R5:%.*]] = ge.maximum [[A]], [[B]] : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    [[R6:%.*]] = ge.minimum [[A]], [[B]] : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    [[S:%.*]] = ge.add_n [[R0]], [[R1]], [[R2]] : (tensor<4x2x3xf32>, tensor<4x2x3xf32>, tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    [[S1:%.*]] = ge.add_n [[S]] : (tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    [[W:%.*]] = ge.const {value = dense<2.500000e-01> : tensor<3xf32>} : tensor<3xf32>
// CHECK-NEXT:    [[P:%.*]] = ge.prelu [[S1]], [[W]] : (tensor<4x2x3xf32>, tensor<3xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    [[D:%.*]] = ge.data {index = 2 : i64} : tensor<?x3xf32>
// CHECK-NEXT:    [[Q:%.*]] = ge.mul [[P]], [[D]] : (tensor<4x2x3xf32>, tensor<?x3xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    [[I:%.*]] = ge.data {index = 3 : i64} : tensor<i32>
// CHECK-NEXT:    [[II:%.*]] = ge.maximum [[I]], [[I]] : (tensor<i32>, tensor<i32>) -> tensor<i32>
// CHECK-NEXT:    ge.netoutput [[Q]], [[II]] : tensor<4x2x3xf32>, tensor<i32>
ge.graph @binary {
  %a = ge.data {index = 0 : i64} : tensor<4x1x3xf32>
  %b = ge.data {index = 1 : i64} : tensor<2x1xf32>
  %r0 = ge.add %a, %b : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<4x2x3xf32>
  %r1 = ge.sub %a, %b : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<4x2x3xf32>
  %r2 = ge.mul %a, %b : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<4x2x3xf32>
  %r3 = ge.div %a, %b : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<4x2x3xf32>
  %r4 = ge.pow %a, %b : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<4x2x3xf32>
  %r5 = ge.maximum %a, %b : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<4x2x3xf32>
  %r6 = ge.minimum %a, %b : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<4x2x3xf32>
  %s = ge.add_n %r0, %r1, %r2 : (tensor<4x2x3xf32>, tensor<4x2x3xf32>, tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
  %s1 = ge.add_n %s : (tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
  %w = ge.const {value = dense<2.500000e-01> : tensor<3xf32>} : tensor<3xf32>
  %p = ge.prelu %s1, %w : (tensor<4x2x3xf32>, tensor<3xf32>) -> tensor<4x2x3xf32>
  %d = ge.data {index = 2 : i64} : tensor<?x3xf32>
  %q = ge.mul %p, %d : (tensor<4x2x3xf32>, tensor<?x3xf32>) -> tensor<4x2x3xf32>
  %i = ge.data {index = 3 : i64} : tensor<i32>
  %ii = ge.maximum %i, %i : (tensor<i32>, tensor<i32>) -> tensor<i32>
  ge.netoutput %q, %ii : tensor<4x2x3xf32>, tensor<i32>
}

// -----

// HardSwish: x * max(0, min(1, x / 6 + 1 / 2)); no attributes.

// CHECK-LABEL: ge.graph @hard_swish
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<1x17x3x3xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    [[Y:%.*]] = ge.hard_swish [[X]] : tensor<1x17x3x3xf32, #ge.layout<NCHW>> -> tensor<1x17x3x3xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    ge.netoutput [[Y]] : tensor<1x17x3x3xf32, #ge.layout<NCHW>>
ge.graph @hard_swish {
  %x = ge.data {index = 0 : i64} : tensor<1x17x3x3xf32, #ge.layout<NCHW>>
  %y = ge.hard_swish %x : tensor<1x17x3x3xf32, #ge.layout<NCHW>> -> tensor<1x17x3x3xf32, #ge.layout<NCHW>>
  ge.netoutput %y : tensor<1x17x3x3xf32, #ge.layout<NCHW>>
}

// -----

// Unary math and activations of ONNX: one op each, attributes with defaults.

// CHECK-LABEL: ge.graph @math
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<2x17xf32>
// CHECK-NEXT:    [[M0:%.*]] = ge.erf [[X]] : tensor<2x17xf32> -> tensor<2x17xf32>
// CHECK-NEXT:    [[M1:%.*]] = ge.sin [[M0]] : tensor<2x17xf32> -> tensor<2x17xf32>
// CHECK-NEXT:    [[M2:%.*]] = ge.cos [[M1]] : tensor<2x17xf32> -> tensor<2x17xf32>
// CHECK-NEXT:    [[M3:%.*]] = ge.tan [[M2]] : tensor<2x17xf32> -> tensor<2x17xf32>
// CHECK-NEXT:    [[M4:%.*]] = ge.asin [[M3]] : tensor<2x17xf32> -> tensor<2x17xf32>
// CHECK-NEXT:    [[M5:%.*]] = ge.acos [[M4]] : tensor<2x17xf32> -> tensor<2x17xf32>
// CHECK-NEXT:    [[M6:%.*]] = ge.atan [[M5]] : tensor<2x17xf32> -> tensor<2x17xf32>
// CHECK-NEXT:    [[M7:%.*]] = ge.sinh [[M6]] : tensor<2x17xf32> -> tensor<2x17xf32>
// CHECK-NEXT:    [[M8:%.*]] = ge.cosh [[M7]] : tensor<2x17xf32> -> tensor<2x17xf32>
// CHECK-NEXT:    [[M9:%.*]] = ge.asinh [[M8]] : tensor<2x17xf32> -> tensor<2x17xf32>
// CHECK-NEXT:    [[M10:%.*]] = ge.acosh [[M9]] : tensor<2x17xf32> -> tensor<2x17xf32>
// CHECK-NEXT:    [[M11:%.*]] = ge.atanh [[M10]] : tensor<2x17xf32> -> tensor<2x17xf32>
// CHECK-NEXT:    [[M12:%.*]] = ge.ceil [[M11]] : tensor<2x17xf32> -> tensor<2x17xf32>
// CHECK-NEXT:    [[M13:%.*]] = ge.floor [[M12]] : tensor<2x17xf32> -> tensor<2x17xf32>
// CHECK-NEXT:    [[M14:%.*]] = ge.round [[M13]] : tensor<2x17xf32> -> tensor<2x17xf32>
// CHECK-NEXT:    [[M15:%.*]] = ge.sign [[M14]] : tensor<2x17xf32> -> tensor<2x17xf32>
// CHECK-NEXT:    [[M16:%.*]] = ge.mish [[M15]] : tensor<2x17xf32> -> tensor<2x17xf32>
// CHECK-NEXT:    [[A0:%.*]] = ge.gelu [[M16]] {approximate = "tanh"} : tensor<2x17xf32> -> tensor<2x17xf32>
// CHECK-NEXT:    [[A1:%.*]] = ge.gelu [[A0]] : tensor<2x17xf32> -> tensor<2x17xf32>
// CHECK-NEXT:    [[A2:%.*]] = ge.swish [[A1]] {alpha = 2.000000e+00 : f32} : tensor<2x17xf32> -> tensor<2x17xf32>
// CHECK-NEXT:    [[A3:%.*]] = ge.celu [[A2]] {alpha = 5.000000e-01 : f32} : tensor<2x17xf32> -> tensor<2x17xf32>
// CHECK-NEXT:    [[A4:%.*]] = ge.thresholded_relu [[A3]] : tensor<2x17xf32> -> tensor<2x17xf32>
// CHECK-NEXT:    [[A5:%.*]] = ge.shrink [[A4]] {bias = 1.000000e+00 : f32, lambd = 2.000000e+00 : f32} : tensor<2x17xf32> -> tensor<2x17xf32>
// CHECK-NEXT:    [[MOD:%.*]] = ge.mod [[A5]], [[X]] {fmod = 1 : i64} : (tensor<2x17xf32>, tensor<2x17xf32>) -> tensor<2x17xf32>
// CHECK-NEXT:    ge.netoutput [[MOD]] : tensor<2x17xf32>
ge.graph @math {
  %x = ge.data {index = 0 : i64} : tensor<2x17xf32>
  %m0 = ge.erf %x : tensor<2x17xf32> -> tensor<2x17xf32>
  %m1 = ge.sin %m0 : tensor<2x17xf32> -> tensor<2x17xf32>
  %m2 = ge.cos %m1 : tensor<2x17xf32> -> tensor<2x17xf32>
  %m3 = ge.tan %m2 : tensor<2x17xf32> -> tensor<2x17xf32>
  %m4 = ge.asin %m3 : tensor<2x17xf32> -> tensor<2x17xf32>
  %m5 = ge.acos %m4 : tensor<2x17xf32> -> tensor<2x17xf32>
  %m6 = ge.atan %m5 : tensor<2x17xf32> -> tensor<2x17xf32>
  %m7 = ge.sinh %m6 : tensor<2x17xf32> -> tensor<2x17xf32>
  %m8 = ge.cosh %m7 : tensor<2x17xf32> -> tensor<2x17xf32>
  %m9 = ge.asinh %m8 : tensor<2x17xf32> -> tensor<2x17xf32>
  %m10 = ge.acosh %m9 : tensor<2x17xf32> -> tensor<2x17xf32>
  %m11 = ge.atanh %m10 : tensor<2x17xf32> -> tensor<2x17xf32>
  %m12 = ge.ceil %m11 : tensor<2x17xf32> -> tensor<2x17xf32>
  %m13 = ge.floor %m12 : tensor<2x17xf32> -> tensor<2x17xf32>
  %m14 = ge.round %m13 : tensor<2x17xf32> -> tensor<2x17xf32>
  %m15 = ge.sign %m14 : tensor<2x17xf32> -> tensor<2x17xf32>
  %m16 = ge.mish %m15 : tensor<2x17xf32> -> tensor<2x17xf32>
  %a0 = ge.gelu %m16 {approximate = "tanh"} : tensor<2x17xf32> -> tensor<2x17xf32>
  %a1 = ge.gelu %a0 : tensor<2x17xf32> -> tensor<2x17xf32>
  %a2 = ge.swish %a1 {alpha = 2.000000e+00 : f32} : tensor<2x17xf32> -> tensor<2x17xf32>
  %a3 = ge.celu %a2 {alpha = 5.000000e-01 : f32} : tensor<2x17xf32> -> tensor<2x17xf32>
  %a4 = ge.thresholded_relu %a3 : tensor<2x17xf32> -> tensor<2x17xf32>
  %a5 = ge.shrink %a4 {bias = 1.000000e+00 : f32, lambd = 2.000000e+00 : f32} : tensor<2x17xf32> -> tensor<2x17xf32>
  %mod = ge.mod %a5, %x {fmod = 1 : i64} : (tensor<2x17xf32>, tensor<2x17xf32>) -> tensor<2x17xf32>
  ge.netoutput %mod : tensor<2x17xf32>
}

// -----

// TensorFlow's Relu6 and Rsqrt (unary) and SquaredDifference (broadcasting).

// CHECK-LABEL: ge.graph @tensorflow_elementwise
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<1x17x3x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    [[R6:%.*]] = ge.relu6 [[X]] : tensor<1x17x3x3xf32, #ge.layout<NHWC>> -> tensor<1x17x3x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    [[RS:%.*]] = ge.rsqrt [[R6]] : tensor<1x17x3x3xf32, #ge.layout<NHWC>> -> tensor<1x17x3x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    [[C:%.*]] = ge.data {index = 1 : i64} : tensor<3xf32>
// CHECK-NEXT:    [[SD:%.*]] = ge.squared_difference [[RS]], [[C]] : (tensor<1x17x3x3xf32, #ge.layout<NHWC>>, tensor<3xf32>) -> tensor<1x17x3x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    ge.netoutput [[SD]]
ge.graph @tensorflow_elementwise {
  %x = ge.data {index = 0 : i64} : tensor<1x17x3x3xf32, #ge.layout<NHWC>>
  %r6 = ge.relu6 %x : tensor<1x17x3x3xf32, #ge.layout<NHWC>> -> tensor<1x17x3x3xf32, #ge.layout<NHWC>>
  %rs = ge.rsqrt %r6 : tensor<1x17x3x3xf32, #ge.layout<NHWC>> -> tensor<1x17x3x3xf32, #ge.layout<NHWC>>
  %c = ge.data {index = 1 : i64} : tensor<3xf32>
  %sd = ge.squared_difference %rs, %c : (tensor<1x17x3x3xf32, #ge.layout<NHWC>>, tensor<3xf32>) -> tensor<1x17x3x3xf32, #ge.layout<NHWC>>
  ge.netoutput %sd : tensor<1x17x3x3xf32, #ge.layout<NHWC>>
}
