// RUN: ge-opt %s --opinfo %S/relu_fallback.json --opinfo %S/../inputs/aicpu_tile.json --mark-fallback --partition-engines -o %t.mlir 2>&1 | filecheck %s --check-prefix=LOG
// RUN: ge-run %t.mlir --graph static --random-inputs --check --trace --output-dir %t.static | filecheck %s --check-prefix=STATIC
// RUN: python -c "import numpy as np; np.save('%t.x.npy', np.linspace(-1, 1, 7 * 17, dtype=np.float32).reshape(7, 17))"
// RUN: ge-run %t.mlir --graph dynamic --input x=%t.x.npy --check --trace --output-dir %t.dynamic | filecheck %s --check-prefix=DYNAMIC
// RUN: not ge-run %t.mlir --graph static --random-inputs --reference --trace --output-dir %t.ref 2>&1 | filecheck %s --check-prefix=REFERENCE

// With relu_fallback.json, ge.relu is support_aclnn and ge.tanh aclnn_only
// (ge.softmax is support_aclnn in the builtin library).

// LOG:      relu_0, setting fallback attribute support_aclnn (sunk with the graph while shapes are static;
// LOG-NEXT: tanh_0, setting fallback attribute aclnn_only (always a host single-op call;
// LOG-NEXT: softmax_0, setting fallback attribute support_aclnn
// LOG-NEXT: relu_0, setting fallback attribute
// LOG-NEXT: softmax_0, setting fallback attribute

// Static shapes: support_aclnn ops sink with the graph; the aclnn_only op
// splits it into two sunk parts around its fallback.
// STATIC:      schedule: sink scheduling: 2 sunk part(s), 1 fallback op(s)
// STATIC-NEXT: schedule: part 0: 1 ops, jit
// STATIC-NEXT: schedule: part 1: 1 ops, jit
// STATIC-NEXT: trace: relu_0 ge.relu AICore sunk (part 0, jit) -> 2x17
// STATIC-NEXT: trace: tanh_0 ge.tanh AICore fallback (TanhOp.numpy_kernel, NumPy kernel library) -> 2x17
// STATIC-NEXT: trace: softmax_0 ge.softmax AICore sunk (part 1, jit) -> 2x17
// STATIC-NEXT: check: JIT vs reference on 2 ops, 1 host fallback ops through the NumPy kernel library
// STATIC-NEXT: check output_0: {{.*}}: ok
ge.graph @static {
  %x = ge.data {index = 0 : i64, name = "x"} : tensor<2x17xf32>
  %r = ge.relu %x : tensor<2x17xf32> -> tensor<2x17xf32>
  %t = ge.tanh %r : tensor<2x17xf32> -> tensor<2x17xf32>
  %s = ge.softmax %t : tensor<2x17xf32> -> tensor<2x17xf32>
  ge.netoutput %s : tensor<2x17xf32>
}

// A dynamic batch: host scheduling, op by op; support_aclnn ops fall back,
// the AI CPU tile (inputs/aicpu_tile.json) runs a kernel compiled for the concrete shape.
// DYNAMIC:      schedule: host scheduling (dynamic dims): op by op
// DYNAMIC-NEXT: trace: relu_0 ge.relu AICore fallback (ReluOp.numpy_kernel, NumPy kernel library) -> 7x17
// DYNAMIC-NEXT: trace: tile_0 ge.tile AICPU host kernel (jit kernel for 7x17) -> 7x34
// DYNAMIC-NEXT: trace: softmax_0 ge.softmax AICore fallback (SoftmaxOp.numpy_kernel, NumPy kernel library) -> 7x34
// DYNAMIC-NEXT: check: JIT vs reference on 1 ops, 2 host fallback ops through the NumPy kernel library
// DYNAMIC-NEXT: check output_0: {{.*}}: ok
// DYNAMIC-NEXT: output_0.npy: shape [7, 34], dtype float32
ge.graph @dynamic {
  %x = ge.data {index = 0 : i64, name = "x"} : tensor<?x17xf32>
  %r = ge.relu %x : tensor<?x17xf32> -> tensor<?x17xf32>
  %t = ge.tile %r {multiples = array<i64: 1, 2>} : tensor<?x17xf32> -> tensor<?x34xf32>
  %s = ge.softmax %t : tensor<?x34xf32> -> tensor<?x34xf32>
  ge.netoutput %s : tensor<?x34xf32>
}

// REFERENCE: ge-run: error: --trace shows the scheduled run; drop --reference
