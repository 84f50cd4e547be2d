"""2-D tiles through block pointers: ``copy_checked`` bounds-checks both dimensions (correct); ``copy_unchecked``
checks rows only, so the tiles of the last column block read past the end of each row (the lane is a 2-D index)."""

import torch
import triton
import triton.language as tl


@triton.jit
def tile_copy_kernel(x_ptr, out_ptr, M, N, stride_m, stride_n, BM: tl.constexpr, BN: tl.constexpr,
                     CHECK_COLS: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    src = tl.make_block_ptr(x_ptr, (M, N), (stride_m, stride_n), (pm * BM, pn * BN), (BM, BN), (1, 0))
    dst = tl.make_block_ptr(out_ptr, (M, N), (N, 1), (pm * BM, pn * BN), (BM, BN), (1, 0))
    if CHECK_COLS:
        tile = tl.load(src, boundary_check=(0, 1))
    else:
        tile = tl.load(src, boundary_check=(0,))  # BUG: columns past N are read
    tl.store(dst, tile, boundary_check=(0, 1))


def tile_copy(x: torch.Tensor, check_cols: bool, BM: int = 16, BN: int = 16) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype)
    tile_copy_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](x, out, M, N, x.stride(0), x.stride(1), BM=BM, BN=BN,
                                                              CHECK_COLS=check_cols)
    return out
