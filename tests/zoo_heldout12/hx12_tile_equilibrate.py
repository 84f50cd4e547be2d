import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"


@triton.jit
def equilibrate_kernel(x_ptr, r_ptr, c_ptr, out_ptr, M, N, stride_xm, stride_xn, stride_om, stride_on,
                       BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    tile_m = pid // tiles_m
    tile_n = pid % tiles_m
    rows = tile_m * BM + tl.arange(0, BM).to(tl.int64)
    cols = tile_n * BN + tl.arange(0, BN).to(tl.int64)
    rmask = rows < M
    cmask = cols < N
    mask = rmask[:, None] & cmask[None, :] & (tile_m < tiles_m) & (tile_n < tiles_n)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(r_ptr + rows, mask=rmask, other=0.0).to(tl.float32)
    c = tl.load(c_ptr + cols, mask=cmask, other=0.0).to(tl.float32)
    y = x * r[:, None] * c[None, :]
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, y.to(out_ptr.dtype.element_ty),
             mask=mask)


def equilibrate(x, r, c, BM=32, BN=32):
    M, N = x.shape
    r, c = r.contiguous(), c.contiguous()
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
        equilibrate_kernel[grid](x, r, c, out, M, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                                 BM=BM, BN=BN)
    return out


spec = kcheck.Spec(
    name="hx12_tile_equilibrate",
    kernel=equilibrate,
    reference=lambda x, r, c: x * r[:, None] * c[None, :],
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", pattern="randn"), kcheck.Tensor("N", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=256)},
    configs=[{"BM": 32, "BN": 32}, {"BM": 16, "BN": 64}],
)
