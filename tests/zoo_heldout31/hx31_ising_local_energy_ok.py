"""Local energy of each site of a 2-D Ising-type lattice with continuous spins and periodic boundaries:
E[i, j] = -J s[i, j] (s[i-1, j] + s[i+1, j] + s[i, j-1] + s[i, j+1]) - h s[i, j], the quantity a Metropolis sweep
compares. A 2-D grid of [BLOCK_H, BLOCK_W] tiles reads the four neighbours with wrapped indices; fp32 arithmetic,
int64 offsets, strides honoured."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def ising_energy_kernel(s_ptr, out_ptr, H, W, J, h, s_sh, s_sw, s_oh, s_ow,
                        BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    pid_h = tl.program_id(0).to(tl.int64)
    pid_w = tl.program_id(1).to(tl.int64)
    i = pid_h * BLOCK_H + tl.arange(0, BLOCK_H)
    j = pid_w * BLOCK_W + tl.arange(0, BLOCK_W)
    mask = (i < H)[:, None] & (j < W)[None, :]
    up = tl.where(i == 0, H - 1, i - 1)
    down = tl.where(i == H - 1, 0, i + 1)
    left = tl.where(j == 0, W - 1, j - 1)
    right = tl.where(j == W - 1, 0, j + 1)
    s = tl.load(s_ptr + i[:, None] * s_sh + j[None, :] * s_sw, mask=mask, other=0.0).to(tl.float32)
    su = tl.load(s_ptr + up[:, None] * s_sh + j[None, :] * s_sw, mask=mask, other=0.0).to(tl.float32)
    sd = tl.load(s_ptr + down[:, None] * s_sh + j[None, :] * s_sw, mask=mask, other=0.0).to(tl.float32)
    sl = tl.load(s_ptr + i[:, None] * s_sh + left[None, :] * s_sw, mask=mask, other=0.0).to(tl.float32)
    sr = tl.load(s_ptr + i[:, None] * s_sh + right[None, :] * s_sw, mask=mask, other=0.0).to(tl.float32)
    e = -J * s * ((su + sd) + (sl + sr)) - h * s
    tl.store(out_ptr + i[:, None] * s_oh + j[None, :] * s_ow, e.to(out_ptr.dtype.element_ty), mask=mask)


def ising_local_energy(s: torch.Tensor, J: float, h: float, BLOCK_H: int = 16, BLOCK_W: int = 64) -> torch.Tensor:
    H, W = s.shape
    out = torch.empty((H, W), dtype=s.dtype, device=s.device)
    if H == 0 or W == 0:
        return out
    grid = (triton.cdiv(H, BLOCK_H), triton.cdiv(W, BLOCK_W))
    ising_energy_kernel[grid](s, out, H, W, J, h, s.stride(0), s.stride(1), out.stride(0), out.stride(1),
                              BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return out


def reference(s: torch.Tensor, J: float, h: float) -> torch.Tensor:
    nb = (torch.roll(s, 1, 0) + torch.roll(s, -1, 0)) + (torch.roll(s, 1, 1) + torch.roll(s, -1, 1))
    return -J * s * nb - h * s


spec = kcheck.Spec(
    name="hx31_ising_local_energy_ok",
    kernel=ising_local_energy,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="spins"), kcheck.Scalar(1.0, name="J"), kcheck.Scalar(0.2, name="h")],
    # grid axis 1 (column tiles) is limited to 65535 blocks: W stays out of the past-2**31 cases
    dims={"H": kcheck.Dim(nominal=48), "W": kcheck.Dim(nominal=200, large=False)},
    configs=[{"BLOCK_H": 16, "BLOCK_W": 64}, {"BLOCK_H": 4, "BLOCK_W": 32}],
)
