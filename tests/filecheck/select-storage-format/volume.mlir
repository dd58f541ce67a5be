// RUN: ge-opt %s --infer-origin-format --refine-running-format --select-storage-format | filecheck %s

// A 3-D convolution takes GE's 3-D formats: NDC1HWC0 activations and a
// FRACTAL_Z_3D filter (its bias stays in origin format); the graph's input
// and output keep NCDHW.

// CHECK-LABEL: ge.graph @conv3d
// CHECK:         %y = ge.conv3d %x, %w, %b {{{.*}}input_layouts = [#ge.layout<NCDHW, NDC1HWC0>, #ge.layout<NCDHW, FRACTAL_Z_3D>, #ge.layout<NCDHW>]} : {{.*}} -> tensor<1x17x4x7x6xf16, #ge.layout<NCDHW, NDC1HWC0>>
// CHECK-NEXT:    ge.netoutput %y : {{.*}} {input_layouts = [#ge.layout<NCDHW>]}
ge.graph @conv3d {
  %x = ge.data {index = 0 : i64} : tensor<1x5x4x7x6xf16>
  %w = ge.data {index = 1 : i64} : tensor<17x5x3x2x3xf16>
  %b = ge.data {index = 2 : i64} : tensor<17xf16>
  %y = ge.conv3d %x, %w, %b {data_format = "NCDHW", pads = array<i64: 1, 1, 0, 1, 1, 1>} : (tensor<1x5x4x7x6xf16>, tensor<17x5x3x2x3xf16>, tensor<17xf16>) -> tensor<1x17x4x7x6xf16>
  ge.netoutput %y : tensor<1x17x4x7x6xf16>
}
