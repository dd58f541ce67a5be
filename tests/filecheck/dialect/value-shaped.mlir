// RUN: ge-opt %s --split-input-file | ge-opt --split-input-file | filecheck %s
// RUN: ge-opt %s --split-input-file --print-op-generic | ge-opt --split-input-file | filecheck %s

// Ops whose result shape is an operand's value: `ge.fill`, `ge.broadcast_to`,
// `ge.dynamic_reshape`, `ge.range`.

// CHECK-LABEL: ge.graph @value_shaped
// CHECK-NEXT:    [[X:%.*]] = ge.data {index = 0 : i64} : tensor<?x1x20xf32>
// CHECK-NEXT:    [[S:%.*]] = ge.shape [[X]] : (tensor<?x1x20xf32>) -> tensor<3xi64>
// CHECK-NEXT:    [[Z:%.*]] = ge.const {value = dense<0.000000e+00> : tensor<f32>} : tensor<f32>
// CHECK-NEXT:    [[F:%.*]] = ge.fill [[S]], [[Z]] : (tensor<3xi64>, tensor<f32>) -> tensor<?x1x20xf32>
// CHECK-NEXT:    [[B:%.*]] = ge.broadcast_to [[X]], [[S]] : (tensor<?x1x20xf32>, tensor<3xi64>) -> tensor<?x?x20xf32>
// CHECK-NEXT:    [[R:%.*]] = ge.dynamic_reshape [[X]], [[S]] : (tensor<?x1x20xf32>, tensor<3xi64>) -> tensor<?x1x20xf32>
// CHECK-NEXT:    [[N:%.*]] = ge.size [[X]] : (tensor<?x1x20xf32>) -> tensor<i64>
// CHECK-NEXT:    [[O:%.*]] = ge.const {value = dense<1> : tensor<i64>} : tensor<i64>
// CHECK-NEXT:    [[G:%.*]] = ge.range [[O]], [[N]], [[O]] : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
// CHECK-NEXT:    ge.netoutput [[F]], [[B]], [[R]], [[G]]
ge.graph @value_shaped {
  %x = ge.data {index = 0 : i64} : tensor<?x1x20xf32>
  %s = ge.shape %x : (tensor<?x1x20xf32>) -> tensor<3xi64>
  %z = ge.const {value = dense<0.0> : tensor<f32>} : tensor<f32>
  %f = ge.fill %s, %z : (tensor<3xi64>, tensor<f32>) -> tensor<?x1x20xf32>
  %b = ge.broadcast_to %x, %s : (tensor<?x1x20xf32>, tensor<3xi64>) -> tensor<?x?x20xf32>
  %r = ge.dynamic_reshape %x, %s : (tensor<?x1x20xf32>, tensor<3xi64>) -> tensor<?x1x20xf32>
  %n = ge.size %x : (tensor<?x1x20xf32>) -> tensor<i64>
  %o = ge.const {value = dense<1> : tensor<i64>} : tensor<i64>
  %g = ge.range %o, %n, %o : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  ge.netoutput %f, %b, %r, %g : tensor<?x1x20xf32>, tensor<?x?x20xf32>, tensor<?x1x20xf32>, tensor<?xi64>
}
