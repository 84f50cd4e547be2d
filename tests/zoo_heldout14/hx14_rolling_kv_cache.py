"""Rolling (sliding-window) KV cache append, as in Mistral's rotating buffer or StreamingLLM without the sinks:
the cache holds the last S positions, one row per position with the keys of every head side by side ([S, E],
E = heads * head_dim); appending T new positions shifts the cache up by T rows in place and writes the new rows at
the end:

    cache[:S - T] = cache[T:];   cache[S - T:] = new        (T < S)
    cache[:] = new[T - S:]                                 (T >= S)

Grid: row blocks of S; each program takes BLOCK_S destination rows and copies, E in BLOCK_E chunks, either a
shifted cache row or a new row into each.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"


@triton.jit
def roll_append_kernel(src_ptr, new_ptr, cache_ptr, S, T, E, stride_ss, stride_se, stride_nt, stride_ne,
                       stride_cs, stride_ce, BLOCK_S: tl.constexpr, BLOCK_E: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_S + tl.arange(0, BLOCK_S)
    ok = rows < S
    keep = S - T                     # rows [0, keep) come from the old cache, the rest from new
    from_old = ok & (rows < keep)
    from_new = ok & (rows >= keep)
    old_rows = rows + T
    new_rows = rows - keep
    for e0 in range(0, E, BLOCK_E):
        cols = e0 + tl.arange(0, BLOCK_E)
        e_ok = (cols < E)[None, :]
        a = tl.load(src_ptr + old_rows[:, None] * stride_ss + cols[None, :] * stride_se,
                    mask=from_old[:, None] & e_ok, other=0.0)
        b = tl.load(new_ptr + new_rows[:, None] * stride_nt + cols[None, :] * stride_ne,
                    mask=from_new[:, None] & e_ok, other=0.0)
        v = tl.where(from_old[:, None], a, b)
        tl.store(cache_ptr + rows[:, None] * stride_cs + cols[None, :] * stride_ce, v, mask=ok[:, None] & e_ok)


def rolling_append_(cache: torch.Tensor, new: torch.Tensor, n_new: int = 8, BLOCK_S: int = 16,
                    BLOCK_E: int = 64) -> torch.Tensor:
    S, E = cache.shape
    T = new.shape[0]
    if S == 0 or E == 0 or T == 0:
        return cache
    src = cache
    roll_append_kernel[(triton.cdiv(S, BLOCK_S),)](src, new, cache, S, T, E, *src.stride(), *new.stride(),
                                                   *cache.stride(), BLOCK_S=BLOCK_S, BLOCK_E=BLOCK_E)
    return cache


def reference(cache: torch.Tensor, new: torch.Tensor, n_new: int = 8) -> torch.Tensor:
    S = cache.shape[0]
    return torch.cat([cache, new], dim=0)[-S:] if S else cache.clone()


def _new_rows(ctx: kcheck.CaseContext) -> torch.Tensor:
    """This step's keys: [n_new, E] (one token when decoding, a chunk when prefilling in chunks)."""
    return ctx.randn(ctx.params["n_new"], ctx.dims["E"])


spec = kcheck.Spec(
    name="hx14_rolling_kv_cache",
    kernel=rolling_append_,
    reference=reference,
    inputs=[kcheck.Tensor("S", "E", mutated=True, name="cache"), kcheck.Custom(_new_rows, name="new")],
    dims={"S": kcheck.Dim(nominal=256), "E": kcheck.Dim(nominal=256)},
    params={"n_new": [8, 1, 200]},
    configs=[{"BLOCK_S": 16, "BLOCK_E": 64}, {"BLOCK_S": 64, "BLOCK_E": 32}],
)
