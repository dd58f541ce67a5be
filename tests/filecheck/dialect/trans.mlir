// RUN: ge-opt %s --split-input-file | ge-opt --split-input-file | filecheck %s
// RUN: ge-opt %s --split-input-file --print-op-generic | ge-opt --split-input-file | filecheck %s

// Trans ops: relayout, dtype conversion and shape-only ops.

// CHECK-LABEL: ge.graph @transdata
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    [[A:%.*]] = ge.transdata [[X]] {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x8x8xf16, #ge.layout<NCHW>> -> tensor<1x3x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[B:%.*]] = ge.transdata [[A]] {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x3x8x8xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x8x8xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    [[W:%.*]] = ge.data {index = 1 : i64} : tensor<3x3x32x32xf16, #ge.layout<HWCN>>
// CHECK-NEXT:    [[WZ:%.*]] = ge.transdata [[W]] {src_format = #ge.format<HWCN>, dst_format = #ge.format<FRACTAL_Z>} : tensor<3x3x32x32xf16, #ge.layout<HWCN>> -> tensor<3x3x32x32xf16, #ge.layout<HWCN, FRACTAL_Z>>
// CHECK-NEXT:    [[G:%.*]] = ge.data {index = 2 : i64} : tensor<8x4x3x3xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    [[GZ:%.*]] = ge.transdata [[G]] {src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_Z>, groups = 2 : i64} : tensor<8x4x3x3xf16, #ge.layout<NCHW>> -> tensor<8x4x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
// CHECK-NEXT:    [[M:%.*]] = ge.data {index = 3 : i64} : tensor<2x40x24xf16>
// CHECK-NEXT:    [[MZ:%.*]] = ge.transdata [[M]] {src_format = #ge.format<ND>, dst_format = #ge.format<FRACTAL_NZ>} : tensor<2x40x24xf16> -> tensor<2x40x24xf16, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    [[MB:%.*]] = ge.transdata [[MZ]] {src_format = #ge.format<FRACTAL_NZ>, dst_format = #ge.format<ND>} : tensor<2x40x24xf16, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x40x24xf16>
// CHECK-NEXT:    [[H:%.*]] = ge.transdata [[X]] {src_format = #ge.format<NCHW>, dst_format = #ge.format<NHWC>} : tensor<1x3x8x8xf16, #ge.layout<NCHW>> -> tensor<1x3x8x8xf16, #ge.layout<NCHW, NHWC>>
// CHECK-NEXT:    ge.netoutput [[B]], [[WZ]], [[GZ]], [[MB]], [[H]] :
ge.graph @transdata {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
  %a = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x8x8xf16, #ge.layout<NCHW>> -> tensor<1x3x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
  %b = ge.transdata %a {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x3x8x8xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x8x8xf16, #ge.layout<NCHW>>
  %w = ge.data {index = 1 : i64} : tensor<3x3x32x32xf16, #ge.layout<HWCN>>
  %wz = ge.transdata %w {src_format = #ge.format<HWCN>, dst_format = #ge.format<FRACTAL_Z>} : tensor<3x3x32x32xf16, #ge.layout<HWCN>> -> tensor<3x3x32x32xf16, #ge.layout<HWCN, FRACTAL_Z>>
  %g = ge.data {index = 2 : i64} : tensor<8x4x3x3xf16, #ge.layout<NCHW>>
  %gz = ge.transdata %g {src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_Z>, groups = 2 : i64} : tensor<8x4x3x3xf16, #ge.layout<NCHW>> -> tensor<8x4x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
  %m = ge.data {index = 3 : i64} : tensor<2x40x24xf16>
  %mz = ge.transdata %m {src_format = #ge.format<ND>, dst_format = #ge.format<FRACTAL_NZ>} : tensor<2x40x24xf16> -> tensor<2x40x24xf16, #ge.layout<ND, FRACTAL_NZ>>
  %mb = ge.transdata %mz {src_format = #ge.format<FRACTAL_NZ>, dst_format = #ge.format<ND>} : tensor<2x40x24xf16, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x40x24xf16>
  %h = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NHWC>} : tensor<1x3x8x8xf16, #ge.layout<NCHW>> -> tensor<1x3x8x8xf16, #ge.layout<NCHW, NHWC>>
  ge.netoutput %b, %wz, %gz, %mb, %h : tensor<1x3x8x8xf16, #ge.layout<NCHW>>, tensor<3x3x32x32xf16, #ge.layout<HWCN, FRACTAL_Z>>, tensor<8x4x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>, tensor<2x40x24xf16>, tensor<1x3x8x8xf16, #ge.layout<NCHW, NHWC>>
}

// -----

// A TransData that absorbed a transpose (transpose-transdata-fusion) carries
// its perm and changes the origin format between formats naming the same
// axes; its origin shape is permuted accordingly.
// CHECK-LABEL: ge.graph @transdata_with_transpose
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<1x8x5x3xf16, #ge.layout<NHWC>>
// CHECK-NEXT:    [[Y:%.*]] = ge.transdata [[X]] {src_format = #ge.format<NHWC>, dst_format = #ge.format<NC1HWC0>, perm = array<i64: 0, 3, 1, 2>} : tensor<1x8x5x3xf16, #ge.layout<NHWC>> -> tensor<1x3x8x5xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    ge.netoutput [[Y]] : tensor<1x3x8x5xf16, #ge.layout<NCHW, NC1HWC0>>
ge.graph @transdata_with_transpose {
  %x = ge.data {index = 0 : i64} : tensor<1x8x5x3xf16, #ge.layout<NHWC>>
  %y = ge.transdata %x {src_format = #ge.format<NHWC>, dst_format = #ge.format<NC1HWC0>, perm = array<i64: 0, 3, 1, 2>} : tensor<1x8x5x3xf16, #ge.layout<NHWC>> -> tensor<1x3x8x5xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %y : tensor<1x3x8x5xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// CHECK-LABEL: ge.graph @cast
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<2x3xf32>
// CHECK-NEXT:    [[H:%.*]] = ge.cast [[X]] {dst_type = f16} : tensor<2x3xf32> -> tensor<2x3xf16>
// CHECK-NEXT:    [[I:%.*]] = ge.cast [[H]] {dst_type = i32} : tensor<2x3xf16> -> tensor<2x3xi32>
// CHECK-NEXT:    [[B:%.*]] = ge.cast [[I]] {dst_type = bf16} : tensor<2x3xi32> -> tensor<2x3xbf16>
// CHECK-NEXT:    [[U:%.*]] = ge.cast [[B]] {dst_type = ui8} : tensor<2x3xbf16> -> tensor<2x3xui8>
// CHECK-NEXT:    ge.netoutput [[U]] : tensor<2x3xui8>
ge.graph @cast {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %h = ge.cast %x {dst_type = f16} : tensor<2x3xf32> -> tensor<2x3xf16>
  %i = ge.cast %h {dst_type = i32} : tensor<2x3xf16> -> tensor<2x3xi32>
  %b = ge.cast %i {dst_type = bf16} : tensor<2x3xi32> -> tensor<2x3xbf16>
  %u = ge.cast %b {dst_type = ui8} : tensor<2x3xbf16> -> tensor<2x3xui8>
  ge.netoutput %u : tensor<2x3xui8>
}

// -----

// CHECK-LABEL: ge.graph @bitcast
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<2x3xf32>
// CHECK-NEXT:    [[U:%.*]] = ge.data {index = 1 : i64} : tensor<4xui16>
// CHECK-NEXT:    [[I:%.*]] = ge.bitcast [[X]] {dst_type = i32} : tensor<2x3xf32> -> tensor<2x3xi32>
// CHECK-NEXT:    [[F:%.*]] = ge.bitcast [[U]] {dst_type = f16} : tensor<4xui16> -> tensor<4xf16>
// CHECK-NEXT:    ge.netoutput [[I]], [[F]] : tensor<2x3xi32>, tensor<4xf16>
ge.graph @bitcast {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %h = ge.data {index = 1 : i64} : tensor<4xui16>
  %i = ge.bitcast %x {dst_type = i32} : tensor<2x3xf32> -> tensor<2x3xi32>
  %f = ge.bitcast %h {dst_type = f16} : tensor<4xui16> -> tensor<4xf16>
  ge.netoutput %i, %f : tensor<2x3xi32>, tensor<4xf16>
}

// -----

// CHECK-LABEL: ge.graph @reshapes
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<2x3x4xf32>
// CHECK-NEXT:    [[R:%.*]] = ge.reshape [[X]] {shape = array<i64: 0, -1>} : tensor<2x3x4xf32> -> tensor<2x12xf32>
// CHECK-NEXT:    [[R2:%.*]] = ge.reshape [[R]] : tensor<2x12xf32> -> tensor<24xf32>
// CHECK-NEXT:    [[F:%.*]] = ge.flatten [[X]] {axis = 2 : i64} : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK-NEXT:    [[F0:%.*]] = ge.flatten [[X]] {axis = 0 : i64} : tensor<2x3x4xf32> -> tensor<1x24xf32>
// CHECK-NEXT:    [[FD:%.*]] = ge.flatten [[X]] : tensor<2x3x4xf32> -> tensor<2x12xf32>
// CHECK-NEXT:    [[D:%.*]] = ge.data {index = 1 : i64} : tensor<?x3x4xf32>
// CHECK-NEXT:    [[RD:%.*]] = ge.reshape [[D]] {shape = array<i64: -1, 12>} : tensor<?x3x4xf32> -> tensor<?x12xf32>
// CHECK-NEXT:    ge.netoutput [[R2]], [[F]], [[F0]], [[FD]], [[RD]] :
ge.graph @reshapes {
  %x = ge.data {index = 0 : i64} : tensor<2x3x4xf32>
  %r = ge.reshape %x {shape = array<i64: 0, -1>} : tensor<2x3x4xf32> -> tensor<2x12xf32>
  %r2 = ge.reshape %r : tensor<2x12xf32> -> tensor<24xf32>
  %f = ge.flatten %x {axis = 2 : i64} : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %f0 = ge.flatten %x {axis = 0 : i64} : tensor<2x3x4xf32> -> tensor<1x24xf32>
  %fd = ge.flatten %x : tensor<2x3x4xf32> -> tensor<2x12xf32>
  %d = ge.data {index = 1 : i64} : tensor<?x3x4xf32>
  %rd = ge.reshape %d {shape = array<i64: -1, 12>} : tensor<?x3x4xf32> -> tensor<?x12xf32>
  ge.netoutput %r2, %f, %f0, %fd, %rd : tensor<24xf32>, tensor<6x4xf32>, tensor<1x24xf32>, tensor<2x12xf32>, tensor<?x12xf32>
}

// -----

// CHECK-LABEL: ge.graph @squeezes
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<1x3x1x4xf32>
// CHECK-NEXT:    [[S:%.*]] = ge.squeeze [[X]] {axes = array<i64: 0, -2>} : tensor<1x3x1x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT:    [[SA:%.*]] = ge.squeeze [[X]] : tensor<1x3x1x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT:    [[U:%.*]] = ge.unsqueeze [[S]] {axes = array<i64: 0, 3>} : tensor<3x4xf32> -> tensor<1x3x4x1xf32>
// CHECK-NEXT:    [[E:%.*]] = ge.expand_dims [[S]] {axis = -1 : i64} : tensor<3x4xf32> -> tensor<3x4x1xf32>
// CHECK-NEXT:    [[E0:%.*]] = ge.expand_dims [[S]] {axis = 0 : i64} : tensor<3x4xf32> -> tensor<1x3x4xf32>
// CHECK-NEXT:    ge.netoutput [[SA]], [[U]], [[E]], [[E0]] :
ge.graph @squeezes {
  %x = ge.data {index = 0 : i64} : tensor<1x3x1x4xf32>
  %s = ge.squeeze %x {axes = array<i64: 0, -2>} : tensor<1x3x1x4xf32> -> tensor<3x4xf32>
  %sa = ge.squeeze %x : tensor<1x3x1x4xf32> -> tensor<3x4xf32>
  %u = ge.unsqueeze %s {axes = array<i64: 0, 3>} : tensor<3x4xf32> -> tensor<1x3x4x1xf32>
  %e = ge.expand_dims %s {axis = -1 : i64} : tensor<3x4xf32> -> tensor<3x4x1xf32>
  %e0 = ge.expand_dims %s {axis = 0 : i64} : tensor<3x4xf32> -> tensor<1x3x4xf32>
  ge.netoutput %sa, %u, %e, %e0 : tensor<3x4xf32>, tensor<1x3x4x1xf32>, tensor<3x4x1xf32>, tensor<1x3x4xf32>
}

// -----

// CHECK-LABEL: ge.graph @permutations
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<1x3x8x5xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    [[T:%.*]] = ge.transpose [[X]] {perm = array<i64: 0, 2, 3, 1>} : tensor<1x3x8x5xf32, #ge.layout<NCHW>> -> tensor<1x8x5x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    [[TN:%.*]] = ge.transpose [[T]] {perm = array<i64: 0, -1, 1, 2>} : tensor<1x8x5x3xf32, #ge.layout<NHWC>> -> tensor<1x3x8x5xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    [[P:%.*]] = ge.permute [[X]] {order = array<i64: 3, 2, 1, 0>} : tensor<1x3x8x5xf32, #ge.layout<NCHW>> -> tensor<5x8x3x1xf32>
// CHECK-NEXT:    [[S:%.*]] = ge.data {index = 1 : i64} : tensor<f32>
// CHECK-NEXT:    [[TS:%.*]] = ge.transpose [[S]] {perm = array<i64>} : tensor<f32> -> tensor<f32>
// CHECK-NEXT:    ge.netoutput [[TN]], [[P]], [[TS]] :
ge.graph @permutations {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x5xf32, #ge.layout<NCHW>>
  %t = ge.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<1x3x8x5xf32, #ge.layout<NCHW>> -> tensor<1x8x5x3xf32, #ge.layout<NHWC>>
  %tn = ge.transpose %t {perm = array<i64: 0, -1, 1, 2>} : tensor<1x8x5x3xf32, #ge.layout<NHWC>> -> tensor<1x3x8x5xf32, #ge.layout<NCHW>>
  %p = ge.permute %x {order = array<i64: 3, 2, 1, 0>} : tensor<1x3x8x5xf32, #ge.layout<NCHW>> -> tensor<5x8x3x1xf32>
  %s = ge.data {index = 1 : i64} : tensor<f32>
  %ts = ge.transpose %s {perm = array<i64>} : tensor<f32> -> tensor<f32>
  ge.netoutput %tn, %p, %ts : tensor<1x3x8x5xf32, #ge.layout<NCHW>>, tensor<5x8x3x1xf32>, tensor<f32>
}

// -----

// A head split (reshape, then transpose) and merge (transpose first) in
// FRACTAL_NZ.
// CHECK-LABEL: ge.graph @confusion_transposes
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<2x11x64xf32, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    [[Q:%.*]] = ge.confusion_transpose [[X]] {perm = array<i64: 0, 2, 1, 3>, shape = array<i64: 2, 11, 4, 16>} : tensor<2x11x64xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x4x11x16xf32, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    [[M:%.*]] = ge.confusion_transpose [[Q]] {perm = array<i64: 0, 2, 1, 3>, shape = array<i64: 2, 11, 64>, transpose_first = true} : tensor<2x4x11x16xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x11x64xf32, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    ge.netoutput [[M]] :
ge.graph @confusion_transposes {
  %x = ge.data {index = 0 : i64} : tensor<2x11x64xf32, #ge.layout<ND, FRACTAL_NZ>>
  %q = ge.confusion_transpose %x {perm = array<i64: 0, 2, 1, 3>, shape = array<i64: 2, 11, 4, 16>} : tensor<2x11x64xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x4x11x16xf32, #ge.layout<ND, FRACTAL_NZ>>
  %m = ge.confusion_transpose %q {perm = array<i64: 0, 2, 1, 3>, shape = array<i64: 2, 11, 64>, transpose_first = true} : tensor<2x4x11x16xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x11x64xf32, #ge.layout<ND, FRACTAL_NZ>>
  ge.netoutput %m : tensor<2x11x64xf32, #ge.layout<ND, FRACTAL_NZ>>
}
