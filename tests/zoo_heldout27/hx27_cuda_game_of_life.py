"""CUDA C: one generation of Conway's Game of Life on a toroidal H x W board (cellular automata). A cell is alive
when its value is > 0.5; the output is 1.0 / 0.0. Each 16 x 16 block stages its tile plus a one-cell halo
(18 x 18, wrapped at the board's edges) in shared memory, synchronizes, then counts the eight neighbours from
shared memory. size_t offsets.
"""

import torch

import kcheck

BUG_CLASS = 'missing-syncthreads'

SOURCE = r"""
#define TILE 16
extern "C" __global__ void life_step(const float* __restrict__ board, float* __restrict__ out, int h, int w) {
    __shared__ unsigned char cell[TILE + 2][TILE + 2];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x0 = blockIdx.x * TILE - 1, y0 = blockIdx.y * TILE - 1;
    for (int i = ty * TILE + tx; i < (TILE + 2) * (TILE + 2); i += TILE * TILE) {
        int ly = i / (TILE + 2), lx = i % (TILE + 2);
        int gy = (y0 + ly + h) % h, gx = (x0 + lx + w) % w;
        cell[ly][lx] = board[(size_t)gy * w + gx] > 0.5f;
    }
    const int x = blockIdx.x * TILE + tx, y = blockIdx.y * TILE + ty;
    if (x >= w || y >= h) return;
    int n = 0;
    for (int dy = 0; dy < 3; ++dy)
        for (int dx = 0; dx < 3; ++dx)
            if (dy != 1 || dx != 1) n += cell[ty + dy][tx + dx];
    const int alive = cell[ty + 1][tx + 1];
    out[(size_t)y * w + x] = (n == 3 || (alive && n == 2)) ? 1.0f : 0.0f;
}
"""

life_kernel = kcheck.CudaKernel(SOURCE, "life_step", grid=lambda b, o, h, w: ((w + 15) // 16, (h + 15) // 16),
                                block=(16, 16))


def life_step(board: torch.Tensor, out: torch.Tensor) -> None:
    h, w = board.shape
    if h and w:
        life_kernel(board.contiguous(), out, h, w)


def reference(board: torch.Tensor) -> torch.Tensor:
    alive = (board > 0.5).to(torch.int64)
    n = sum(torch.roll(alive, (dy, dx), (0, 1)) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx)
    return ((n == 3) | ((alive == 1) & (n == 2))).to(board.dtype)


spec = kcheck.Spec(
    name="hx27_cuda_game_of_life",
    kernel=life_step,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="board")],
    outputs=[kcheck.Tensor("H", "W")],
    dims={"H": kcheck.Dim(nominal=96, large=False, real=()), "W": kcheck.Dim(nominal=128, large=False, real=())},
    dtypes=["fp32"],
)
