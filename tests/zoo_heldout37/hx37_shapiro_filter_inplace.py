"""One pass of the 2-D Shapiro filter, in place (ocean and atmosphere models, to damp grid-scale noise): the
separable 1-2-1 smoother applied along both axes,

    x[i, j] <- (1/16) sum_{di, dj in -1..1} w(di) w(dj) x[i + di, j + dj],     w(0) = 2, w(+-1) = 1

at every interior cell; the boundary rows and columns are left as they are. The update is in place on x, so the
launcher first takes a copy of the field for the neighbours to be read from (every program reads across its tile's
edges), then each program writes its BLOCK_H x BLOCK_W tile of x. fp32 arithmetic, int64 offsets, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"


@triton.jit
def shapiro_kernel(src_ptr, dst_ptr, H, W, s_sh, s_sw, s_dh, s_dw, BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    tiles_w = tl.cdiv(W, BLOCK_W)
    i = (pid // tiles_w) * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    j = (pid % tiles_w) * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    inner = ((i >= 1) & (i < H - 1))[:, None] & ((j >= 1) & (j < W - 1))[None, :]
    acc = tl.zeros([BLOCK_H, BLOCK_W], dtype=tl.float32)
    for di in tl.static_range(-1, 2):
        wi = 2.0 - di * di  # 1-2-1
        for dj in tl.static_range(-1, 2):
            wj = 2.0 - dj * dj
            v = tl.load(src_ptr + (i + di)[:, None] * s_sh + (j + dj)[None, :] * s_sw, mask=inner, other=0.0)
            acc += (wi * wj) * v.to(tl.float32)
    tl.store(dst_ptr + i[:, None] * s_dh + j[None, :] * s_dw, (acc * 0.0625).to(dst_ptr.dtype.element_ty),
             mask=inner)


def shapiro_filter_inplace(x: torch.Tensor, BLOCK_H: int = 32, BLOCK_W: int = 32) -> torch.Tensor:
    H, W = x.shape
    if H < 3 or W < 3:
        return x
    src = x
    grid = (triton.cdiv(H, BLOCK_H) * triton.cdiv(W, BLOCK_W),)
    shapiro_kernel[grid](src, x, H, W, src.stride(0), src.stride(1), x.stride(0), x.stride(1),
                         BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return x


def reference(x: torch.Tensor) -> torch.Tensor:
    y = x.clone()
    H, W = x.shape
    if H < 3 or W < 3:
        return y
    w = torch.tensor([1.0, 2.0, 1.0], dtype=x.dtype, device=x.device)
    acc = torch.zeros_like(x[1:-1, 1:-1])
    for a in range(3):
        for b in range(3):
            acc = acc + w[a] * w[b] * x[a:H - 2 + a, b:W - 2 + b]
    y[1:-1, 1:-1] = acc / 16.0
    return y


spec = kcheck.Spec(
    name="hx37_shapiro_filter_inplace",
    kernel=shapiro_filter_inplace,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="field", mutated=True)],
    dims={"H": kcheck.Dim(nominal=90), "W": kcheck.Dim(nominal=144)},
    configs=[{"BLOCK_H": 32, "BLOCK_W": 32}, {"BLOCK_H": 16, "BLOCK_W": 64}],
    properties=[kcheck.props.linear()],
)
