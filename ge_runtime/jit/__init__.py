"""The JIT: loop-level MLIR (func/memref/affine/scf/arith/math) -> Python
over NumPy arrays and C kernels.

The folders follow the pipeline:

- `analysis/`: what a loop nest computes and when running it over its whole
  iteration grid is exact (dependence, injectivity, bounds, the axes each
  value varies over); shared by every emitter, writes no code;
- `schedule/`: the decisions: what runs each nest (a C kernel, BLAS, NumPy
  calls: `kernels`) and what the generated function hoists out of a call
  (`hoist`);
- `emit/`: the code generators, siblings over the analysis: NumPy calls
  (`numpy_nest`), scalar Python (`scalar`, with the `CodeEnv` every
  emitter writes into), native kernels (`native`: the loops written out,
  its language a subclass's: `c`);
- `ops.py`: the one table of arith/math semantics every emitter and the
  interpreter render;
- `cache/`: the generated code on disk; `runtime.py`: what generated code
  calls (`strided_view`, `pack`, ...);
- `compiler.py`: a function's whole source, compiled and bound
  (`compile_module`, `compile_graph`, `GraphRunner`); `interpreter.py`: xDSL's
  interpreter with the ops it lacks, the oracle of the tests;
- what runs compiled code, and imports no xDSL (a served run loads only
  these): `function.py`, the compiled function as it runs (called, bound,
  loaded from the code cache); `c_runtime.py`, which kernels run and the C
  kernels' libraries (compiled or found, loaded, their threads); `ops.py`'s
  table and `runtime.py`.
"""
