"""Planted-bug kernels: one module per bug class, each with a module-level ``spec`` that kcheck must fail.

Every bug looks right on a casual test (a power-of-two shape, randn data) and is caught by ``kcheck.check(spec)``.
Import with ``TRITON_INTERPRET=1`` set first when there is no GPU.
"""
