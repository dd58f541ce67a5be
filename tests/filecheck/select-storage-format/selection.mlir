// RUN: ge-opt %s --split-input-file --refine-running-format --select-storage-format | filecheck %s
// RUN: ge-opt %s --split-input-file --refine-running-format --select-storage-format=spread=false | filecheck %s --check-prefix=NOSPREAD
// RUN: ge-opt %s --split-input-file --refine-running-format --select-storage-format --select-storage-format | filecheck %s

// Storage-format selection: policy from the op-information library, heavy
// ops first, then the spread (a second run changes nothing).

// Heavy ops first (conv: 5HD activations, FRACTAL_Z weights; pooling: 5HD),
// then the spread through relu; it stops at softmax (origin only), and exp
// after softmax is not reached. Graph input and output keep origin layouts.
// NOSPREAD-LABEL: ge.graph @conv_relu_pool
// NOSPREAD:         %r = ge.relu %c {input_layouts = [#ge.layout<NCHW>]} : tensor<1x17x6x6xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x6x6xf16, #ge.layout<NCHW>>
// NOSPREAD-NEXT:    %p = ge.max_pool %r {{{.*}}input_layouts = [#ge.layout<NCHW, NC1HWC0>]}
// CHECK-LABEL: ge.graph @conv_relu_pool
// CHECK-NEXT:    %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    %w = ge.const {{.*}} : tensor<17x3x3x3xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    %c = ge.conv2d %x, %w {data_format = "NCHW", input_layouts = [#ge.layout<NCHW, NC1HWC0>, #ge.layout<NCHW, FRACTAL_Z>]} : {{.*}} -> tensor<1x17x6x6xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    %r = ge.relu %c : tensor<1x17x6x6xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x6x6xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    %p = ge.max_pool %r {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>} : tensor<1x17x6x6xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    %s = ge.softmax %p {axis = 1 : i64, input_layouts = [#ge.layout<NCHW>]} : tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    %e = ge.exp %s : tensor<1x17x3x3xf16, #ge.layout<NCHW>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    ge.netoutput %e : tensor<1x17x3x3xf16, #ge.layout<NCHW>>{{$}}
ge.graph @conv_relu_pool {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
  %w = ge.const {value = dense<0.5> : tensor<17x3x3x3xf16>} : tensor<17x3x3x3xf16, #ge.layout<NCHW>>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf16, #ge.layout<NCHW>>, tensor<17x3x3x3xf16, #ge.layout<NCHW>>) -> tensor<1x17x6x6xf16, #ge.layout<NCHW>>
  %r = ge.relu %c : tensor<1x17x6x6xf16, #ge.layout<NCHW>> -> tensor<1x17x6x6xf16, #ge.layout<NCHW>>
  %p = ge.max_pool %r {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>} : tensor<1x17x6x6xf16, #ge.layout<NCHW>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW>>
  %s = ge.softmax %p {axis = 1 : i64} : tensor<1x17x3x3xf16, #ge.layout<NCHW>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW>>
  %e = ge.exp %s : tensor<1x17x3x3xf16, #ge.layout<NCHW>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW>>
  ge.netoutput %e : tensor<1x17x3x3xf16, #ge.layout<NCHW>>
}

// -----

// Backward spread into a producer only when the heavy op is its only
// consumer: sigmoid runs in 5HD, tanh (also a graph output) stays origin.
// CHECK-LABEL: ge.graph @backward_spread
// CHECK:         %s = ge.sigmoid %x {input_layouts = [#ge.layout<NCHW, NC1HWC0>]} : tensor<1x3x8x8xf16, #ge.layout<NCHW>> -> tensor<1x3x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    %t = ge.tanh %x : tensor<1x3x8x8xf16, #ge.layout<NCHW>> -> tensor<1x3x8x8xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    %p = ge.avg_pool %s {{{[^}]*}}} : tensor<1x3x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    %q = ge.avg_pool %t {{{.*}}input_layouts = [#ge.layout<NCHW, NC1HWC0>]}
// CHECK-NEXT:    ge.netoutput %p, %q, %t : {{.*}} {input_layouts = [#ge.layout<NCHW>, #ge.layout<NCHW>, #ge.layout<NCHW>]}
ge.graph @backward_spread {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
  %s = ge.sigmoid %x : tensor<1x3x8x8xf16, #ge.layout<NCHW>> -> tensor<1x3x8x8xf16, #ge.layout<NCHW>>
  %t = ge.tanh %x : tensor<1x3x8x8xf16, #ge.layout<NCHW>> -> tensor<1x3x8x8xf16, #ge.layout<NCHW>>
  %p = ge.avg_pool %s {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>} : tensor<1x3x8x8xf16, #ge.layout<NCHW>> -> tensor<1x3x7x7xf16, #ge.layout<NCHW>>
  %q = ge.avg_pool %t {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>} : tensor<1x3x8x8xf16, #ge.layout<NCHW>> -> tensor<1x3x7x7xf16, #ge.layout<NCHW>>
  ge.netoutput %p, %q, %t : tensor<1x3x7x7xf16, #ge.layout<NCHW>>, tensor<1x3x7x7xf16, #ge.layout<NCHW>>, tensor<1x3x8x8xf16, #ge.layout<NCHW>>
}

// -----

// Broadcast ops: a [C,1,1] constant (ND) adopts the result's NCHW and expands
// by NumPy alignment (reshape type CHW); a scalar keeps its layout; an
// operand spanning the result's C joins; a [W] operand (C would broadcast)
// keeps the op in origin format.
// CHECK-LABEL: ge.graph @broadcast_operands
// CHECK:         %a = ge.mul %m, %k {input_layouts = [#ge.layout<NCHW, NC1HWC0>, #ge.layout<NCHW, NC1HWC0, reshape_type = "CHW">]} : {{.*}} -> tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    %b = ge.add %a, %one : (tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<f32>) -> tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    %c = ge.add %b, %p : (tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x17x1x1xf32, #ge.layout<NCHW, NC1HWC0>>) -> tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    %d = ge.mul %c, %row {input_layouts = [#ge.layout<NCHW>, #ge.layout<ND>]} : {{.*}} -> tensor<1x17x4x4xf32, #ge.layout<NCHW>>
ge.graph @broadcast_operands {
  %x = ge.data {index = 0 : i64} : tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  %p = ge.global_avg_pool %x {data_format = "NCHW"} : tensor<1x17x4x4xf32, #ge.layout<NCHW>> -> tensor<1x17x1x1xf32, #ge.layout<NCHW>>
  %m = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x17x4x4xf32, #ge.layout<NCHW>> -> tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  %k = ge.const {value = dense<3.0> : tensor<17x1x1xf32>} : tensor<17x1x1xf32>
  %one = ge.const {value = dense<1.0> : tensor<f32>} : tensor<f32>
  %row = ge.data {index = 1 : i64} : tensor<4xf32>
  %a = ge.mul %m, %k : (tensor<1x17x4x4xf32, #ge.layout<NCHW>>, tensor<17x1x1xf32>) -> tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  %b = ge.add %a, %one : (tensor<1x17x4x4xf32, #ge.layout<NCHW>>, tensor<f32>) -> tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  %c = ge.add %b, %p : (tensor<1x17x4x4xf32, #ge.layout<NCHW>>, tensor<1x17x1x1xf32, #ge.layout<NCHW>>) -> tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  %d = ge.mul %c, %row : (tensor<1x17x4x4xf32, #ge.layout<NCHW>>, tensor<4xf32>) -> tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  ge.netoutput %d : tensor<1x17x4x4xf32, #ge.layout<NCHW>>
}

// -----

// Concat and LRN take NC1HWC0 only when every C is a multiple of C0 (16
// for fp16): the 16+16 concat stays in 5HD, the 16+3 one and LRN on 3
// channels go back to origin.
// CHECK-LABEL: ge.graph @channel_aligned
// CHECK:         %a = ge.concat %px, %px {axis = 1 : i64} : {{.*}} -> tensor<1x32x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    %b = ge.concat %px, %py {axis = 1 : i64, input_layouts = [#ge.layout<NCHW>, #ge.layout<NCHW>]} : {{.*}} -> tensor<1x19x4x4xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    %l = ge.lrn %py {{{.*}}input_layouts = [#ge.layout<NCHW>]} : {{.*}} -> tensor<1x3x4x4xf16, #ge.layout<NCHW>>
ge.graph @channel_aligned {
  %x = ge.data {index = 0 : i64} : tensor<1x16x4x4xf16, #ge.layout<NCHW>>
  %y = ge.data {index = 1 : i64} : tensor<1x3x4x4xf16, #ge.layout<NCHW>>
  %px = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x16x4x4xf16, #ge.layout<NCHW>> -> tensor<1x16x4x4xf16, #ge.layout<NCHW>>
  %py = ge.max_pool %y {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x3x4x4xf16, #ge.layout<NCHW>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW>>
  %a = ge.concat %px, %px {axis = 1 : i64} : (tensor<1x16x4x4xf16, #ge.layout<NCHW>>, tensor<1x16x4x4xf16, #ge.layout<NCHW>>) -> tensor<1x32x4x4xf16, #ge.layout<NCHW>>
  %b = ge.concat %px, %py {axis = 1 : i64} : (tensor<1x16x4x4xf16, #ge.layout<NCHW>>, tensor<1x3x4x4xf16, #ge.layout<NCHW>>) -> tensor<1x19x4x4xf16, #ge.layout<NCHW>>
  %l = ge.lrn %py {data_format = "NCHW", size = 3 : i64} : tensor<1x3x4x4xf16, #ge.layout<NCHW>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW>>
  ge.netoutput %a, %b, %l : tensor<1x32x4x4xf16, #ge.layout<NCHW>>, tensor<1x19x4x4xf16, #ge.layout<NCHW>>, tensor<1x3x4x4xf16, #ge.layout<NCHW>>
}

// -----

// MatMul runs on FRACTAL_NZ; relu follows it; the reduction reads NZ (its
// valid lanes) and writes its origin format.
// CHECK-LABEL: ge.graph @matmul_nz
// CHECK:         %m = ge.matmul %a, %b {input_layouts = [#ge.layout<ND, FRACTAL_NZ>, #ge.layout<ND, FRACTAL_NZ>]} : {{.*}} -> tensor<20x7xf16, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    %r = ge.relu %m : tensor<20x7xf16, #ge.layout<ND, FRACTAL_NZ>> -> tensor<20x7xf16, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    %g = ge.reduce_sum %r {axes = array<i64: 1>} : tensor<20x7xf16, #ge.layout<ND, FRACTAL_NZ>> -> tensor<20x1xf16>
ge.graph @matmul_nz {
  %a = ge.data {index = 0 : i64} : tensor<20x33xf16>
  %b = ge.const {value = dense<1.0> : tensor<33x7xf16>} : tensor<33x7xf16>
  %m = ge.matmul %a, %b : (tensor<20x33xf16>, tensor<33x7xf16>) -> tensor<20x7xf16>
  %r = ge.relu %m : tensor<20x7xf16> -> tensor<20x7xf16>
  %g = ge.reduce_sum %r {axes = array<i64: 1>} : tensor<20x7xf16> -> tensor<20x1xf16>
  ge.netoutput %g : tensor<20x1xf16>
}

// -----

// The op info has no int32 pooling kernel: origin format.
// CHECK-LABEL: ge.graph @unsupported_dtype
// CHECK:         %p = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>} : tensor<1x3x8x8xi32, #ge.layout<NCHW>> -> tensor<1x3x7x7xi32, #ge.layout<NCHW>>
ge.graph @unsupported_dtype {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xi32, #ge.layout<NCHW>>
  %p = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>} : tensor<1x3x8x8xi32, #ge.layout<NCHW>> -> tensor<1x3x7x7xi32, #ge.layout<NCHW>>
  ge.netoutput %p : tensor<1x3x7x7xi32, #ge.layout<NCHW>>
}

// -----

// Without origin formats (infer-origin-format not run) nothing is internal.
// CHECK-LABEL: ge.graph @nd_conv_stays_origin
// CHECK:         %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf16>, tensor<4x3x3x3xf16>) -> tensor<1x4x6x6xf16>
ge.graph @nd_conv_stays_origin {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16>
  %w = ge.const {value = dense<0.5> : tensor<4x3x3x3xf16>} : tensor<4x3x3x3xf16>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf16>, tensor<4x3x3x3xf16>) -> tensor<1x4x6x6xf16>
  ge.netoutput %c : tensor<1x4x6x6xf16>
}

// -----

// A user storage format whose shape GE derived is heavy: it spreads to relu.
// CHECK-LABEL: ge.graph @heavy_user_data
// CHECK:         %r = ge.relu %x : tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    ge.netoutput %r : {{.*}} {input_layouts = [#ge.layout<NCHW>]}
// NOSPREAD-LABEL: ge.graph @heavy_user_data
// NOSPREAD:         %r = ge.relu %x {input_layouts = [#ge.layout<NCHW>]} : tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW>>
ge.graph @heavy_user_data {
  %x = ge.data {index = 0 : i64, storage_format = #ge.format<NC1HWC0>, storage_shape = array<i64>} : tensor<1x3x4x4xf16, #ge.layout<NCHW>>
  %r = ge.relu %x : tensor<1x3x4x4xf16, #ge.layout<NCHW>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW>>
  ge.netoutput %r : tensor<1x3x4x4xf16, #ge.layout<NCHW>>
}

// -----

// Subgraphs are selected on their own; their outputs mirror the parent's
// (origin) results, so each branch converts back before returning.
// CHECK-LABEL: ge.graph @subgraph
// CHECK:         %y = ge.if %i, %x : {{.*}} then {
// CHECK:           %p = ge.max_pool %d {{{.*}}input_layouts = [#ge.layout<NCHW, NC1HWC0>]} : {{.*}} -> tensor<1x3x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:      ge.netoutput %p : {{.*}} {input_layouts = [#ge.layout<NCHW>]}
// CHECK:           %p_1 = ge.avg_pool %d_1 {{{.*}}input_layouts = [#ge.layout<NCHW, NC1HWC0>]} : {{.*}} -> tensor<1x3x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:      ge.netoutput %p_1 : {{.*}} {input_layouts = [#ge.layout<NCHW>]}
ge.graph @subgraph {
  %i = ge.data {index = 0 : i64} : tensor<i1>
  %x = ge.data {index = 1 : i64} : tensor<1x3x4x4xf16, #ge.layout<NCHW>>
  %y = ge.if %i, %x : (tensor<i1>, tensor<1x3x4x4xf16, #ge.layout<NCHW>>) -> tensor<1x3x3x3xf16, #ge.layout<NCHW>> then {
    %d = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf16, #ge.layout<NCHW>>
    %p = ge.max_pool %d {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>} : tensor<1x3x4x4xf16, #ge.layout<NCHW>> -> tensor<1x3x3x3xf16, #ge.layout<NCHW>>
    ge.netoutput %p : tensor<1x3x3x3xf16, #ge.layout<NCHW>>
  } else {
    %d = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf16, #ge.layout<NCHW>>
    %p = ge.avg_pool %d {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>} : tensor<1x3x4x4xf16, #ge.layout<NCHW>> -> tensor<1x3x3x3xf16, #ge.layout<NCHW>>
    ge.netoutput %p : tensor<1x3x3x3xf16, #ge.layout<NCHW>>
  }
  ge.netoutput %y : tensor<1x3x3x3xf16, #ge.layout<NCHW>>
}

// -----

// A broadcast operand that does not span the matrix (a bias [N], a row scale
// [M, 1]) keeps its origin layout and is read through it: the add and mul
// stay in FRACTAL_NZ with the matmul instead of stopping the spread.
// CHECK-LABEL: ge.graph @nz_broadcast_operands
// CHECK:         %m = ge.matmul %a, %w {input_layouts = [#ge.layout<ND, FRACTAL_NZ>, #ge.layout<ND, FRACTAL_NZ>]} : {{.*}} -> tensor<11x100xf32, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    %b = ge.add %m, %bias : (tensor<11x100xf32, #ge.layout<ND, FRACTAL_NZ>>, tensor<100xf32>) -> tensor<11x100xf32, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    %s = ge.mul %b, %row : (tensor<11x100xf32, #ge.layout<ND, FRACTAL_NZ>>, tensor<11x1xf32>) -> tensor<11x100xf32, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    %t = ge.tanh %s : tensor<11x100xf32, #ge.layout<ND, FRACTAL_NZ>>
// NOSPREAD-LABEL: ge.graph @nz_broadcast_operands
// NOSPREAD:         ge.add %m, %bias {input_layouts = [#ge.layout<ND>, #ge.layout<ND>]} : (tensor<11x100xf32, #ge.layout<ND, FRACTAL_NZ>>, tensor<100xf32>) -> tensor<11x100xf32>
ge.graph @nz_broadcast_operands {
  %a = ge.data {index = 0 : i64} : tensor<11x64xf32>
  %w = ge.const {value = dense<0.5> : tensor<64x100xf32>} : tensor<64x100xf32>
  %bias = ge.data {index = 2 : i64} : tensor<100xf32>
  %row = ge.data {index = 1 : i64} : tensor<11x1xf32>
  %m = ge.matmul %a, %w : (tensor<11x64xf32>, tensor<64x100xf32>) -> tensor<11x100xf32>
  %b = ge.add %m, %bias : (tensor<11x100xf32>, tensor<100xf32>) -> tensor<11x100xf32>
  %s = ge.mul %b, %row : (tensor<11x100xf32>, tensor<11x1xf32>) -> tensor<11x100xf32>
  %t = ge.tanh %s : tensor<11x100xf32> -> tensor<11x100xf32>
  ge.netoutput %t : tensor<11x100xf32>
}
