"""Blinn-Phong shading of surface points from their (unnormalized) normals [N, 3]: the normal is normalized
(scaled by its largest component first, so tiny and huge vectors keep their direction; a zero normal stays zero),
then I = ka + kd max(n.l, 0) + ks max(n.h, 0)^shininess with a fixed light direction l, view direction v and
half vector h = (l + v) / |l + v|. Two outputs: the intensity [N] and the unit normals [N, 3]. One program per
BLOCK points, coordinates as zero-padded 4-wide rows; max ignores NaN as the GPU's does; shininess is a mode."""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None

KA, KD, KS = 0.1, 0.7, 0.4
_L = (0.3, 0.5, 0.8)
_V = (0.0, 0.0, 1.0)
_LN = math.sqrt(sum(c * c for c in _L))
LIGHT = tuple(c / _LN for c in _L)
_H = tuple(a + b for a, b in zip(LIGHT, _V))
_HN = math.sqrt(sum(c * c for c in _H))
HALF = tuple(c / _HN for c in _H)


@triton.jit
def blinn_phong_kernel(n_ptr, i_ptr, u_ptr, N, shininess, lx, ly, lz, hx, hy, hz, ka, kd, ks,
                       s_nn, s_nc, s_i, s_un, s_uc, BLOCK: tl.constexpr):
    p = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    c = tl.arange(0, 4).to(tl.int64)
    p_mask = p < N
    mask = p_mask[:, None] & (c < 3)[None, :]
    nrm = tl.load(n_ptr + p[:, None] * s_nn + c[None, :] * s_nc, mask=mask, other=0.0).to(tl.float32)
    big = tl.max(tl.abs(nrm), axis=1)
    scaled = nrm / tl.where(big > 0, big, 1.0)[:, None]
    r = tl.sqrt(tl.sum(scaled * scaled, axis=1))
    unit = scaled / tl.where(r > 0, r, 1.0)[:, None]
    light = tl.where(c == 0, lx, tl.where(c == 1, ly, tl.where(c == 2, lz, 0.0)))
    half = tl.where(c == 0, hx, tl.where(c == 1, hy, tl.where(c == 2, hz, 0.0)))
    diffuse = tl.maximum(tl.sum(unit * light[None, :], axis=1), 0.0)
    ndoth = tl.maximum(tl.sum(unit * half[None, :], axis=1), 0.0)
    specular = tl.where(ndoth > 0, tl.exp(shininess * tl.log(ndoth)), 0.0)
    intensity = ka + kd * diffuse + ks * specular
    tl.store(i_ptr + p * s_i, intensity.to(i_ptr.dtype.element_ty), mask=p_mask)
    tl.store(u_ptr + p[:, None] * s_un + c[None, :] * s_uc, unit.to(u_ptr.dtype.element_ty), mask=mask)


def blinn_phong(normals, shininess=32.0, BLOCK=128):
    N = normals.shape[0]
    intensity = torch.empty((N,), dtype=normals.dtype, device=normals.device)
    unit = torch.empty((N, 3), dtype=normals.dtype, device=normals.device)
    if N:
        blinn_phong_kernel[(triton.cdiv(N, BLOCK),)](normals, intensity, unit, N, shininess, *LIGHT, *HALF, KA, KD, KS,
                                                      normals.stride(0), normals.stride(1), intensity.stride(0),
                                                      unit.stride(0), unit.stride(1), BLOCK=BLOCK)
    return intensity, unit


def reference(normals, shininess=32.0):
    big = torch.nan_to_num(normals.abs(), nan=0.0, posinf=float("inf")).amax(dim=1, keepdim=True)  # NaN ignored
    scaled = normals / torch.where(big > 0, big, torch.ones_like(big))
    r = scaled.norm(dim=1, keepdim=True)
    unit = scaled / torch.where(r > 0, r, torch.ones_like(r))
    light = torch.tensor(LIGHT, dtype=normals.dtype, device=normals.device)
    half = torch.tensor(HALF, dtype=normals.dtype, device=normals.device)
    zero = torch.zeros((), dtype=normals.dtype, device=normals.device)
    diffuse = torch.fmax(unit @ light, zero)
    specular = torch.fmax(unit @ half, zero) ** shininess
    return KA + KD * diffuse + KS * specular, unit


spec = kcheck.Spec(
    name="hx25_blinn_phong_ok",
    kernel=blinn_phong,
    reference=reference,
    inputs=[kcheck.Tensor("N", 3, name="normals")],
    params={"shininess": [32.0, 8.0]},
    dims={"N": kcheck.Dim(nominal=2000)},
    configs=[{"BLOCK": 128}, {"BLOCK": 32}],
)
