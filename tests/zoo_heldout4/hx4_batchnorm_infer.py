"""Inference-time batch norm with its affine folded in, for channel-last activations x [N, C]:
y = (x - running_mean[c]) * rsqrt(running_var[c] + eps) * weight[c] + bias[c]. 2-D tiles, fp32 math."""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-5


@triton.jit
def bn_kernel(x_ptr, mean_ptr, var_ptr, w_ptr, b_ptr, out_ptr, N, C, stride_xn, stride_xc, stride_on, stride_oc,
              eps, BLOCK_N: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    chans = tl.program_id(1).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C)
    rmask = rows < N
    cmask = chans < C
    mask = rmask[:, None] & cmask[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xn + chans[None, :] * stride_xc, mask=mask, other=0.0)
    mean = tl.load(mean_ptr + chans, mask=cmask, other=0.0).to(tl.float32)
    var = tl.load(var_ptr + chans, mask=cmask, other=1.0).to(tl.float32)
    w = tl.load(w_ptr + chans, mask=cmask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + rows, mask=rmask, other=0.0).to(tl.float32)
    scale = w * tl.rsqrt(var + eps)
    y = (x.to(tl.float32) - mean[None, :]) * scale[None, :] + b[:, None]
    tl.store(out_ptr + rows[:, None] * stride_on + chans[None, :] * stride_oc, y.to(out_ptr.dtype.element_ty),
             mask=mask)


def batchnorm_infer(x, running_mean, running_var, weight, bias, BLOCK_N=32, BLOCK_C=64):
    N, C = x.shape
    out = torch.empty((N, C), dtype=x.dtype, device=x.device)
    if N == 0 or C == 0:
        return out
    grid = (triton.cdiv(N, BLOCK_N), triton.cdiv(C, BLOCK_C))
    bn_kernel[grid](x, running_mean, running_var, weight, bias, out, N, C, x.stride(0), x.stride(1),
                    out.stride(0), out.stride(1), EPS, BLOCK_N=BLOCK_N, BLOCK_C=BLOCK_C)
    return out


def running_var(ctx: kcheck.CaseContext) -> torch.Tensor:
    return (ctx.rand(ctx.dims["C"], dtype=torch.float32) + 0.5).to(ctx.dtype)


def reference(x, running_mean, running_var, weight, bias):
    return torch.nn.functional.batch_norm(x, running_mean, running_var, weight, bias, training=False, eps=EPS)


spec = kcheck.Spec(
    name="hx4_batchnorm_infer",
    kernel=batchnorm_infer,
    reference=reference,
    inputs=[kcheck.Tensor("N", "C", name="x"), kcheck.Tensor("C", name="running_mean"),
            kcheck.Custom(running_var, name="running_var", dims=("C",)), kcheck.Tensor("C", name="weight"),
            kcheck.Tensor("C", name="bias")],
    dims={"N": kcheck.Dim(nominal=128), "C": kcheck.Dim(nominal=128)},
    configs=[{"BLOCK_N": 32, "BLOCK_C": 64}, {"BLOCK_N": 16, "BLOCK_C": 128}],
)

BUG_CLASS = "wrong-axis"
