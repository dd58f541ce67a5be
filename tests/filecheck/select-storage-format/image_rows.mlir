// RUN: ge-opt %s --split-input-file --select-storage-format | filecheck %s

// ViT's embeddings: the patch embedding's confusion transpose reads the
// convolution's NC1HWC0 result and writes FRACTAL_NZ tokens (whole channel
// vectors), the class token goes before them (a concat at row offset 1:
// whole fractal rows move) and the position embedding is added, all in
// the layout the first product wants.
// CHECK-LABEL: ge.graph @vit_embeddings
// CHECK:         %t = ge.confusion_transpose %c {perm = array<i64: 0, 2, 1>, shape = array<i64: 2, 17, 33>} : tensor<2x17x3x11xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<2x33x17xf32, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    %e = ge.concat %cls, %t {axis = 1 : i64, input_layouts = [#ge.layout<ND, FRACTAL_NZ>, #ge.layout<ND, FRACTAL_NZ>]} : (tensor<2x1x17xf32>, tensor<2x33x17xf32, #ge.layout<ND, FRACTAL_NZ>>) -> tensor<2x34x17xf32, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    %p = ge.add %e, %pos {{.*}} : (tensor<2x34x17xf32, #ge.layout<ND, FRACTAL_NZ>>, tensor<1x34x17xf32>) -> tensor<2x34x17xf32, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    %y = ge.batch_matmul %p, %v {{.*}} -> tensor<2x34x3xf32, #ge.layout<ND, FRACTAL_NZ>>
ge.graph @vit_embeddings {
  %x = ge.data {index = 0 : i64} : tensor<2x3x6x22xf32, #ge.layout<NCHW>>
  %w = ge.const {value = dense<0.5> : tensor<17x3x2x2xf32>} : tensor<17x3x2x2xf32, #ge.layout<NCHW>>
  %cls = ge.const {value = dense<0.125> : tensor<2x1x17xf32>} : tensor<2x1x17xf32>
  %pos = ge.const {value = dense<0.25> : tensor<1x34x17xf32>} : tensor<1x34x17xf32>
  %v = ge.const {value = dense<0.5> : tensor<17x3xf32>} : tensor<17x3xf32>
  %c = ge.conv2d %x, %w {strides = array<i64: 1, 1, 2, 2>, data_format = "NCHW"} : (tensor<2x3x6x22xf32, #ge.layout<NCHW>>, tensor<17x3x2x2xf32, #ge.layout<NCHW>>) -> tensor<2x17x3x11xf32, #ge.layout<NCHW>>
  %t = ge.confusion_transpose %c {perm = array<i64: 0, 2, 1>, shape = array<i64: 2, 17, 33>} : tensor<2x17x3x11xf32, #ge.layout<NCHW>> -> tensor<2x33x17xf32>
  %e = ge.concat %cls, %t {axis = 1 : i64} : (tensor<2x1x17xf32>, tensor<2x33x17xf32>) -> tensor<2x34x17xf32>
  %p = ge.add %e, %pos : (tensor<2x34x17xf32>, tensor<1x34x17xf32>) -> tensor<2x34x17xf32>
  %y = ge.batch_matmul %p, %v : (tensor<2x34x17xf32>, tensor<17x3xf32>) -> tensor<2x34x3xf32>
  ge.netoutput %y : tensor<2x34x3xf32>
}

// -----

// SVTR's mixing blocks end by folding the tokens back into an image for the
// next convolution: FRACTAL_NZ rows in, NC1HWC0 out.
// CHECK-LABEL: ge.graph @rows_to_image
// CHECK:         %t = ge.confusion_transpose %m {perm = array<i64: 0, 3, 1, 2>, shape = array<i64: 1, 1, 33, 17>} : tensor<1x33x17xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<1x17x1x33xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    %c = ge.conv2d %t, %w {{.*}} -> tensor<1x3x1x33xf32, #ge.layout<NCHW, NC1HWC0>>
ge.graph @rows_to_image {
  %x = ge.data {index = 0 : i64} : tensor<1x33x5xf32>
  %v = ge.const {value = dense<0.5> : tensor<5x17xf32>} : tensor<5x17xf32>
  %w = ge.const {value = dense<0.5> : tensor<3x17x1x1xf32>} : tensor<3x17x1x1xf32, #ge.layout<NCHW>>
  %m = ge.batch_matmul %x, %v : (tensor<1x33x5xf32>, tensor<5x17xf32>) -> tensor<1x33x17xf32>
  %t = ge.confusion_transpose %m {perm = array<i64: 0, 3, 1, 2>, shape = array<i64: 1, 1, 33, 17>} : tensor<1x33x17xf32> -> tensor<1x17x1x33xf32, #ge.layout<NCHW>>
  %c = ge.conv2d %t, %w {data_format = "NCHW"} : (tensor<1x17x1x33xf32, #ge.layout<NCHW>>, tensor<3x17x1x1xf32, #ge.layout<NCHW>>) -> tensor<1x3x1x33xf32, #ge.layout<NCHW>>
  ge.netoutput %c : tensor<1x3x1x33xf32, #ge.layout<NCHW>>
}

// -----

// A concat along the columns at an offset that is not a multiple of C0 (17
// columns first) would split fractal rows and move lanes: origin format.
// CHECK-LABEL: ge.graph @no_column_offset
// CHECK:         %e = ge.concat %a, %b {axis = 2 : i64, input_layouts = [#ge.layout<ND>, #ge.layout<ND>]} : (tensor<1x33x17xf32, #ge.layout<ND, FRACTAL_NZ>>, tensor<1x33x17xf32, #ge.layout<ND, FRACTAL_NZ>>) -> tensor<1x33x34xf32>
ge.graph @no_column_offset {
  %x = ge.data {index = 0 : i64} : tensor<1x33x5xf32>
  %v = ge.const {value = dense<0.5> : tensor<5x17xf32>} : tensor<5x17xf32>
  %a = ge.batch_matmul %x, %v : (tensor<1x33x5xf32>, tensor<5x17xf32>) -> tensor<1x33x17xf32>
  %b = ge.batch_matmul %x, %v : (tensor<1x33x5xf32>, tensor<5x17xf32>) -> tensor<1x33x17xf32>
  %e = ge.concat %a, %b {axis = 2 : i64} : (tensor<1x33x17xf32>, tensor<1x33x17xf32>) -> tensor<1x33x34xf32>
  ge.netoutput %e : tensor<1x33x34xf32>
}
