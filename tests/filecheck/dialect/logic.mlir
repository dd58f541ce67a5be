// RUN: ge-opt %s --split-input-file | ge-opt --split-input-file | filecheck %s
// RUN: ge-opt %s --split-input-file --print-op-generic | ge-opt --split-input-file | filecheck %s

// Comparisons give bools from operands of one dtype (broadcast), logic and
// bit ops keep their dtype, select broadcasts all three operands.

// CHECK-LABEL: ge.graph @compare_and_select
// CHECK:         [[A:%.*]] = ge.data {index = 0 : i64} : tensor<3x17xf32>
// CHECK-NEXT:    [[B:%.*]] = ge.data {index = 1 : i64} : tensor<17xf32>
// CHECK-NEXT:    [[LT:%.*]] = ge.less [[A]], [[B]] : (tensor<3x17xf32>, tensor<17xf32>) -> tensor<3x17xi1>
// CHECK-NEXT:    [[EQ:%.*]] = ge.equal [[A]], [[B]] : (tensor<3x17xf32>, tensor<17xf32>) -> tensor<3x17xi1>
// CHECK-NEXT:    [[NE:%.*]] = ge.not_equal [[A]], [[B]] : (tensor<3x17xf32>, tensor<17xf32>) -> tensor<3x17xi1>
// CHECK-NEXT:    [[LE:%.*]] = ge.less_equal [[A]], [[B]] : (tensor<3x17xf32>, tensor<17xf32>) -> tensor<3x17xi1>
// CHECK-NEXT:    [[GT:%.*]] = ge.greater [[A]], [[B]] : (tensor<3x17xf32>, tensor<17xf32>) -> tensor<3x17xi1>
// CHECK-NEXT:    [[GE:%.*]] = ge.greater_equal [[A]], [[B]] : (tensor<3x17xf32>, tensor<17xf32>) -> tensor<3x17xi1>
// CHECK-NEXT:    [[AND:%.*]] = ge.logical_and [[LT]], [[EQ]] : (tensor<3x17xi1>, tensor<3x17xi1>) -> tensor<3x17xi1>
// CHECK-NEXT:    [[OR:%.*]] = ge.logical_or [[AND]], [[NE]] : (tensor<3x17xi1>, tensor<3x17xi1>) -> tensor<3x17xi1>
// CHECK-NEXT:    [[XOR:%.*]] = ge.logical_xor [[OR]], [[LE]] : (tensor<3x17xi1>, tensor<3x17xi1>) -> tensor<3x17xi1>
// CHECK-NEXT:    [[NOT:%.*]] = ge.logical_not [[XOR]] : tensor<3x17xi1> -> tensor<3x17xi1>
// CHECK-NEXT:    [[NAN:%.*]] = ge.is_nan [[A]] : tensor<3x17xf32> -> tensor<3x17xi1>
// CHECK-NEXT:    [[INF:%.*]] = ge.is_inf [[A]] {detect_negative = 0 : i64} : tensor<3x17xf32> -> tensor<3x17xi1>
// CHECK-NEXT:    [[SEL:%.*]] = ge.select [[NOT]], [[A]], [[B]] : (tensor<3x17xi1>, tensor<3x17xf32>, tensor<17xf32>) -> tensor<3x17xf32>
// CHECK-NEXT:    ge.netoutput [[SEL]], [[GT]], [[GE]], [[NAN]], [[INF]]
ge.graph @compare_and_select {
  %a = ge.data {index = 0 : i64} : tensor<3x17xf32>
  %b = ge.data {index = 1 : i64} : tensor<17xf32>
  %lt = ge.less %a, %b : (tensor<3x17xf32>, tensor<17xf32>) -> tensor<3x17xi1>
  %eq = ge.equal %a, %b : (tensor<3x17xf32>, tensor<17xf32>) -> tensor<3x17xi1>
  %ne = ge.not_equal %a, %b : (tensor<3x17xf32>, tensor<17xf32>) -> tensor<3x17xi1>
  %le = ge.less_equal %a, %b : (tensor<3x17xf32>, tensor<17xf32>) -> tensor<3x17xi1>
  %gt = ge.greater %a, %b : (tensor<3x17xf32>, tensor<17xf32>) -> tensor<3x17xi1>
  %ge = ge.greater_equal %a, %b : (tensor<3x17xf32>, tensor<17xf32>) -> tensor<3x17xi1>
  %and = ge.logical_and %lt, %eq : (tensor<3x17xi1>, tensor<3x17xi1>) -> tensor<3x17xi1>
  %or = ge.logical_or %and, %ne : (tensor<3x17xi1>, tensor<3x17xi1>) -> tensor<3x17xi1>
  %xor = ge.logical_xor %or, %le : (tensor<3x17xi1>, tensor<3x17xi1>) -> tensor<3x17xi1>
  %not = ge.logical_not %xor : tensor<3x17xi1> -> tensor<3x17xi1>
  %nan = ge.is_nan %a : tensor<3x17xf32> -> tensor<3x17xi1>
  %inf = ge.is_inf %a {detect_negative = 0 : i64} : tensor<3x17xf32> -> tensor<3x17xi1>
  %sel = ge.select %not, %a, %b : (tensor<3x17xi1>, tensor<3x17xf32>, tensor<17xf32>) -> tensor<3x17xf32>
  ge.netoutput %sel, %gt, %ge, %nan, %inf : tensor<3x17xf32>, tensor<3x17xi1>, tensor<3x17xi1>, tensor<3x17xi1>, tensor<3x17xi1>
}

// -----

// CHECK-LABEL: ge.graph @bits
// CHECK:         [[AND:%.*]] = ge.bitwise_and %{{.*}}, %{{.*}} : (tensor<33xui8>, tensor<1xui8>) -> tensor<33xui8>
// CHECK-NEXT:    [[OR:%.*]] = ge.bitwise_or [[AND]], %{{.*}} : (tensor<33xui8>, tensor<1xui8>) -> tensor<33xui8>
// CHECK-NEXT:    [[XOR:%.*]] = ge.bitwise_xor [[OR]], %{{.*}} : (tensor<33xui8>, tensor<1xui8>) -> tensor<33xui8>
// CHECK-NEXT:    [[NOT:%.*]] = ge.bitwise_not [[XOR]] : tensor<33xui8> -> tensor<33xui8>
// CHECK-NEXT:    [[SHL:%.*]] = ge.left_shift [[NOT]], %{{.*}} : (tensor<33xui8>, tensor<1xui8>) -> tensor<33xui8>
// CHECK-NEXT:    [[SHR:%.*]] = ge.right_shift [[SHL]], %{{.*}} : (tensor<33xui8>, tensor<1xui8>) -> tensor<33xui8>
// CHECK-NEXT:    ge.netoutput [[SHR]]
ge.graph @bits {
  %a = ge.data {index = 0 : i64} : tensor<33xui8>
  %b = ge.data {index = 1 : i64} : tensor<1xui8>
  %and = ge.bitwise_and %a, %b : (tensor<33xui8>, tensor<1xui8>) -> tensor<33xui8>
  %or = ge.bitwise_or %and, %b : (tensor<33xui8>, tensor<1xui8>) -> tensor<33xui8>
  %xor = ge.bitwise_xor %or, %b : (tensor<33xui8>, tensor<1xui8>) -> tensor<33xui8>
  %not = ge.bitwise_not %xor : tensor<33xui8> -> tensor<33xui8>
  %shl = ge.left_shift %not, %b : (tensor<33xui8>, tensor<1xui8>) -> tensor<33xui8>
  %shr = ge.right_shift %shl, %b : (tensor<33xui8>, tensor<1xui8>) -> tensor<33xui8>
  ge.netoutput %shr : tensor<33xui8>
}

// -----

// Comparisons keep the operands' layout (a bool NC1HWC0 has C0 = 32).

// CHECK-LABEL: ge.graph @compare_5hd
// CHECK:         ge.greater %{{.*}}, %{{.*}} : (tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>) -> tensor<1x17x3x3xi1, #ge.layout<NCHW, NC1HWC0>>
ge.graph @compare_5hd {
  %a = ge.data {index = 0 : i64} : tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
  %b = ge.data {index = 1 : i64} : tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
  %g = ge.greater %a, %b : (tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>) -> tensor<1x17x3x3xi1, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %g : tensor<1x17x3x3xi1, #ge.layout<NCHW, NC1HWC0>>
}

// -----


// Comparisons and logic broadcast like the binary ops; the result is i1.
// Logic reads any dtype as truth values (non-zero is true).

// CHECK-LABEL: ge.graph @predicates
// CHECK:         [[A:%.*]] = ge.data {index = 0 : i64} : tensor<3x1x17xf32>
// CHECK-NEXT:    [[B:%.*]] = ge.data {index = 1 : i64} : tensor<5x1xf32>
// CHECK-NEXT:    [[EQ:%.*]] = ge.equal [[A]], [[B]] : (tensor<3x1x17xf32>, tensor<5x1xf32>) -> tensor<3x5x17xi1>
// CHECK-NEXT:    [[NE:%.*]] = ge.not_equal [[A]], [[B]] : (tensor<3x1x17xf32>, tensor<5x1xf32>) -> tensor<3x5x17xi1>
// CHECK-NEXT:    [[LT:%.*]] = ge.less [[A]], [[B]] : (tensor<3x1x17xf32>, tensor<5x1xf32>) -> tensor<3x5x17xi1>
// CHECK-NEXT:    [[LE:%.*]] = ge.less_equal [[A]], [[B]] : (tensor<3x1x17xf32>, tensor<5x1xf32>) -> tensor<3x5x17xi1>
// CHECK-NEXT:    [[GT:%.*]] = ge.greater [[A]], [[B]] : (tensor<3x1x17xf32>, tensor<5x1xf32>) -> tensor<3x5x17xi1>
// CHECK-NEXT:    [[GE:%.*]] = ge.greater_equal [[A]], [[B]] : (tensor<3x1x17xf32>, tensor<5x1xf32>) -> tensor<3x5x17xi1>
// CHECK-NEXT:    [[AND:%.*]] = ge.logical_and [[EQ]], [[NE]] : (tensor<3x5x17xi1>, tensor<3x5x17xi1>) -> tensor<3x5x17xi1>
// CHECK-NEXT:    [[OR:%.*]] = ge.logical_or [[LT]], [[LE]] : (tensor<3x5x17xi1>, tensor<3x5x17xi1>) -> tensor<3x5x17xi1>
// CHECK-NEXT:    [[XOR:%.*]] = ge.logical_xor [[GT]], [[GE]] : (tensor<3x5x17xi1>, tensor<3x5x17xi1>) -> tensor<3x5x17xi1>
// CHECK-NEXT:    [[TRUTH:%.*]] = ge.logical_and [[A]], [[B]] : (tensor<3x1x17xf32>, tensor<5x1xf32>) -> tensor<3x5x17xi1>
// CHECK-NEXT:    [[NOT:%.*]] = ge.logical_not [[A]] : tensor<3x1x17xf32> -> tensor<3x1x17xi1>
// CHECK-NEXT:    ge.netoutput [[AND]], [[OR]], [[XOR]], [[TRUTH]], [[NOT]]
ge.graph @predicates {
  %a = ge.data {index = 0 : i64} : tensor<3x1x17xf32>
  %b = ge.data {index = 1 : i64} : tensor<5x1xf32>
  %eq = ge.equal %a, %b : (tensor<3x1x17xf32>, tensor<5x1xf32>) -> tensor<3x5x17xi1>
  %ne = ge.not_equal %a, %b : (tensor<3x1x17xf32>, tensor<5x1xf32>) -> tensor<3x5x17xi1>
  %lt = ge.less %a, %b : (tensor<3x1x17xf32>, tensor<5x1xf32>) -> tensor<3x5x17xi1>
  %le = ge.less_equal %a, %b : (tensor<3x1x17xf32>, tensor<5x1xf32>) -> tensor<3x5x17xi1>
  %gt = ge.greater %a, %b : (tensor<3x1x17xf32>, tensor<5x1xf32>) -> tensor<3x5x17xi1>
  %ge = ge.greater_equal %a, %b : (tensor<3x1x17xf32>, tensor<5x1xf32>) -> tensor<3x5x17xi1>
  %and = ge.logical_and %eq, %ne : (tensor<3x5x17xi1>, tensor<3x5x17xi1>) -> tensor<3x5x17xi1>
  %or = ge.logical_or %lt, %le : (tensor<3x5x17xi1>, tensor<3x5x17xi1>) -> tensor<3x5x17xi1>
  %xor = ge.logical_xor %gt, %ge : (tensor<3x5x17xi1>, tensor<3x5x17xi1>) -> tensor<3x5x17xi1>
  %truth = ge.logical_and %a, %b : (tensor<3x1x17xf32>, tensor<5x1xf32>) -> tensor<3x5x17xi1>
  %not = ge.logical_not %a : tensor<3x1x17xf32> -> tensor<3x1x17xi1>
  ge.netoutput %and, %or, %xor, %truth, %not : tensor<3x5x17xi1>, tensor<3x5x17xi1>, tensor<3x5x17xi1>, tensor<3x5x17xi1>, tensor<3x1x17xi1>
}

// -----

// Select: x1 where the condition holds, else x2; all three broadcast.

// CHECK-LABEL: ge.graph @select
// CHECK:         [[C:%.*]] = ge.data {index = 0 : i64} : tensor<3x1x1x17xi1>
// CHECK-NEXT:    [[X:%.*]] = ge.data {index = 1 : i64} : tensor<3x4x17x17xf32>
// CHECK-NEXT:    [[Z:%.*]] = ge.const {{.*}} : tensor<f32>
// CHECK-NEXT:    [[Y:%.*]] = ge.select [[C]], [[X]], [[Z]] : (tensor<3x1x1x17xi1>, tensor<3x4x17x17xf32>, tensor<f32>) -> tensor<3x4x17x17xf32>
// CHECK-NEXT:    ge.netoutput [[Y]] : tensor<3x4x17x17xf32>
ge.graph @select {
  %c = ge.data {index = 0 : i64} : tensor<3x1x1x17xi1>
  %x = ge.data {index = 1 : i64} : tensor<3x4x17x17xf32>
  %z = ge.const {value = dense<0xFF800000> : tensor<f32>} : tensor<f32>
  %y = ge.select %c, %x, %z : (tensor<3x1x1x17xi1>, tensor<3x4x17x17xf32>, tensor<f32>) -> tensor<3x4x17x17xf32>
  ge.netoutput %y : tensor<3x4x17x17xf32>
}
