"""Planted-bug Numba CUDA kernels: one module per bug, each with a module-level ``spec`` that kcheck must fail on a
machine without a GPU, in Numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1`` set before numba is imported)."""
