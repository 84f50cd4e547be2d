"""CUDA C piecewise-linear interpolation in a table sampled on a uniform grid (np.interp on x0 + j * h, j = 0..K-1,
h = (x1 - x0) / (K - 1)): the query's grid coordinate t = (q - x0) / h is clamped to [0, K-1], so queries outside the
grid take the end values; cell j = min(floor(t), K-2), weight t - j. NaN queries give NaN. One thread per query."""

import torch

import kcheck

BUG_CLASS = "kernel-crash"

SOURCE = r"""
extern "C" __global__ void grid_interp(const float* __restrict__ q, const float* __restrict__ tab,
                                       float* __restrict__ out, float x0, float inv_h, int k, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float v = q[i];
    if (isnan(v)) {
        out[i] = v;
        return;
    }
    const float t = fminf((v - x0) * inv_h, (float)(k - 1));
    const int j = min((int)t, k - 2);
    const float f = t - (float)j;
    out[i] = tab[j] + f * (tab[j + 1] - tab[j]);
}
"""

interp_kernel = kcheck.CudaKernel(SOURCE, "grid_interp", grid=lambda q, tab, out, x0, inv_h, k, n: ((n + 255) // 256,),
                                  block=(256,))


def grid_interp(queries: torch.Tensor, table: torch.Tensor, out: torch.Tensor, x0: float = -3.0,
                x1: float = 3.0) -> None:
    n, k = queries.numel(), table.numel()
    if n:
        interp_kernel(queries.contiguous(), table.contiguous(), out, x0, (k - 1) / (x1 - x0), k, n)


def reference(queries: torch.Tensor, table: torch.Tensor, x0: float = -3.0, x1: float = 3.0) -> torch.Tensor:
    k = table.shape[0]
    t = ((queries - x0) * ((k - 1) / (x1 - x0))).clamp(0.0, k - 1)
    t = torch.where(torch.isnan(t), torch.zeros_like(t), t)
    j = t.floor().clamp(max=k - 2).long()
    f = t - j
    y = table[j] + f * (table[j + 1] - table[j])
    return torch.where(torch.isnan(queries), queries, y)


def smooth_table(ctx: kcheck.CaseContext) -> torch.Tensor:
    """A tabulated smooth response: a random offset and amplitude times tanh over the table's nodes."""
    k = ctx.dims["K"]
    off, amp = ctx.randn(2, dtype=torch.float32).tolist()
    nodes = torch.linspace(-3.0, 3.0, k, dtype=torch.float32)
    return (off + amp * torch.tanh(nodes)).to(ctx.device)


spec = kcheck.Spec(
    name="hx30_cuda_uniform_grid_interp",
    kernel=grid_interp,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="queries"), kcheck.Custom(smooth_table, name="table", dims=("K",))],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=5000, max=2**31 - 1), "K": kcheck.Dim(nominal=64, min=2, large=False)},
    dtypes=["fp32"],
    params={"x0": [-3.0, 0.0], "x1": [3.0]},
)
