"""CUDA C one-level Haar wavelet transform along rows (audio / image denoising front ends): x is (M, H, 2), pairs
(x[2i], x[2i+1]) of each row; approx = (a + b) / sqrt(2), detail = (a - b) / sqrt(2), each (M, H). A flat grid of
256-thread blocks over the M*H pairs, size_t indices, fp32."""

import torch

import kcheck

BUG_CLASS = None

SOURCE = r"""
extern "C" __global__ void haar_dwt(const float* __restrict__ x, float* __restrict__ approx,
                                    float* __restrict__ detail, int rows, int half) {
    const float r = 0.70710678118654752f;
    const size_t pairs = (size_t)rows * (size_t)half;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < pairs;
         i += (size_t)gridDim.x * blockDim.x) {
        const float a = x[2 * i], b = x[2 * i + 1];
        approx[i] = (a + b) * r;
        detail[i] = (a - b) * r;
    }
}
"""

haar_kernel = kcheck.CudaKernel(SOURCE, "haar_dwt", grid=lambda x, a, d, m, h: (min((m * h + 255) // 256, 65536),),
                                block=(256,))


def haar_dwt(x: torch.Tensor, approx: torch.Tensor, detail: torch.Tensor) -> None:
    M, H, _ = x.shape
    if M * H == 0:
        return
    a = approx if approx.is_contiguous() else torch.empty((M, H), dtype=x.dtype, device=x.device)
    d = detail if detail.is_contiguous() else torch.empty((M, H), dtype=x.dtype, device=x.device)
    haar_kernel(x.contiguous(), a, d, M, H)
    if a is not approx:
        approx.copy_(a)
    if d is not detail:
        detail.copy_(d)


def reference(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    a, b = x[..., 0], x[..., 1]
    return (a + b) / 2**0.5, (a - b) / 2**0.5


spec = kcheck.Spec(
    name="hx16_cuda_haar_dwt_ok",
    kernel=haar_dwt,
    reference=reference,
    inputs=[kcheck.Tensor("M", "H", 2, name="signal")],
    outputs=[kcheck.Tensor("M", "H"), kcheck.Tensor("M", "H")],
    dims={"M": kcheck.Dim(nominal=64), "H": kcheck.Dim(nominal=512)},
    dtypes=["fp32"],
)
