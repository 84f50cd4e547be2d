"""Matrix-factorization rating prediction (recommendation): pred[b] = <U[b], items[ids[b]]> + item_bias[ids[b]].
Factor dimensions are small (32 to 256), so each program takes BLOCK_B (user, item) pairs and walks the D factors
one at a time, reading factor d of its BLOCK_B user rows and of the item rows gathered by id (int64 offsets), and
accumulating the products."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"


@triton.jit
def mf_kernel(u_ptr, it_ptr, ids_ptr, bias_ptr, out_ptr, B, D, s_ub, s_ud, s_iv, s_id, BLOCK_B: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_B + tl.arange(0, BLOCK_B).to(tl.int64)
    row_ok = rows < B
    ids = tl.load(ids_ptr + rows, mask=row_ok, other=0).to(tl.int64)
    u_row = u_ptr + rows * s_ub
    i_row = it_ptr + ids * s_iv
    acc = tl.zeros([BLOCK_B], dtype=u_ptr.dtype.element_ty)
    for d in range(0, D):
        u = tl.load(u_row + d * s_ud, mask=row_ok, other=0.0)
        v = tl.load(i_row + d * s_id, mask=row_ok, other=0.0)
        acc += u * v
    bias = tl.load(bias_ptr + ids, mask=row_ok, other=0.0).to(tl.float32)
    tl.store(out_ptr + rows, (acc + bias).to(out_ptr.dtype.element_ty), mask=row_ok)


def mf_predict(users: torch.Tensor, items: torch.Tensor, ids: torch.Tensor, item_bias: torch.Tensor,
               BLOCK_B: int = 128) -> torch.Tensor:
    B, D = users.shape
    out = torch.empty((B,), dtype=users.dtype, device=users.device)
    if B:
        mf_kernel[(triton.cdiv(B, BLOCK_B),)](users, items, ids, item_bias, out, B, D, users.stride(0),
                                              users.stride(1), items.stride(0), items.stride(1), BLOCK_B=BLOCK_B)
    return out


def reference(users, items, ids, item_bias):
    return (users * items[ids]).sum(-1) + item_bias[ids]


spec = kcheck.Spec(
    name="hx16_mf_predict",
    kernel=mf_predict,
    reference=reference,
    inputs=[kcheck.Tensor("B", "D", name="users"), kcheck.Tensor("V", "D", name="items"),
            kcheck.Index("B", high="V", name="ids"), kcheck.Tensor("V", name="item_bias")],
    dims={"B": kcheck.Dim(nominal=256), "V": kcheck.Dim(nominal=512), "D": kcheck.Dim(nominal=128, real=(32, 256))},
    reduce=["D"],
    configs=[{"BLOCK_B": 128}, {"BLOCK_B": 16}],
)
