"""The command-line tools (thin drivers over the packages).

Importing the package sets what must be set before NumPy loads its BLAS:
OpenBLAS's idle threads sleep after a product instead of spinning for about
2**28 cycles (`OPENBLAS_THREAD_TIMEOUT`, read once, when the library loads;
unless set). Spinning, they took the cores of the C kernels' threads and of
everything else: ResNet-50 at 2 threads on 2 busy cores ran in 1235 ms
against 454 ms asleep, and 410 against 367 ms at 1 thread. In a process
that loaded NumPy first, `ge_runtime.engines.threads.set_threads` restarts
them with the same timeout (`BLAS_THREAD_TIMEOUT`).
"""

import os

os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")  # threads.BLAS_THREAD_TIMEOUT
