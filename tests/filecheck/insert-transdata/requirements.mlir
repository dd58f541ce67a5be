// RUN: ge-opt %s --split-input-file --insert-transdata | filecheck %s

// insert-transdata on its own: it materialises whatever `input_layouts`
// and `input_dtypes` ask for, and drops them.

// Dtype and layout gaps together (e.g. ATC's --output_type=FP16 with a 5HD
// output), in GE's order: fp32 -> fp16 casts first, so the TransData moves
// fp16 data; fp16 -> fp32 relayouts first. Constants are converted at
// compile time.
// CHECK-LABEL: ge.graph @cast_and_transdata_order
// CHECK-NEXT:    %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %[[C:.+]] = ge.cast %x {dst_type = f16} : tensor<1x3x4x4xf32, #ge.layout<NCHW>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    %[[T:.+]] = ge.transdata %[[C]] {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x4x4xf16, #ge.layout<NCHW>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    %y = ge.data {index = 1 : i64} : tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    %[[T2:.+]] = ge.transdata %y {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    %[[C2:.+]] = ge.cast %[[T2]] {dst_type = f32} : tensor<1x3x4x4xf16, #ge.layout<NCHW>> -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %[[K:.+]] = ge.const {value = dense<2.500000e-01> : tensor<2x2xf16>} : tensor<2x2xf16>
// CHECK-NEXT:    ge.netoutput %[[T]], %[[C2]], %[[K]] : tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<1x3x4x4xf32, #ge.layout<NCHW>>, tensor<2x2xf16>{{$}}
ge.graph @cast_and_transdata_order {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %y = ge.data {index = 1 : i64} : tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %k = ge.const {value = dense<0.25> : tensor<2x2xf32>} : tensor<2x2xf32>
  ge.netoutput %x, %y, %k : tensor<1x3x4x4xf32, #ge.layout<NCHW>>, tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<2x2xf32> {input_layouts = [#ge.layout<NCHW, NC1HWC0>, #ge.layout<NCHW>, #ge.layout<ND>], input_dtypes = [f16, f32, f16]}
}

// -----

// A user storage format on an input (refine-running-format) meets an
// origin-format consumer: one TransData, shared by both consumers.
// CHECK-LABEL: ge.graph @user_storage_input
// CHECK-NEXT:    %x = ge.data {{.*}} : tensor<16x16xf16, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    %[[T:.+]] = ge.transdata %x {src_format = #ge.format<FRACTAL_NZ>, dst_format = #ge.format<ND>}
// CHECK-NEXT:    %y = ge.softmax %[[T]]
// CHECK-NEXT:    ge.netoutput %y, %[[T]]
ge.graph @user_storage_input {
  %x = ge.data {index = 0 : i64} : tensor<16x16xf16, #ge.layout<ND, FRACTAL_NZ>>
  %y = ge.softmax %x {input_layouts = [#ge.layout<ND>]} : tensor<16x16xf16, #ge.layout<ND, FRACTAL_NZ>> -> tensor<16x16xf16>
  ge.netoutput %y, %x : tensor<16x16xf16>, tensor<16x16xf16, #ge.layout<ND, FRACTAL_NZ>> {input_layouts = [#ge.layout<ND>, #ge.layout<ND>]}
}
