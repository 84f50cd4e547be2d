"""Row-wise cosine similarity between paired embeddings, plain torch (the fallback path of a retrieval kernel):
sim[m] = <a[m], b[m]> / (||a[m]|| ||b[m]||), computed in fp32 and returned in the input dtype."""

import torch

import kcheck


def cosine_similarity(a, b):
    a32, b32 = a.float(), b.float()
    dot = (a32 * b32).sum(-1)
    sim = dot / (a32.norm(dim=-1) * b32.norm(dim=-1))
    return sim.to(a.dtype)


spec = kcheck.Spec(
    name="hx2_torch_cosine",
    kernel=cosine_similarity,
    reference=lambda a, b: torch.nn.functional.cosine_similarity(a, b, dim=-1),
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=256)},
    reduce=["N"],
)

BUG_CLASS = "division-by-zero"
