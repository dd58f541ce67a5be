// RUN: ge-opt %s -p convert-ge-to-loops | filecheck %s
// RUN: ge-opt %s -p plan-memory,convert-ge-to-loops | filecheck %s --check-prefix=PLAN
// RUN: ge-opt %s -p convert-ge-to-loops -o %t.loops.mlir
// RUN: iree-opt %t.loops.mlir -o /dev/null
// RUN: python -c "import numpy as np; np.save('%t.x.npy', np.random.default_rng(5).standard_normal((1, 16, 4, 4)).astype(np.float32))"
// RUN: ge-run %s --graph engines --input x=%t.x.npy --check --trace --output-dir %t.graph | filecheck %s --check-prefix=GRAPH
// RUN: ge-run %t.loops.mlir --graph engines --input 0=%t.x.npy --output-dir %t.loops
// RUN: python -c "import numpy as np; [np.testing.assert_array_equal(np.load('%t.graph/output_%%d.npy' %% i), np.load('%t.loops/output_%%d.npy' %% i)) for i in range(3)]"
// RUN: ge-opt %s -p plan-memory,convert-ge-to-loops -o %t.planned.mlir
// RUN: ge-run %t.planned.mlir --graph engines --input 0=%t.x.npy --output-dir %t.planned
// RUN: python -c "import numpy as np; [np.testing.assert_array_equal(np.load('%t.graph/output_%%d.npy' %% i), np.load('%t.planned/output_%%d.npy' %% i)) for i in range(3)]"

// A ge.partitioned_call (an engine subgraph) becomes a private function and
// a func.call: arguments are the call's operands, then the weights its
// subgraph reads, then the arena of a planned graph. Inline constants are
// read in the callee. The caller frees what the callee allocated after its
// last use; an output that is an argument passed through is the caller's own
// buffer, and a value returned twice is one buffer.

// GRAPH: check: JIT vs reference on 4 ops
// GRAPH-NOT: reference:
// GRAPH: output_2: max abs error 0.000e+00

// CHECK-LABEL: func.func @engines(
// CHECK-SAME:      %[[X:[0-9]+]]: memref<1x16x4x4xf32> {ge.input = 0 : i64, ge.name = "x"})
// CHECK:         %[[R:[0-9]+]], %{{[0-9]+}} = func.call @engines_aicore0(%[[X]]) : (memref<1x16x4x4xf32>) -> (memref<1x16x4x4xf32>, memref<1x16x4x4xf32>)
// CHECK-NEXT:    %[[T:[0-9]+]] = func.call @engines_aicpu1(%[[R]]) : (memref<1x16x4x4xf32>) -> memref<1x16x8x8xf32>
// CHECK-NEXT:    memref.dealloc %[[R]]
// CHECK-NEXT:    %[[E:[0-9]+]], %{{[0-9]+}} = func.call @engines_aicore2(%[[T]])
// CHECK-NEXT:    memref.dealloc %[[T]]
// CHECK-NEXT:    func.return %[[E]], %[[E]], %[[X]] : memref<1x16x8x8xf32>, memref<1x16x8x8xf32>, memref<1x16x4x4xf32>

// CHECK-LABEL: func.func private @engines_aicore0(
// CHECK-SAME:      %[[A:[0-9]+]]: memref<1x16x4x4xf32>) -> (memref<1x16x4x4xf32>, memref<1x16x4x4xf32>)
// CHECK:         memref.get_global @engines_const0 : memref<16x1x1xf32>
// CHECK:         arith.addf
// CHECK:         arith.maximumf
// CHECK:         func.return %{{[0-9]+}}, %[[A]]
// CHECK-LABEL: func.func private @engines_aicpu1(
// CHECK-LABEL: func.func private @engines_aicore2(
// CHECK:         math.exp
// CHECK:         func.return %[[O:[0-9]+]], %[[O]]

// PLAN-LABEL: func.func @engines(
// PLAN:         %[[ARENA:[0-9]+]] = memref.alloc() : memref<{{[0-9]+}}xi8>
// PLAN-NEXT:    %[[R:[0-9]+]], %{{[0-9]+}} = func.call @engines_aicore0(%{{[0-9]+}}, %[[ARENA]])
// PLAN-NEXT:    %[[T:[0-9]+]] = func.call @engines_aicpu1(%[[R]], %[[ARENA]])
// PLAN-NEXT:    %[[E:[0-9]+]], %{{[0-9]+}} = func.call @engines_aicore2(%[[T]], %[[ARENA]])
// PLAN-NOT:     memref.dealloc
// PLAN:         func.return
// PLAN-LABEL: func.func private @engines_aicore0(
// PLAN-SAME:      %{{[0-9]+}}: memref<1x16x4x4xf32>, %[[A:[0-9]+]]: memref<{{[0-9]+}}xi8>)
// PLAN:         memref.view %[[A]]
// PLAN-NOT:     memref.alloc()
// PLAN:         func.return
ge.graph @engines {
  %x = ge.data {index = 0 : i64, name = "x"} : tensor<1x16x4x4xf32>
  %r, %same = ge.partitioned_call %x {engine = "AICore"} : (tensor<1x16x4x4xf32>) -> (tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>) {
    %a = ge.data {parent_index = 0 : i64} : tensor<1x16x4x4xf32>
    %c = ge.const {value = dense<[[[-1.0]], [[-0.5]], [[0.0]], [[0.5]], [[1.0]], [[1.5]], [[2.0]], [[2.5]], [[-1.0]], [[-0.5]], [[0.0]], [[0.5]], [[1.0]], [[1.5]], [[2.0]], [[2.5]]]> : tensor<16x1x1xf32>} : tensor<16x1x1xf32>
    %s = ge.add %a, %c : (tensor<1x16x4x4xf32>, tensor<16x1x1xf32>) -> tensor<1x16x4x4xf32>
    %p = ge.relu %s : tensor<1x16x4x4xf32> -> tensor<1x16x4x4xf32>
    ge.netoutput %p, %a : tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>
  }
  %t = ge.partitioned_call %r {engine = "AICPU"} : (tensor<1x16x4x4xf32>) -> tensor<1x16x8x8xf32> {
    %a = ge.data {parent_index = 0 : i64} : tensor<1x16x4x4xf32>
    %b = ge.tile %a {multiples = array<i64: 1, 1, 2, 2>} : tensor<1x16x4x4xf32> -> tensor<1x16x8x8xf32>
    ge.netoutput %b : tensor<1x16x8x8xf32>
  }
  %e, %twice = ge.partitioned_call %t {engine = "AICore"} : (tensor<1x16x8x8xf32>) -> (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) {
    %a = ge.data {parent_index = 0 : i64} : tensor<1x16x8x8xf32>
    %b = ge.exp %a : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
    ge.netoutput %b, %b : tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>
  }
  ge.netoutput %e, %twice, %same : tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>, tensor<1x16x4x4xf32>
}

// Weights a subgraph reads are passed to its function; a subgraph holding
// its input in another layout (NC1HWC0) copies it in; a call inside a call
// is a call of the callee.

// CHECK-LABEL: func.func @weights_and_layouts(
// CHECK-SAME:      %[[X:[0-9]+]]: memref<1x17x3x3xf32> {ge.input = 0 : i64}, %[[W:[0-9]+]]: memref<17xf32> {ge.weight = "bias"})
// CHECK:         %[[Y:[0-9]+]] = func.call @weights_and_layouts_aicore0(%[[X]], %[[W]]) : (memref<1x17x3x3xf32>, memref<17xf32>) -> memref<1x17x3x3xf32>
// CHECK-LABEL: func.func private @weights_and_layouts_aicore0(
// CHECK-SAME:      %[[A:[0-9]+]]: memref<1x17x3x3xf32>, %[[B:[0-9]+]]: memref<17xf32>)
// CHECK:         %[[BLOCKED:[0-9]+]] = memref.alloc() : memref<1x3x3x3x8xf32>
// CHECK:         %[[Z:[0-9]+]] = func.call @weights_and_layouts_call1(%[[BLOCKED]], %[[B]])
// CHECK:         memref.dealloc %[[Z]]
// CHECK:         memref.dealloc %[[BLOCKED]]
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func private @weights_and_layouts_call1(
// CHECK-SAME:      %{{[0-9]+}}: memref<1x3x3x3x8xf32>, %{{[0-9]+}}: memref<17xf32>) -> memref<1x3x3x3x8xf32>
// CHECK:         arith.addf
ge.graph @weights_and_layouts {
  %x = ge.data {index = 0 : i64} : tensor<1x17x3x3xf32, #ge.layout<NCHW>>
  %y = ge.partitioned_call %x {engine = "AICore"} : (tensor<1x17x3x3xf32, #ge.layout<NCHW>>) -> tensor<1x17x3x3xf32, #ge.layout<NCHW>> {
    %a = ge.data {parent_index = 0 : i64} : tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
    %z = ge.partitioned_call %a : (tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>) -> tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>> {
      %i = ge.data {parent_index = 0 : i64} : tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
      %w = ge.const {value = #ge.external<"bias">} : tensor<17xf32, #ge.layout<NCHW>>
      %o = ge.bias_add %i, %w {data_format = "NCHW"} : (tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<17xf32, #ge.layout<NCHW>>) -> tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
      ge.netoutput %o : tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
    }
    %n = ge.transdata %z {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xf32, #ge.layout<NCHW>>
    ge.netoutput %n : tensor<1x17x3x3xf32, #ge.layout<NCHW>>
  }
  ge.netoutput %y : tensor<1x17x3x3xf32, #ge.layout<NCHW>>
}
