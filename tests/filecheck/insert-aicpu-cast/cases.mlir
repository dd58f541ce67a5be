// RUN: ge-opt %s --split-input-file --opinfo %S/aicpu_fp32.json --opinfo %S/../inputs/aicpu_tile.json --insert-aicpu-cast | filecheck %s
// RUN: ge-opt %s --split-input-file --opinfo %S/aicpu_fp32.json --opinfo %S/../inputs/aicpu_tile.json --insert-aicpu-cast --partition-engines | filecheck %s --check-prefix=PART

// The user file makes ge.tanh and ge.maximum AI CPU ops taking float32 only
// and ge.gather one taking float32, int32 and int64; inputs/aicpu_tile.json
// makes ge.tile one taking float16 too.

// An fp16 AI CPU op runs in fp32 between two casts (named after the node).
// CHECK-LABEL: ge.graph @unary
// CHECK-NEXT:    %x = ge.data {index = 0 : i64} : tensor<2x17xf16>
// CHECK-NEXT:    %0 = ge.cast %x {dst_type = f32, name = "t_input0_cast"} : tensor<2x17xf16> -> tensor<2x17xf32>
// CHECK-NEXT:    %y = ge.tanh %0 {name = "t"} : tensor<2x17xf32> -> tensor<2x17xf32>
// CHECK-NEXT:    %y_1 = ge.cast %y {dst_type = f16, name = "t_output0_cast"} : tensor<2x17xf32> -> tensor<2x17xf16>
// CHECK-NEXT:    ge.netoutput %y_1 : tensor<2x17xf16>
// The casts run on AI Core, around the AI CPU subgraph.
// PART-LABEL: ge.graph @unary
// PART:         ge.partitioned_call %x {engine = "AICore"} : (tensor<2x17xf16>) -> tensor<2x17xf32>
// PART:           ge.cast
// PART:         ge.partitioned_call {{.*}} {engine = "AICPU"} : (tensor<2x17xf32>) -> tensor<2x17xf32>
// PART:           ge.tanh
// PART:         ge.partitioned_call {{.*}} {engine = "AICore"} : (tensor<2x17xf32>) -> tensor<2x17xf16>
// PART:           ge.cast
ge.graph @unary {
  %x = ge.data {index = 0 : i64} : tensor<2x17xf16>
  %y = ge.tanh %x {name = "t"} : tensor<2x17xf16> -> tensor<2x17xf16>
  ge.netoutput %y : tensor<2x17xf16>
}

// -----

// Every operand is cast; casts keep the layout; every user of the result
// (the netoutput too) reads the cast back. Unnamed nodes are <type>_<n>.
// CHECK-LABEL: ge.graph @binary_keeps_layout
// CHECK:         %0 = ge.cast %x {dst_type = f32, name = "maximum_0_input0_cast"} : tensor<1x17x2x2xbf16, #ge.layout<NCHW>> -> tensor<1x17x2x2xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %1 = ge.cast %y {dst_type = f32, name = "maximum_0_input1_cast"}
// CHECK-NEXT:    %m = ge.maximum %0, %1 : {{.*}} -> tensor<1x17x2x2xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %m_1 = ge.cast %m {dst_type = bf16, name = "maximum_0_output0_cast"} : tensor<1x17x2x2xf32, #ge.layout<NCHW>> -> tensor<1x17x2x2xbf16, #ge.layout<NCHW>>
// CHECK-NEXT:    %r = ge.relu %m_1
// CHECK-NEXT:    ge.netoutput %r, %m_1
ge.graph @binary_keeps_layout {
  %x = ge.data {index = 0 : i64} : tensor<1x17x2x2xbf16, #ge.layout<NCHW>>
  %y = ge.data {index = 1 : i64} : tensor<1x17x2x2xbf16, #ge.layout<NCHW>>
  %m = ge.maximum %x, %y : (tensor<1x17x2x2xbf16, #ge.layout<NCHW>>, tensor<1x17x2x2xbf16, #ge.layout<NCHW>>) -> tensor<1x17x2x2xbf16, #ge.layout<NCHW>>
  %r = ge.relu %m : tensor<1x17x2x2xbf16, #ge.layout<NCHW>> -> tensor<1x17x2x2xbf16, #ge.layout<NCHW>>
  ge.netoutput %r, %m : tensor<1x17x2x2xbf16, #ge.layout<NCHW>>, tensor<1x17x2x2xbf16, #ge.layout<NCHW>>
}

// -----

// Operands in a supported dtype (the int32 indices) are left alone.
// CHECK-LABEL: ge.graph @supported_operands_stay
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %i = ge.data
// CHECK-NEXT:    %0 = ge.cast %x {dst_type = f32, name = "g_input0_cast"}
// CHECK-NEXT:    %g = ge.gather %0, %i {name = "g"} : (tensor<5x3xf32>, tensor<4xi32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %g_1 = ge.cast %g {dst_type = f16, name = "g_output0_cast"}
// CHECK-NEXT:    ge.netoutput %g_1
ge.graph @supported_operands_stay {
  %x = ge.data {index = 0 : i64} : tensor<5x3xf16>
  %i = ge.data {index = 1 : i64} : tensor<4xi32>
  %g = ge.gather %x, %i {axis = 0 : i64, name = "g"} : (tensor<5x3xf16>, tensor<4xi32>) -> tensor<4x3xf16>
  ge.netoutput %g : tensor<4x3xf16>
}

// -----

// The narrowest dtype of the same kind that holds every value: int8 -> int32.
// CHECK-LABEL: ge.graph @int8_widens
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    ge.cast %x {dst_type = i32, name = "tile_0_input0_cast"} : tensor<2x3xi8> -> tensor<2x3xi32>
// CHECK-NEXT:    ge.tile {{.*}} : tensor<2x3xi32> -> tensor<2x6xi32>
// CHECK-NEXT:    ge.cast {{.*}} {dst_type = i8, name = "tile_0_output0_cast"} : tensor<2x6xi32> -> tensor<2x6xi8>
ge.graph @int8_widens {
  %x = ge.data {index = 0 : i64} : tensor<2x3xi8>
  %t = ge.tile %x {multiples = array<i64: 1, 2>} : tensor<2x3xi8> -> tensor<2x6xi8>
  ge.netoutput %t : tensor<2x6xi8>
}

// -----

// Supported dtypes and AI Core ops are untouched.
// CHECK-LABEL: ge.graph @untouched
// CHECK-NOT:     ge.cast
// CHECK:         ge.netoutput
ge.graph @untouched {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %h = ge.data {index = 1 : i64} : tensor<2x3xf16>
  %y = ge.tanh %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %r = ge.relu %h : tensor<2x3xf16> -> tensor<2x3xf16>
  ge.netoutput %y, %r : tensor<2x3xf32>, tensor<2x3xf16>
}
