"""Ambisonic decoding: loudspeaker feeds from spherical-harmonic (B-format) signals (spatial audio).

feeds[s, t] = sum_c D[s, c] * b[c, t]
with D the S x C decoding matrix (C = (order + 1)^2 channels: 4, 9, 16, 25 ...) and b the C x T block of
ambisonic samples. A tiled GEMM: each program computes a [BLOCK_S, BLOCK_T] tile of feeds with tl.dot (IEEE fp32
for fp32 data), the channel dimension padded to a power of two of at least 16 as tl.dot needs.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"


@triton.jit
def ambisonic_decode_kernel(d_ptr, b_ptr, out_ptr, S, C, T, s_ds, s_dc, s_bc, s_bt, s_os, s_ot,
                            BLOCK_S: tl.constexpr, BLOCK_C: tl.constexpr, BLOCK_T: tl.constexpr):
    rs = tl.program_id(0).to(tl.int64) * BLOCK_S + tl.arange(0, BLOCK_S)
    rt = tl.program_id(1).to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T)
    rc = tl.arange(0, BLOCK_C).to(tl.int64)
    dec = tl.load(d_ptr + rs[:, None] * s_ds + rc[None, :] * s_dc, mask=(rs < S)[:, None] & (rc < C)[None, :],
                  other=0.0)
    sig = tl.load(b_ptr + rc[:, None] * s_bc + rt[None, :] * s_bt, mask=(rc < C)[:, None] & (rt < T)[None, :],
                  other=0.0)
    feeds = tl.dot(dec, sig, input_precision="ieee")
    tl.store(out_ptr + rs[:, None] * s_os + rt[None, :] * s_ot, feeds.to(out_ptr.dtype.element_ty),
             mask=(rs < S)[:, None] & (rt < T)[None, :])


def ambisonic_decode(decoder, bformat, BLOCK_S=16, BLOCK_T=64):
    S, C = decoder.shape
    T = bformat.shape[1]
    out = torch.empty((S, T), dtype=decoder.dtype, device=decoder.device)
    if S == 0 or T == 0:
        return out
    if C == 0:
        return out.zero_()
    block_c = max(16, C)
    grid = (triton.cdiv(S, BLOCK_S), triton.cdiv(T, BLOCK_T))
    ambisonic_decode_kernel[grid](decoder, bformat, out, S, C, T, decoder.stride(0), decoder.stride(1),
                                  bformat.stride(0), bformat.stride(1), out.stride(0), out.stride(1),
                                  BLOCK_S=BLOCK_S, BLOCK_C=block_c, BLOCK_T=BLOCK_T)
    return out


def reference(decoder, bformat):
    return decoder @ bformat


spec = kcheck.Spec(
    name="hx35_ambisonic_decode",
    kernel=ambisonic_decode,
    reference=reference,
    inputs=[kcheck.Tensor("S", "C", name="decoder"), kcheck.Tensor("C", "T", name="bformat")],
    dims={"S": kcheck.Dim(nominal=22), "C": kcheck.Dim(nominal=25, max=64, real=(4, 9, 16, 49)),
          "T": kcheck.Dim(nominal=512)},
    reduce=["C"],
    configs=[{"BLOCK_S": 16, "BLOCK_T": 64}, {"BLOCK_S": 32, "BLOCK_T": 32}],
    properties=[kcheck.props.linear(1)],
)
