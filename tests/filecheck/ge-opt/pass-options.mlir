// Pass options are written kebab-case (as in --help) or snake_case (the field).
// RUN: ge-opt %s -p 'infer-origin-format{data-format=NHWC}' | filecheck %s
// RUN: ge-opt %s -p 'infer-origin-format{data_format=NHWC}' | filecheck %s
// RUN: ge-opt %s --infer-origin-format=data-format=NHWC | filecheck %s
// RUN: ge-opt %s --infer-origin-format=data_format=NHWC | filecheck %s
// RUN: ge-opt - --infer-origin-format=data-format=NHWC < %s | filecheck %s
// RUN: not ge-opt %s -p 'infer-origin-format{data-fromat=NHWC}' 2>&1 | filecheck %s --check-prefix=TYPO
// RUN: not ge-opt %s -p 'infer-orgin-format' 2>&1 | filecheck %s --check-prefix=PASS

// CHECK-LABEL: ge.graph @main
// CHECK-NEXT:    ge.data {index = 0 : i64} : tensor<1x8x8x3xf32, #ge.layout<NHWC>>
// TYPO: ge-opt: error: pass 'infer-origin-format' has no option 'data-fromat' (did you mean 'data-format'?) (options: data-format)
// PASS: ge-opt: error: unknown pass 'infer-orgin-format' (did you mean 'infer-origin-format'?)
ge.graph @main {
  %x = ge.data {index = 0 : i64} : tensor<1x8x8x3xf32>
  ge.netoutput %x : tensor<1x8x8x3xf32>
}
