"""Gradient clipping by global norm for one flat parameter, plain torch (the reference path of a fused optimizer):
g <- g * min(1, max_norm / ||g||_2), the norm in fp32, the result in g's dtype."""

import torch

import kcheck

MAX_NORM = 1.0


def clip_grad(g):
    flat = g.view(-1).float()
    norm = flat.norm()
    scale = torch.clamp(MAX_NORM / (norm + 1e-6), max=1.0)
    return (flat * scale).view(g.shape).to(g.dtype)


def reference(g):
    norm = g.norm()
    return g * torch.clamp(MAX_NORM / (norm + 1e-6), max=1.0)


spec = kcheck.Spec(
    name="hx2_torch_clip_grad",
    kernel=clip_grad,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=128)},
    reduce=["M", "N"],
)

BUG_CLASS = "kernel-raises"
