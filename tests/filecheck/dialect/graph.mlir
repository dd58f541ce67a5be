// RUN: ge-opt %s --split-input-file | ge-opt --split-input-file | filecheck %s
// RUN: ge-opt %s --split-input-file --print-op-generic | ge-opt --split-input-file | filecheck %s

// Graph structure: inputs, constants, variables and the terminator.

// CHECK-LABEL: ge.graph @inputs
// CHECK-NEXT:    [[X:%.*]] = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    [[Y:%.*]] = ge.data {index = 1 : i64, storage_format = #ge.format<NC1HWC0>, storage_shape = array<i64: 1, 1, 8, 8, 16>} : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    [[Z:%.*]] = ge.data {index = 2 : i64, name = "z"} : tensor<?x16xf32>
// CHECK-NEXT:    ge.netoutput [[X]], [[Y]], [[Z]] : tensor<1x3x8x8xf32, #ge.layout<NCHW>>, tensor<1x3x8x8xf16, #ge.layout<NCHW>>, tensor<?x16xf32>
ge.graph @inputs {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32, #ge.layout<NCHW>>
  %y = ge.data {index = 1 : i64, storage_format = #ge.format<NC1HWC0>, storage_shape = array<i64: 1, 1, 8, 8, 16>} : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
  %z = ge.data {index = 2 : i64, name = "z"} : tensor<?x16xf32>
  ge.netoutput %x, %y, %z : tensor<1x3x8x8xf32, #ge.layout<NCHW>>, tensor<1x3x8x8xf16, #ge.layout<NCHW>>, tensor<?x16xf32>
}

// -----

// CHECK-LABEL: ge.graph @constants
// CHECK-NEXT:    [[S:%.*]] = ge.const {value = dense<1.500000e+00> : tensor<f32>} : tensor<f32>
// CHECK-NEXT:    [[V:%.*]] = ge.const {value = dense<[1, 2, 3]> : tensor<3xi32>} : tensor<3xi32>
// CHECK-NEXT:    [[W:%.*]] = ge.const {value = #ge.external<"conv1.weight">} : tensor<4x3x3x3xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    [[B:%.*]] = ge.const {value = dense<0.000000e+00> : tensor<1x1x1x1x16xf16>} : tensor<4xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[F:%.*]] = ge.const {value = dense<{{.*}}> : tensor<2x2xf32>} : tensor<2x2xf32>
// CHECK-NEXT:    ge.netoutput [[S]], [[V]], [[W]], [[B]], [[F]] :
ge.graph @constants {
  %s = ge.const {value = dense<1.5> : tensor<f32>} : tensor<f32>
  %v = ge.const {value = dense<[1, 2, 3]> : tensor<3xi32>} : tensor<3xi32>
  %w = ge.const {value = #ge.external<"conv1.weight">} : tensor<4x3x3x3xf16, #ge.layout<NCHW>>
  %b = ge.const {value = dense<0.0> : tensor<1x1x1x1x16xf16>} : tensor<4xf16, #ge.layout<NCHW, NC1HWC0>>
  %f = ge.const {value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>} : tensor<2x2xf32>
  ge.netoutput %s, %v, %w, %b, %f : tensor<f32>, tensor<3xi32>, tensor<4x3x3x3xf16, #ge.layout<NCHW>>, tensor<4xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<2x2xf32>
}

// -----

// CHECK-LABEL: ge.graph @variables
// CHECK-NEXT:    [[V:%.*]] = ge.variable {name = "step"} : tensor<i64>
// CHECK-NEXT:    ge.netoutput [[V]] : tensor<i64>
ge.graph @variables {
  %v = ge.variable {name = "step"} : tensor<i64>
  ge.netoutput %v : tensor<i64>
}

// -----

// Output storage requests, one #ge.format per output (ND keeps the origin).
// CHECK-LABEL: ge.graph @output_formats
// CHECK:         ge.netoutput %{{.*}}, %{{.*}} : tensor<1x16x4x4xf16, #ge.layout<NCHW>>, tensor<2x3xf32> {storage_formats = [#ge.format<NC1HWC0>, #ge.format<ND>]}
ge.graph @output_formats {
  %x = ge.data {index = 0 : i64} : tensor<1x16x4x4xf16, #ge.layout<NCHW>>
  %y = ge.data {index = 1 : i64} : tensor<2x3xf32>
  ge.netoutput %x, %y : tensor<1x16x4x4xf16, #ge.layout<NCHW>>, tensor<2x3xf32> {storage_formats = [#ge.format<NC1HWC0>, #ge.format<ND>]}
}

// -----

// A graph without outputs, and several graphs in one module.
// CHECK-LABEL: ge.graph @no_outputs
// CHECK-NEXT:    ge.data
// CHECK-NEXT:    ge.netoutput{{$}}
// CHECK-LABEL: ge.graph @second attributes {ge.note = "kept"}
// CHECK-NEXT:    ge.netoutput{{$}}
ge.graph @no_outputs {
  %x = ge.data {index = 0 : i64} : tensor<2xf32>
  ge.netoutput
}
ge.graph @second attributes {ge.note = "kept"} {
  ge.netoutput
}

// -----

// Node names and module attributes survive.
// CHECK:       builtin.module attributes {ge.weights = "model.npz"}
// CHECK-LABEL: ge.graph @named
// CHECK-NEXT:    [[X:%.*]] = ge.data {index = 0 : i64, name = "input"} : tensor<2xf32>
// CHECK-NEXT:    [[Y:%.*]] = ge.relu [[X]] {name = "relu1"} : tensor<2xf32> -> tensor<2xf32>
// CHECK-NEXT:    ge.netoutput [[Y]] : tensor<2xf32>
builtin.module attributes {ge.weights = "model.npz"} {
  ge.graph @named {
    %x = ge.data {index = 0 : i64, name = "input"} : tensor<2xf32>
    %y = ge.relu %x {name = "relu1"} : tensor<2xf32> -> tensor<2xf32>
    ge.netoutput %y : tensor<2xf32>
  }
}
