"""All-or-nothing traffic assignment, loading step (traffic engineering): every path segment t carries a flow of
vehicles vol[t] on the network link link[t]; the volume on each of the L links is the sum of the flows assigned to
it,

    volume[l] = sum over t with link[t] == l of vol[t]

A scatter-add: each program takes BLOCK segments and adds their flows into an fp32 link-volume buffer with
tl.atomic_add (segments of several programs share links); the buffer is returned in the flows' dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"


@triton.jit
def link_volume_kernel(vol_ptr, link_ptr, acc_ptr, T, s_vol, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < T
    v = tl.load(vol_ptr + offs * s_vol, mask=mask, other=0.0).to(tl.float32)
    link = tl.load(link_ptr + offs, mask=mask, other=0)
    tl.atomic_add(acc_ptr + link, v, mask=mask)


def link_volume_assignment(vol: torch.Tensor, link: torch.Tensor, n_links: int, BLOCK: int = 512) -> torch.Tensor:
    T = vol.shape[0]
    link = link.contiguous()
    acc = torch.empty((n_links,), dtype=torch.float32, device=vol.device)
    if T:
        link_volume_kernel[(triton.cdiv(T, BLOCK),)](vol, link, acc, T, vol.stride(0), BLOCK=BLOCK)
    return acc.to(vol.dtype)


def reference(vol: torch.Tensor, link: torch.Tensor, n_links: int) -> torch.Tensor:
    return torch.zeros((n_links,), dtype=vol.dtype, device=vol.device).index_add_(0, link, vol)


spec = kcheck.Spec(
    name="hx37_link_volume_assignment",
    kernel=link_volume_assignment,
    reference=reference,
    inputs=[kcheck.Tensor("T", name="flows"), kcheck.Index("T", high="L", name="links"),
            kcheck.Scalar(lambda d: d["L"], name="n_links")],
    dims={"T": kcheck.Dim(nominal=6000), "L": kcheck.Dim(nominal=300, min=1)},
    output_shapes=[("L",)],
    reduce=["T"],
    configs=[{"BLOCK": 512}, {"BLOCK": 128}],
)
