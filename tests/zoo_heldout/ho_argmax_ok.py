"""Row maximum and its index (greedy decoding over logits): values[m] = max_n x[m, n], index[m] = the first n
where it is reached. One program per row over BLOCK_N-wide chunks; values in the input dtype, indices int64."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None
GPU_ONLY = False


@triton.jit
def _argmax_kernel(x_ptr, val_ptr, idx_ptr, N, stride_m, stride_n, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    best_val = -float("inf")
    best_idx = 0
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + row * stride_m + cols.to(tl.int64) * stride_n, mask=cols < N,
                    other=-float("inf")).to(tl.float32)
        chunk_max = tl.max(x, axis=0)
        chunk_idx = start + tl.argmax(x, axis=0)
        better = chunk_max > best_val
        best_idx = tl.where(better, chunk_idx, best_idx)
        best_val = tl.where(better, chunk_max, best_val)
    tl.store(val_ptr + row, best_val.to(val_ptr.dtype.element_ty))
    tl.store(idx_ptr + row, best_idx.to(tl.int64))


def row_argmax(x: torch.Tensor, BLOCK_N: int = 1024) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = x.shape
    vals = torch.empty(M, dtype=x.dtype, device=x.device)
    idx = torch.empty(M, dtype=torch.int64, device=x.device)
    if M == 0:
        return vals, idx
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    _argmax_kernel[(M,)](x, vals, idx, N, x.stride(0), x.stride(1), BLOCK_N=block_n)
    return vals, idx


def reference(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return x.amax(dim=-1), x.argmax(dim=-1)


spec = kcheck.Spec(
    name="ho_argmax_ok",
    kernel=row_argmax,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=512, min=1, real=(2880, 32000))},
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "tiny", "constant", "large_mean"],
    configs=[{"BLOCK_N": 1024}, {"BLOCK_N": 128}],
)
