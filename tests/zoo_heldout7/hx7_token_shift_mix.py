"""Token shift (RWKV time-mix interpolation) over one sequence of T tokens with C channels:

    out[t, c] = mu[c] * x[t, c] + (1 - mu[c]) * x[t - 1, c],    x[-1, :] = 0

mu is a learned per-channel mixing coefficient. Each program handles a BLOCK_T x BLOCK_C tile and reads the
previous token's row for it (zero above the first token)."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def token_shift_kernel(x_ptr, mu_ptr, out_ptr, T, C, stride_xt, stride_ot,
                       BLOCK_T: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_t = tl.program_id(0)
    pid_c = tl.program_id(1)
    rows = (pid_t * BLOCK_T + tl.arange(0, BLOCK_T)).to(tl.int64)
    cols = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    row_mask = rows < T
    col_mask = cols < C
    mask = row_mask[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xt + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    prev_mask = mask & (rows >= 1)[:, None]
    x_prev = tl.load(x_ptr + (rows - 1)[:, None] * stride_xt + cols[None, :], mask=prev_mask, other=0.0)
    mu = tl.load(mu_ptr + rows, mask=row_mask, other=0.0).to(tl.float32)
    out = mu[:, None] * x + (1.0 - mu[:, None]) * x_prev.to(tl.float32)
    tl.store(out_ptr + rows[:, None] * stride_ot + cols[None, :], out.to(out_ptr.dtype.element_ty), mask=mask)


def token_shift_mix(x, mu, BLOCK_T=16, BLOCK_C=64):
    T, C = x.shape
    out = torch.empty((T, C), dtype=x.dtype, device=x.device)
    if T == 0 or C == 0:
        return out
    if x.stride(1) != 1:
        x = x.contiguous()
    grid = (triton.cdiv(T, BLOCK_T), triton.cdiv(C, BLOCK_C))
    token_shift_kernel[grid](x, mu.contiguous(), out, T, C, x.stride(0), out.stride(0),
                             BLOCK_T=BLOCK_T, BLOCK_C=BLOCK_C)
    return out


def reference(x, mu):
    prev = torch.nn.functional.pad(x, (0, 0, 1, 0))[:-1]
    return mu * x + (1 - mu) * prev


def _mu(ctx):
    return ctx.rand(ctx.dims["C"]).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx7_token_shift_mix",
    kernel=token_shift_mix,
    reference=reference,
    inputs=[kcheck.Tensor("T", "C", name="x"), kcheck.Custom(_mu, name="mu", dims=("C",))],
    dims={"T": kcheck.Dim(nominal=64), "C": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK_T": 16, "BLOCK_C": 64}, {"BLOCK_T": 32, "BLOCK_C": 128}],
)

BUG_CLASS = "wrong-axis"
