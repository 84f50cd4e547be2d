"""GroupNorm in plain PyTorch (a hand-rolled module used where torch.nn.GroupNorm does not fit):
x (B, C, L) is split into G = 4 channel groups, each normalized over its channels and positions, then scaled and
shifted per channel. Statistics in fp32, output in the input dtype."""

import torch

import kcheck

BUG_CLASS = "cancellation"
GPU_ONLY = False

GROUPS = 4
EPS = 1e-5


def group_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    B, C, L = x.shape
    if x.numel() == 0:
        return torch.empty_like(x)
    xg = x.float().reshape(B, GROUPS, (C // GROUPS) * L)
    mean = xg.mean(dim=-1, keepdim=True)
    mean_sq = (xg * xg).mean(dim=-1, keepdim=True)
    var = (mean_sq - mean * mean).clamp_min(0.0)
    y = ((xg - mean) * torch.rsqrt(var + EPS)).reshape(B, C, L)
    y = y * weight.float()[None, :, None] + bias.float()[None, :, None]
    return y.to(x.dtype)


def reference(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    B, C, L = x.shape
    if x.numel() == 0:
        return x.clone()
    xg = x.reshape(B, GROUPS, (C // GROUPS) * L)
    mean = xg.mean(dim=-1, keepdim=True)
    var = xg.var(dim=-1, unbiased=False, keepdim=True)
    y = ((xg - mean) / torch.sqrt(var + EPS)).reshape(B, C, L)
    return y * weight[None, :, None] + bias[None, :, None]


spec = kcheck.Spec(
    name="ho_groupnorm_torch",
    kernel=group_norm,
    reference=reference,
    inputs=[kcheck.Tensor("B", "C", "L"), kcheck.Tensor("C", pattern="randn"), kcheck.Tensor("C", pattern="randn")],
    dims={"B": kcheck.Dim(nominal=4, real=()), "C": kcheck.Dim(nominal=32, min=4, multiple_of=4, real=(64,)),
          "L": kcheck.Dim(nominal=256, real=(1024,))},
    reduce=["L"],
)
