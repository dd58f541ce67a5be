// RUN: ge-opt %s --split-input-file -p convert-ge-to-loops | filecheck %s
// RUN: ge-opt %s --split-input-file -p convert-ge-to-loops -o %t.mlir
// RUN: iree-opt %t.mlir --split-input-file -o /dev/null
// RUN: ge-run %s --graph if_else --random-inputs --seed 1 --check --output-dir %t.if | filecheck %s --check-prefix=JIT
// RUN: python -c "import numpy as np; np.save('%t.index.npy', np.array(7, np.int32))"
// RUN: ge-run %s --graph case_of_three --input index=%t.index.npy --random-inputs --check --output-dir %t.case | filecheck %s --check-prefix=JIT
// RUN: ge-run %s --graph crossed_while --random-inputs --check --output-dir %t.while | filecheck %s --check-prefix=JIT
// RUN: ge-run %s --graph nested --random-inputs --check --output-dir %t.nested | filecheck %s --check-prefix=JIT
// RUN: ge-run %s --graph while_conv --random-inputs --check --output-dir %t.conv | filecheck %s --check-prefix=JIT

// Control flow lowers to scf: ge.if -> scf.if, ge.case -> scf.index_switch,
// ge.while -> scf.while; results are buffers allocated before the scf op
// that each branch (or the loop body) copies its outputs into. The JIT runs
// them (no part falls back to the reference evaluator).

// JIT: check: JIT vs reference on {{[0-9]+}} ops
// JIT-NOT: NOT on the JIT
// JIT: : ok

// CHECK-LABEL: func.func @if_else(
// CHECK-SAME:      %[[C:[0-9]+]]: memref<i1> {ge.input = 0 : i64, ge.name = "c"}, %[[X:[0-9]+]]: memref<4x17xf32>
// CHECK:         %[[Y:.*]] = memref.alloc() : memref<4x17xf32>
// CHECK:         %[[V:.*]] = affine.load %[[C]][] : memref<i1>
// CHECK-NEXT:    scf.if %[[V]] {
// CHECK:           math.exp
// CHECK:           affine.store %{{.*}}, %[[Y]]
// CHECK:         } else {
// CHECK:           arith.negf
// CHECK:           affine.store %{{.*}}, %[[Y]]
// CHECK:         }
// CHECK:         func.return %[[Y]]
ge.graph @if_else {
  %c = ge.data {index = 0 : i64, name = "c"} : tensor<i1>
  %x = ge.data {index = 1 : i64, name = "x"} : tensor<4x17xf32>
  %y = ge.if %c, %x : (tensor<i1>, tensor<4x17xf32>) -> tensor<4x17xf32> then {
    %a = ge.data {parent_index = 1 : i64} : tensor<4x17xf32>
    %b = ge.exp %a : tensor<4x17xf32> -> tensor<4x17xf32>
    ge.netoutput %b : tensor<4x17xf32>
  } else {
    %a = ge.data {parent_index = 1 : i64} : tensor<4x17xf32>
    %b = ge.neg %a : tensor<4x17xf32> -> tensor<4x17xf32>
    ge.netoutput %b : tensor<4x17xf32>
  }
  ge.netoutput %y : tensor<4x17xf32>
}

// -----

// An index outside 0..1 runs the last branch (the default).

// CHECK-LABEL: func.func @case_of_three(
// CHECK:         %[[I:.*]] = affine.load %{{.*}}[] : memref<i32>
// CHECK-NEXT:    %[[INDEX:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK-NEXT:    scf.index_switch %[[INDEX]]
// CHECK-NEXT:    case 0 {
// CHECK:           math.exp
// CHECK:         case 1 {
// CHECK:           math.tanh
// CHECK:         default {
// CHECK:           arith.negf
ge.graph @case_of_three {
  %i = ge.data {index = 0 : i64, name = "index"} : tensor<i32>
  %x = ge.data {index = 1 : i64, name = "x"} : tensor<3x5xf32>
  %y = ge.case %i, %x : (tensor<i32>, tensor<3x5xf32>) -> tensor<3x5xf32> {
    %a = ge.data {parent_index = 1 : i64} : tensor<3x5xf32>
    %b = ge.exp %a : tensor<3x5xf32> -> tensor<3x5xf32>
    ge.netoutput %b : tensor<3x5xf32>
  }, {
    %a = ge.data {parent_index = 1 : i64} : tensor<3x5xf32>
    %b = ge.tanh %a : tensor<3x5xf32> -> tensor<3x5xf32>
    ge.netoutput %b : tensor<3x5xf32>
  }, {
    %a = ge.data {parent_index = 1 : i64} : tensor<3x5xf32>
    %b = ge.neg %a : tensor<3x5xf32> -> tensor<3x5xf32>
    ge.netoutput %b : tensor<3x5xf32>
  }
  ge.netoutput %y : tensor<3x5xf32>
}

// -----

// Loop variables (i, a, b) -> (i + 1, b, a + b) while 5 - i is non-zero: a and b cross, so the body's
// outputs go through scratch buffers before they become the variables.

// CHECK-LABEL: func.func @crossed_while(
// CHECK:         %[[I:.*]] = memref.alloc() : memref<i32>
// CHECK:         %[[A:.*]] = memref.alloc() : memref<17xf32>
// CHECK:         %[[B:.*]] = memref.alloc() : memref<17xf32>
// CHECK:         scf.while () : () -> () {
// CHECK:           arith.subi
// CHECK:           %[[GO:.*]] = arith.cmpi ne, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:      memref.dealloc
// CHECK-NEXT:      scf.condition(%[[GO]])
// CHECK-NEXT:    } do {
// CHECK:           %[[SA:.*]] = memref.alloc() : memref<17xf32>
// CHECK:           affine.store %{{.*}}, %[[A]]
// CHECK:           affine.store %{{.*}}, %[[B]]
// CHECK:           scf.yield
// CHECK:         func.return %[[I]], %[[A]], %[[B]]
ge.graph @crossed_while {
  %i = ge.data {index = 0 : i64, name = "i"} : tensor<i32>
  %a = ge.data {index = 1 : i64, name = "a"} : tensor<17xf32>
  %b = ge.data {index = 2 : i64, name = "b"} : tensor<17xf32>
  %r:3 = ge.while %i, %a, %b : (tensor<i32>, tensor<17xf32>, tensor<17xf32>) -> (tensor<i32>, tensor<17xf32>, tensor<17xf32>) cond {
    %ci = ge.data {parent_index = 0 : i64} : tensor<i32>
    %ca = ge.data {parent_index = 1 : i64} : tensor<17xf32>
    %cb = ge.data {parent_index = 2 : i64} : tensor<17xf32>
    %n = ge.const {value = dense<5> : tensor<i32>} : tensor<i32>
    %go = ge.sub %n, %ci : (tensor<i32>, tensor<i32>) -> tensor<i32>
    ge.netoutput %go : tensor<i32>
  } body {
    %bi = ge.data {parent_index = 0 : i64} : tensor<i32>
    %ba = ge.data {parent_index = 1 : i64} : tensor<17xf32>
    %bb = ge.data {parent_index = 2 : i64} : tensor<17xf32>
    %one = ge.const {value = dense<1> : tensor<i32>} : tensor<i32>
    %next = ge.add %bi, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %sum = ge.add %ba, %bb : (tensor<17xf32>, tensor<17xf32>) -> tensor<17xf32>
    ge.netoutput %next, %bb, %sum : tensor<i32>, tensor<17xf32>, tensor<17xf32>
  }
  ge.netoutput %r#0, %r#1, %r#2 : tensor<i32>, tensor<17xf32>, tensor<17xf32>
}

// -----

// A ge.if (on i - 1) inside a ge.while body: nested scf regions.

// CHECK-LABEL: func.func @nested(
// CHECK:         scf.while () : () -> () {
// CHECK:         } do {
// CHECK:           scf.if
// CHECK:           } else {
// CHECK:           scf.yield
ge.graph @nested {
  %i = ge.data {index = 0 : i64, name = "i"} : tensor<i32>
  %x = ge.data {index = 1 : i64, name = "x"} : tensor<3x3xf32>
  %r:2 = ge.while %i, %x : (tensor<i32>, tensor<3x3xf32>) -> (tensor<i32>, tensor<3x3xf32>) cond {
    %ci = ge.data {parent_index = 0 : i64} : tensor<i32>
    %cx = ge.data {parent_index = 1 : i64} : tensor<3x3xf32>
    %n = ge.const {value = dense<4> : tensor<i32>} : tensor<i32>
    %go = ge.sub %n, %ci : (tensor<i32>, tensor<i32>) -> tensor<i32>
    ge.netoutput %go : tensor<i32>
  } body {
    %bi = ge.data {parent_index = 0 : i64} : tensor<i32>
    %bx = ge.data {parent_index = 1 : i64} : tensor<3x3xf32>
    %one = ge.const {value = dense<1> : tensor<i32>} : tensor<i32>
    %next = ge.add %bi, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %odd = ge.sub %bi, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %y = ge.if %odd, %bx : (tensor<i32>, tensor<3x3xf32>) -> tensor<3x3xf32> then {
      %a = ge.data {parent_index = 1 : i64} : tensor<3x3xf32>
      %b = ge.tanh %a : tensor<3x3xf32> -> tensor<3x3xf32>
      ge.netoutput %b : tensor<3x3xf32>
    } else {
      %a = ge.data {parent_index = 1 : i64} : tensor<3x3xf32>
      %b = ge.add %a, %a : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
      ge.netoutput %b : tensor<3x3xf32>
    }
    ge.netoutput %next, %y : tensor<i32>, tensor<3x3xf32>
  }
  ge.netoutput %r#1 : tensor<3x3xf32>
}

// -----

// A while whose body holds a convolution on NC1HWC0 / FRACTAL_Z: the loop
// variable stays in its storage layout (1x3x6x6x8, C = 17 padded) between
// iterations.

// CHECK-LABEL: func.func @while_conv(
// CHECK:         memref.alloc() : memref<i32>
// CHECK-NEXT:    %[[V:.*]] = memref.alloc() : memref<1x3x6x6x8xf32>
// CHECK:         scf.while () : () -> () {
// CHECK:         } do {
// CHECK:           affine.load %{{.*}} : memref<1x3x8x8x8xf32>
// CHECK:           affine.store %{{.*}}, %[[V]]
ge.graph @while_conv {
  %i = ge.data {index = 0 : i64, name = "i"} : tensor<i32>
  %x0 = ge.data {index = 1 : i64, name = "x"} : tensor<1x17x6x6xf32, #ge.layout<NCHW>>
  %x = ge.transdata %x0 {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x6x6xf32, #ge.layout<NCHW>> -> tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
  %r:2 = ge.while %i, %x : (tensor<i32>, tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>>) -> (tensor<i32>, tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>>) cond {
    %ci = ge.data {parent_index = 0 : i64} : tensor<i32>
    %cx = ge.data {parent_index = 1 : i64} : tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
    %n = ge.const {value = dense<5> : tensor<i32>} : tensor<i32>
    %go = ge.sub %n, %ci : (tensor<i32>, tensor<i32>) -> tensor<i32>
    ge.netoutput %go : tensor<i32>
  } body {
    %bi = ge.data {parent_index = 0 : i64} : tensor<i32>
    %bx = ge.data {parent_index = 1 : i64} : tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
    %one = ge.const {value = dense<1> : tensor<i32>} : tensor<i32>
    %next = ge.add %bi, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %w0 = ge.const {value = dense<0.01> : tensor<17x17x3x3xf32>} : tensor<17x17x3x3xf32, #ge.layout<NCHW>>
    %w = ge.transdata %w0 {src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_Z>} : tensor<17x17x3x3xf32, #ge.layout<NCHW>> -> tensor<17x17x3x3xf32, #ge.layout<NCHW, FRACTAL_Z>>
    %y = ge.conv2d %bx, %w {pads = array<i64: 1, 1, 1, 1>, data_format = "NCHW"} : (tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<17x17x3x3xf32, #ge.layout<NCHW, FRACTAL_Z>>) -> tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
    %z = ge.tanh %y : tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
    ge.netoutput %next, %z : tensor<i32>, tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
  }
  %out = ge.transdata %r#1 {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x6x6xf32, #ge.layout<NCHW>>
  ge.netoutput %out : tensor<1x17x6x6xf32, #ge.layout<NCHW>>
}
