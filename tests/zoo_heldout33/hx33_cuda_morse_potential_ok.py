"""CUDA C Morse pair potential of bond lengths r (signed displacements along the bond are taken by magnitude)::

    V(r) = D (1 - exp(-a (|r| - r_e)))^2

with well depth D, width a and equilibrium length r_e as modes; 1 - exp(-z) is computed as -expm1f(-z), accurate
near the minimum where z is small. One thread per bond, size_t offsets. Runs on a GPU through CuPy; without one
kcheck compiles it for sm_90 and skips its cases."""

import torch

import kcheck

BUG_CLASS = None

SOURCE = r"""
extern "C" __global__ void morse_potential(const float* __restrict__ r, float* __restrict__ out, int n, float depth,
                                           float width, float r_eq) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)n) return;
    const float q = -expm1f(-width * (fabsf(r[i]) - r_eq));
    out[i] = depth * q * q;
}
"""

morse_kernel = kcheck.CudaKernel(SOURCE, "morse_potential", grid=lambda r, o, n, d, a, re: ((n + 255) // 256,),
                                 block=(256,))


def morse_potential(r: torch.Tensor, out: torch.Tensor, depth: float = 4.746, width: float = 1.943,
                    r_eq: float = 0.741) -> None:
    n = r.shape[0]
    if n:
        morse_kernel(r.contiguous(), out, n, float(depth), float(width), float(r_eq))


def reference(r: torch.Tensor, depth: float = 4.746, width: float = 1.943, r_eq: float = 0.741) -> torch.Tensor:
    q = -torch.expm1(-width * (r.abs() - r_eq))
    return depth * q * q


spec = kcheck.Spec(
    name="cuda_morse_potential",
    kernel=morse_potential,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="bond_length")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
    params={"depth": [4.746, 1.0], "width": [1.943], "r_eq": [0.741, 1.5]},
)
