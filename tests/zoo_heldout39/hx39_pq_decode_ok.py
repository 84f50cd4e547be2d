"""Product-quantization decode (vector search / KV-cache compression): rebuild vectors from their PQ codes.

A vector of G * D components is split into G sub-vectors; sub-vector g of token t was replaced by the index
codes[t, g] of its nearest centroid in codebook g (C centroids of D components each), and its norm by a scalar
scale[t]. Decoding gathers the centroids back:

    out[t, g, :] = scale[t] * codebooks[g, codes[t, g], :]

Grid: (token blocks, sub-spaces); each program gathers BLOCK_T centroid rows of one codebook.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def pq_decode_kernel(codes_ptr, cb_ptr, scale_ptr, out_ptr, T, D, s_ct, s_cg, s_bg, s_bc, s_bd, s_s,
                     s_ot, s_og, s_od, BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    toks = tl.program_id(0).to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T).to(tl.int64)
    g = tl.program_id(1).to(tl.int64)
    d = tl.arange(0, BLOCK_D).to(tl.int64)
    t_mask = toks < T
    mask = t_mask[:, None] & (d < D)[None, :]
    idx = tl.load(codes_ptr + toks * s_ct + g * s_cg, mask=t_mask, other=0).to(tl.int64)
    cent = tl.load(cb_ptr + g * s_bg + idx[:, None] * s_bc + d[None, :] * s_bd, mask=mask, other=0.0)
    s = tl.load(scale_ptr + toks * s_s, mask=t_mask, other=0.0).to(tl.float32)
    y = cent.to(tl.float32) * s[:, None]
    tl.store(out_ptr + toks[:, None] * s_ot + g * s_og + d[None, :] * s_od, y.to(out_ptr.dtype.element_ty), mask=mask)


def pq_decode(codes: torch.Tensor, codebooks: torch.Tensor, scale: torch.Tensor, BLOCK_T: int = 64) -> torch.Tensor:
    T, G = codes.shape
    _, C, D = codebooks.shape
    out = torch.empty((T, G, D), dtype=codebooks.dtype, device=codebooks.device)
    if out.numel() == 0:
        return out
    block_d = triton.next_power_of_2(D)
    pq_decode_kernel[(triton.cdiv(T, BLOCK_T), G)](codes, codebooks, scale, out, T, D, codes.stride(0),
                                                   codes.stride(1), codebooks.stride(0), codebooks.stride(1),
                                                   codebooks.stride(2), scale.stride(0), out.stride(0),
                                                   out.stride(1), out.stride(2), BLOCK_T=BLOCK_T, BLOCK_D=block_d)
    return out


def reference(codes: torch.Tensor, codebooks: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    G = codebooks.shape[0]
    g = torch.arange(G, device=codes.device)[None, :]
    return codebooks[g, codes] * scale[:, None, None]


spec = kcheck.Spec(
    name="hx39_pq_decode_ok",
    kernel=pq_decode,
    reference=reference,
    inputs=[kcheck.Index("T", "G", high="C", name="codes"), kcheck.Tensor("G", "C", "D", name="codebooks"),
            kcheck.Tensor("T", name="scale")],
    dims={"T": kcheck.Dim(nominal=300), "G": kcheck.Dim(nominal=8, max=8), "C": kcheck.Dim(nominal=256),
          "D": kcheck.Dim(nominal=16, max=32)},
    configs=[{"BLOCK_T": 64}, {"BLOCK_T": 16}],
)
