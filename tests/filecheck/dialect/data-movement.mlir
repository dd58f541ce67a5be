// RUN: ge-opt %s --split-input-file | ge-opt --split-input-file | filecheck %s
// RUN: ge-opt %s --split-input-file --print-op-generic | ge-opt --split-input-file | filecheck %s

// Data movement: concat, split, slice, gather, gather_elements, gather_nd, tile,
// pad.

// CHECK-LABEL: ge.graph @concat_split
// CHECK:         [[A:%.*]] = ge.data {index = 0 : i64} : tensor<2x3xf32>
// CHECK-NEXT:    [[B:%.*]] = ge.data {index = 1 : i64} : tensor<2x5xf32>
// CHECK-NEXT:    [[C:%.*]] = ge.concat [[A]], [[B]] {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    [[C1:%.*]] = ge.concat [[A]] {axis = -2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    [[S0:%.*]], [[S1:%.*]], [[S2:%.*]] = ge.split [[C]] {axis = -1 : i64, sizes = array<i64: 4, 3, 1>} : (tensor<2x8xf32>) -> (tensor<2x4xf32>, tensor<2x3xf32>, tensor<2x1xf32>)
// CHECK-NEXT:    [[T:%.*]] = ge.split [[A]] {axis = 0 : i64, sizes = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    [[D:%.*]] = ge.data {index = 2 : i64} : tensor<?x3xf32>
// CHECK-NEXT:    [[CD:%.*]] = ge.concat [[A]], [[D]] {axis = 0 : i64} : (tensor<2x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
// CHECK-NEXT:    ge.netoutput [[C1]], [[S0]], [[S1]], [[S2]], [[T]], [[CD]] :
ge.graph @concat_split {
  %a = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %b = ge.data {index = 1 : i64} : tensor<2x5xf32>
  %c = ge.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %c1 = ge.concat %a {axis = -2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %s:3 = ge.split %c {axis = -1 : i64, sizes = array<i64: 4, 3, 1>} : (tensor<2x8xf32>) -> (tensor<2x4xf32>, tensor<2x3xf32>, tensor<2x1xf32>)
  %t = ge.split %a {axis = 0 : i64, sizes = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %d = ge.data {index = 2 : i64} : tensor<?x3xf32>
  %cd = ge.concat %a, %d {axis = 0 : i64} : (tensor<2x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  ge.netoutput %c1, %s#0, %s#1, %s#2, %t, %cd : tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x3xf32>, tensor<?x3xf32>
}

// -----

// CHECK-LABEL: ge.graph @slice_gather
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<4x6x8xf32>
// CHECK-NEXT:    [[S:%.*]] = ge.slice [[X]] {begins = array<i64: 1, 0>, ends = array<i64: 3, 8>, axes = array<i64: 0, -1>, steps = array<i64: 1, 2>} : tensor<4x6x8xf32> -> tensor<2x6x4xf32>
// CHECK-NEXT:    [[SD:%.*]] = ge.slice [[X]] {begins = array<i64: 0>, ends = array<i64: 2>} : tensor<4x6x8xf32> -> tensor<2x6x8xf32>
// CHECK-NEXT:    [[SR:%.*]] = ge.slice [[X]] {begins = array<i64: -1>, ends = array<i64: -9223372036854775807>, axes = array<i64: 1>, steps = array<i64: -1>} : tensor<4x6x8xf32> -> tensor<4x6x8xf32>
// CHECK-NEXT:    [[I:%.*]] = ge.const {value = dense<[0, 2]> : tensor<2xi64>} : tensor<2xi64>
// CHECK-NEXT:    [[G:%.*]] = ge.gather [[X]], [[I]] {axis = 1 : i64} : (tensor<4x6x8xf32>, tensor<2xi64>) -> tensor<4x2x8xf32>
// CHECK-NEXT:    [[G0:%.*]] = ge.gather [[X]], [[I]] : (tensor<4x6x8xf32>, tensor<2xi64>) -> tensor<2x6x8xf32>
// CHECK-NEXT:    ge.netoutput [[S]], [[SD]], [[SR]], [[G]], [[G0]] :
ge.graph @slice_gather {
  %x = ge.data {index = 0 : i64} : tensor<4x6x8xf32>
  %s = ge.slice %x {begins = array<i64: 1, 0>, ends = array<i64: 3, 8>, axes = array<i64: 0, -1>, steps = array<i64: 1, 2>} : tensor<4x6x8xf32> -> tensor<2x6x4xf32>
  %sd = ge.slice %x {begins = array<i64: 0>, ends = array<i64: 2>} : tensor<4x6x8xf32> -> tensor<2x6x8xf32>
  %sr = ge.slice %x {begins = array<i64: -1>, ends = array<i64: -9223372036854775807>, axes = array<i64: 1>, steps = array<i64: -1>} : tensor<4x6x8xf32> -> tensor<4x6x8xf32>
  %i = ge.const {value = dense<[0, 2]> : tensor<2xi64>} : tensor<2xi64>
  %g = ge.gather %x, %i {axis = 1 : i64} : (tensor<4x6x8xf32>, tensor<2xi64>) -> tensor<4x2x8xf32>
  %g0 = ge.gather %x, %i : (tensor<4x6x8xf32>, tensor<2xi64>) -> tensor<2x6x8xf32>
  ge.netoutput %s, %sd, %sr, %g, %g0 : tensor<2x6x4xf32>, tensor<2x6x8xf32>, tensor<4x6x8xf32>, tensor<4x2x8xf32>, tensor<2x6x8xf32>
}

// -----

// CHECK-LABEL: ge.graph @gather_elements_nd
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<3x5x17xf32>
// CHECK-NEXT:    [[I:%.*]] = ge.data {index = 1 : i64} : tensor<3x2x17xi64>
// CHECK-NEXT:    [[J:%.*]] = ge.data {index = 2 : i64} : tensor<3x4x2xi32>
// CHECK-NEXT:    [[E:%.*]] = ge.gather_elements [[X]], [[I]] {axis = 1 : i64} : (tensor<3x5x17xf32>, tensor<3x2x17xi64>) -> tensor<3x2x17xf32>
// CHECK-NEXT:    [[E0:%.*]] = ge.gather_elements [[X]], [[I]] : (tensor<3x5x17xf32>, tensor<3x2x17xi64>) -> tensor<3x2x17xf32>
// CHECK-NEXT:    [[N:%.*]] = ge.gather_nd [[X]], [[J]] : (tensor<3x5x17xf32>, tensor<3x4x2xi32>) -> tensor<3x4x17xf32>
// CHECK-NEXT:    [[NB:%.*]] = ge.gather_nd [[X]], [[J]] {batch_dims = 1 : i64} : (tensor<3x5x17xf32>, tensor<3x4x2xi32>) -> tensor<3x4xf32>
// CHECK-NEXT:    ge.netoutput [[E]], [[E0]], [[N]], [[NB]] :
ge.graph @gather_elements_nd {
  %x = ge.data {index = 0 : i64} : tensor<3x5x17xf32>
  %i = ge.data {index = 1 : i64} : tensor<3x2x17xi64>
  %j = ge.data {index = 2 : i64} : tensor<3x4x2xi32>
  %e = ge.gather_elements %x, %i {axis = 1 : i64} : (tensor<3x5x17xf32>, tensor<3x2x17xi64>) -> tensor<3x2x17xf32>
  %e0 = ge.gather_elements %x, %i {axis = 0 : i64} : (tensor<3x5x17xf32>, tensor<3x2x17xi64>) -> tensor<3x2x17xf32>
  %n = ge.gather_nd %x, %j : (tensor<3x5x17xf32>, tensor<3x4x2xi32>) -> tensor<3x4x17xf32>
  %nb = ge.gather_nd %x, %j {batch_dims = 1 : i64} : (tensor<3x5x17xf32>, tensor<3x4x2xi32>) -> tensor<3x4xf32>
  ge.netoutput %e, %e0, %n, %nb : tensor<3x2x17xf32>, tensor<3x2x17xf32>, tensor<3x4x17xf32>, tensor<3x4xf32>
}

// -----

// CHECK-LABEL: ge.graph @tile_pad
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<2x3xf16>
// CHECK-NEXT:    [[T:%.*]] = ge.tile [[X]] {multiples = array<i64: 2, 1>} : tensor<2x3xf16> -> tensor<4x3xf16>
// CHECK-NEXT:    [[P:%.*]] = ge.pad [[X]] {paddings = array<i64: 0, 1, 1, 2>} : tensor<2x3xf16> -> tensor<3x6xf16>
// CHECK-NEXT:    [[PR:%.*]] = ge.pad [[X]] {paddings = array<i64: 1, 1, 1, 1>, mode = "reflect"} : tensor<2x3xf16> -> tensor<4x5xf16>
// CHECK-NEXT:    [[PC:%.*]] = ge.pad [[X]] {paddings = array<i64: 0, 0, 0, 1>, value = -1.000000e+00 : f32} : tensor<2x3xf16> -> tensor<2x4xf16>
// CHECK-NEXT:    [[PE:%.*]] = ge.pad [[X]] {paddings = array<i64: 2, 0, 0, 0>, mode = "edge"} : tensor<2x3xf16> -> tensor<4x3xf16>
// CHECK-NEXT:    ge.netoutput [[T]], [[P]], [[PR]], [[PC]], [[PE]] :
ge.graph @tile_pad {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf16>
  %t = ge.tile %x {multiples = array<i64: 2, 1>} : tensor<2x3xf16> -> tensor<4x3xf16>
  %p = ge.pad %x {paddings = array<i64: 0, 1, 1, 2>} : tensor<2x3xf16> -> tensor<3x6xf16>
  %pr = ge.pad %x {paddings = array<i64: 1, 1, 1, 1>, mode = "reflect"} : tensor<2x3xf16> -> tensor<4x5xf16>
  %pc = ge.pad %x {paddings = array<i64: 0, 0, 0, 1>, mode = "constant", value = -1.0 : f32} : tensor<2x3xf16> -> tensor<2x4xf16>
  %pe = ge.pad %x {paddings = array<i64: 2, 0, 0, 0>, mode = "edge"} : tensor<2x3xf16> -> tensor<4x3xf16>
  ge.netoutput %t, %p, %pr, %pc, %pe : tensor<4x3xf16>, tensor<3x6xf16>, tensor<4x5xf16>, tensor<2x4xf16>, tensor<4x3xf16>
}

// -----

// Trilu: the upper triangle (default) or the lower; `k`, an optional 0-d
// integer operand, shifts the diagonal.

// CHECK-LABEL: ge.graph @trilu
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<2x3x17xf16>
// CHECK-NEXT:    [[K:%.*]] = ge.data {index = 1 : i64} : tensor<i64>
// CHECK-NEXT:    [[U:%.*]] = ge.trilu [[X]] : (tensor<2x3x17xf16>) -> tensor<2x3x17xf16>
// CHECK-NEXT:    [[L:%.*]] = ge.trilu [[X]], [[K]] {upper = false} : (tensor<2x3x17xf16>, tensor<i64>) -> tensor<2x3x17xf16>
// CHECK-NEXT:    ge.netoutput [[U]], [[L]] :
ge.graph @trilu {
  %x = ge.data {index = 0 : i64} : tensor<2x3x17xf16>
  %k = ge.data {index = 1 : i64} : tensor<i64>
  %u = ge.trilu %x : (tensor<2x3x17xf16>) -> tensor<2x3x17xf16>
  %l = ge.trilu %x, %k {upper = false} : (tensor<2x3x17xf16>, tensor<i64>) -> tensor<2x3x17xf16>
  ge.netoutput %u, %l : tensor<2x3x17xf16>, tensor<2x3x17xf16>
}

// -----

// CHECK-LABEL: ge.graph @channel_shuffle
// CHECK-NEXT:    [[X:%.*]] = ge.data {index = 0 : i64} : tensor<1x12x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[Y:%.*]] = ge.channel_shuffle [[X]] {groups = 3 : i64} : tensor<1x12x3x3xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x12x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
ge.graph @channel_shuffle {
  %x = ge.data {index = 0 : i64} : tensor<1x12x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  %y = ge.channel_shuffle %x {groups = 3 : i64} : tensor<1x12x3x3xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x12x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %y : tensor<1x12x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
}
