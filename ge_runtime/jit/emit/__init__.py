"""The JIT's code generators: NumPy calls, scalar Python, native kernels."""
