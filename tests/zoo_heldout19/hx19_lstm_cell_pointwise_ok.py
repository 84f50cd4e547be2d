"""The pointwise half of an LSTM cell (after the two GEMMs): with the pre-activation gates [B, 4H] laid out as
(input, forget, cell, output) chunks of H and the previous cell state c_prev [B, H],

    c = sigmoid(f) * c_prev + sigmoid(i) * tanh(g),   h = sigmoid(o) * tanh(c)

returns (h, c). Each program handles BLOCK_B x BLOCK_H of the state; strides honoured, fp32 math."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def _sigmoid(v):
    return 1.0 / (1.0 + tl.exp(-v))


@triton.jit
def _tanh(v):
    # sign(v) (1 - e) / (1 + e) with e = exp(-2|v|); its Taylor series below |v| = 0.1, where 1 - e cancels
    a = tl.abs(v)
    e = tl.exp(-2.0 * a)
    t = (1.0 - e) / (1.0 + e)
    t = tl.where(v < 0, -t, t)
    v2 = v * v
    series = v * (1.0 + v2 * (-1.0 / 3.0 + v2 * (2.0 / 15.0 + v2 * (-17.0 / 315.0))))
    return tl.where(a < 0.1, series, t)


@triton.jit
def lstm_pointwise_kernel(gates_ptr, c_prev_ptr, h_ptr, c_ptr, B, H, sgb, sgh, scb, sch, shb, shh, sob, soh,
                          BLOCK_B: tl.constexpr, BLOCK_H: tl.constexpr):
    b = tl.program_id(0).to(tl.int64) * BLOCK_B + tl.arange(0, BLOCK_B).to(tl.int64)
    j = tl.program_id(1).to(tl.int64) * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    mask = (b < B)[:, None] & (j < H)[None, :]
    g_row = gates_ptr + b[:, None] * sgb
    gi = tl.load(g_row + j[None, :] * sgh, mask=mask, other=0.0).to(tl.float32)
    gf = tl.load(g_row + (j + H)[None, :] * sgh, mask=mask, other=0.0).to(tl.float32)
    gg = tl.load(g_row + (j + 2 * H)[None, :] * sgh, mask=mask, other=0.0).to(tl.float32)
    go = tl.load(g_row + (j + 3 * H)[None, :] * sgh, mask=mask, other=0.0).to(tl.float32)
    c_prev = tl.load(c_prev_ptr + b[:, None] * scb + j[None, :] * sch, mask=mask, other=0.0).to(tl.float32)
    c = _sigmoid(gf) * c_prev + _sigmoid(gi) * _tanh(gg)
    h = _sigmoid(go) * _tanh(c)
    tl.store(c_ptr + b[:, None] * sob + j[None, :] * soh, c.to(c_ptr.dtype.element_ty), mask=mask)
    tl.store(h_ptr + b[:, None] * shb + j[None, :] * shh, h.to(h_ptr.dtype.element_ty), mask=mask)


def lstm_pointwise(gates: torch.Tensor, c_prev: torch.Tensor, BLOCK_B: int = 8,
                   BLOCK_H: int = 128) -> tuple[torch.Tensor, torch.Tensor]:
    B, H = c_prev.shape
    h = torch.empty((B, H), dtype=c_prev.dtype, device=c_prev.device)
    c = torch.empty((B, H), dtype=c_prev.dtype, device=c_prev.device)
    if B and H:
        grid = (triton.cdiv(B, BLOCK_B), triton.cdiv(H, BLOCK_H))
        lstm_pointwise_kernel[grid](gates, c_prev, h, c, B, H, gates.stride(0), gates.stride(1), c_prev.stride(0),
                                    c_prev.stride(1), h.stride(0), h.stride(1), c.stride(0), c.stride(1),
                                    BLOCK_B=BLOCK_B, BLOCK_H=BLOCK_H)
    return h, c


def reference(gates: torch.Tensor, c_prev: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    i, f, g, o = gates.chunk(4, dim=-1)
    c = torch.sigmoid(f) * c_prev + torch.sigmoid(i) * torch.tanh(g)
    return torch.sigmoid(o) * torch.tanh(c), c


def gate_preacts(ctx: kcheck.CaseContext) -> torch.Tensor:
    B, H = ctx.dims["B"], ctx.dims["H"]
    return (2.0 * torch.randn((B, 4 * H), generator=ctx.generator)).to(ctx.dtype).to(ctx.device)


spec = kcheck.Spec(
    name="hx19_lstm_cell_pointwise_ok",
    kernel=lstm_pointwise,
    reference=reference,
    inputs=[kcheck.Custom(gate_preacts, name="gates"), kcheck.Tensor("B", "H", name="c_prev")],
    dims={"B": kcheck.Dim(nominal=32, max=2048), "H": kcheck.Dim(nominal=256, max=4096)},
    configs=[{"BLOCK_B": 8, "BLOCK_H": 128}, {"BLOCK_B": 1, "BLOCK_H": 512}],
)
