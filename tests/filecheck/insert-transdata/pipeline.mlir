// RUN: ge-opt %s --infer-origin-format --refine-running-format --select-storage-format --insert-transdata | filecheck %s

// The whole format chain from plain ND types: infer-origin-format gives the
// NHWC conv its origin formats (the filter gets its own from the conv
// rule), then the conv runs in NC1HWC0 with a folded FRACTAL_Z filter, and
// the graph interface stays NHWC.
// CHECK-LABEL: ge.graph @nhwc_conv
// CHECK-NEXT:    %x = ge.data {index = 0 : i64} : tensor<1x6x6x3xf16, #ge.layout<NHWC>>
// CHECK-NEXT:    %[[IN:.+]] = ge.transdata %x {src_format = #ge.format<NHWC>, dst_format = #ge.format<NC1HWC0>} : tensor<1x6x6x3xf16, #ge.layout<NHWC>> -> tensor<1x6x6x3xf16, #ge.layout<NHWC, NC1HWC0>>
// CHECK-NEXT:    %[[W:.+]] = ge.const {{.*}} : tensor<4x3x3x3xf16, #ge.layout<{{[A-Z]+}}, FRACTAL_Z>>
// CHECK-NEXT:    %y = ge.conv2d %[[IN]], %[[W]] {data_format = "NHWC"} : {{.*}} -> tensor<1x4x4x4xf16, #ge.layout<NHWC, NC1HWC0>>
// CHECK-NEXT:    %r = ge.relu %y : {{.*}} -> tensor<1x4x4x4xf16, #ge.layout<NHWC, NC1HWC0>>
// CHECK-NEXT:    %[[OUT:.+]] = ge.transdata %r {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NHWC>}
// CHECK-NEXT:    ge.netoutput %[[OUT]] : tensor<1x4x4x4xf16, #ge.layout<NHWC>>
ge.graph @nhwc_conv {
  %x = ge.data {index = 0 : i64} : tensor<1x6x6x3xf16>
  %w = ge.const {value = dense<0.5> : tensor<4x3x3x3xf16>} : tensor<4x3x3x3xf16>
  %y = ge.conv2d %x, %w {data_format = "NHWC"} : (tensor<1x6x6x3xf16>, tensor<4x3x3x3xf16>) -> tensor<1x4x4x4xf16>
  %r = ge.relu %y : tensor<1x4x4x4xf16> -> tensor<1x4x4x4xf16>
  ge.netoutput %r : tensor<1x4x4x4xf16>
}
