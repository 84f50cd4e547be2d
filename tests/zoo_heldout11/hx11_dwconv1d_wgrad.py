"""Weight gradient of a depthwise 1-D convolution ('same' padding, K = 5 taps):
dw[c, k] = sum over b, l of grad_out[b, c, l] * x[b, c, l + k - 2] (zero outside the sequence).

Programs split the sequence: each computes the five tap sums of one (channel, chunk of L), looping over the batch,
in fp32 and adds them atomically into an fp32 [C, 5] buffer, which is cast to the input dtype at the end.

Planted bug (uninitialized-accumulator): the fp32 buffer the programs atomically add into is allocated with
torch.empty, not torch.zeros: the sums start from whatever the memory held.
"""

import torch
import triton
import triton.language as tl

import kcheck

K = 5
PAD = 2


@triton.jit
def dwconv_wgrad_kernel(x_ptr, g_ptr, dw_ptr, B, L, sxb, sxc, sxl, sgb, sgc, sgl, n_chunks,
                        K: tl.constexpr, PAD: tl.constexpr, KP: tl.constexpr, BLOCK_L: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    chunk = pid % n_chunks
    c = pid // n_chunks
    ls = chunk * BLOCK_L + tl.arange(0, BLOCK_L)
    ks = tl.arange(0, KP)
    lmask = ls < L
    src = ls[:, None] + ks[None, :] - PAD
    xmask = lmask[:, None] & (ks[None, :] < K) & (src >= 0) & (src < L)
    acc = tl.zeros([BLOCK_L, KP], dtype=tl.float32)
    for b in range(0, B):
        g = tl.load(g_ptr + b * sgb + c * sgc + ls * sgl, mask=lmask, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + b * sxb + c * sxc + src * sxl, mask=xmask, other=0.0).to(tl.float32)
        acc += g[:, None] * x
    part = tl.sum(acc, axis=0)
    tl.atomic_add(dw_ptr + c * K + ks, part, mask=ks < K)


def dwconv1d_wgrad(x, grad_out, BLOCK_L=128):
    B, C, L = x.shape
    dw = torch.empty((C, K), dtype=torch.float32, device=x.device)
    if B and C and L:
        n_chunks = triton.cdiv(L, BLOCK_L)
        dwconv_wgrad_kernel[(C * n_chunks,)](
            x, grad_out, dw, B, L, x.stride(0), x.stride(1), x.stride(2),
            grad_out.stride(0), grad_out.stride(1), grad_out.stride(2), n_chunks,
            K=K, PAD=PAD, KP=triton.next_power_of_2(K), BLOCK_L=BLOCK_L)
    return dw.to(x.dtype)


def reference(x, grad_out):
    windows = torch.nn.functional.pad(x, (PAD, PAD)).unfold(-1, K, 1)  # [B, C, L, K]
    return (grad_out.unsqueeze(-1) * windows).sum(dim=(0, 2))


spec = kcheck.Spec(
    name="hx11_dwconv1d_wgrad",
    kernel=dwconv1d_wgrad,
    reference=reference,
    inputs=[kcheck.Tensor("B", "C", "L", name="x"), kcheck.Tensor("B", "C", "L", name="grad_out")],
    dims={"B": kcheck.Dim(nominal=4, max=16), "C": kcheck.Dim(nominal=48), "L": kcheck.Dim(nominal=200)},
    output_shapes=[("C", K)],
    reduce=["B", "L"],
    configs=[{"BLOCK_L": 128}, {"BLOCK_L": 32}],
)

BUG_CLASS = "uninitialized-accumulator"  # atomics into a torch.empty buffer
