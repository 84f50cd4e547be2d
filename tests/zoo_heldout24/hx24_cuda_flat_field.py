"""CUDA C flat-field correction of raw sensor frames with row pitch: out = (raw - dark) * gain, with the dark frame and
the gain map (mean(flat - dark) / (flat - dark), precomputed) the size of the frame [H, W]. One block of 128 threads
per row (rows on grid.x), each tensor addressed by its own row pitch (stride(0), elements); rows are read and written
as float4 when every buffer's base is 16-byte aligned and every row pitch a multiple of 4 elements (each row then
starts on a 16-byte boundary), the last W % 4 columns one by one; otherwise a scalar kernel runs.
"""

import torch

import kcheck

BUG_CLASS = "misaligned-access"

SOURCE = r"""
extern "C" __global__ void flat_field_vec4(const float* __restrict__ raw, const float* __restrict__ dark,
                                           const float* __restrict__ gain, float* __restrict__ out, int w,
                                           int p_raw, int p_dark, int p_gain, int p_out) {
    const size_t r = blockIdx.x;
    const float* rr = raw + r * (size_t)p_raw;
    const float* dr = dark + r * (size_t)p_dark;
    const float* gr = gain + r * (size_t)p_gain;
    float* orow = out + r * (size_t)p_out;
    const int nv = w / 4;
    for (int j = threadIdx.x; j < nv; j += blockDim.x) {
        const float4 a = reinterpret_cast<const float4*>(rr)[j];
        const float4 d = reinterpret_cast<const float4*>(dr)[j];
        const float4 g = reinterpret_cast<const float4*>(gr)[j];
        float4 o;
        o.x = (a.x - d.x) * g.x;
        o.y = (a.y - d.y) * g.y;
        o.z = (a.z - d.z) * g.z;
        o.w = (a.w - d.w) * g.w;
        reinterpret_cast<float4*>(orow)[j] = o;
    }
    for (int j = nv * 4 + threadIdx.x; j < w; j += blockDim.x) orow[j] = (rr[j] - dr[j]) * gr[j];
}

extern "C" __global__ void flat_field(const float* __restrict__ raw, const float* __restrict__ dark,
                                      const float* __restrict__ gain, float* __restrict__ out, int w,
                                      int p_raw, int p_dark, int p_gain, int p_out) {
    const size_t r = blockIdx.x;
    for (int j = threadIdx.x; j < w; j += blockDim.x)
        out[r * (size_t)p_out + j] = (raw[r * (size_t)p_raw + j] - dark[r * (size_t)p_dark + j]) *
                                     gain[r * (size_t)p_gain + j];
}
"""


def _rows(raw, dark, gain, out, w, p_raw, p_dark, p_gain, p_out):
    return (out.shape[0],)


flat_field_vec4 = kcheck.CudaKernel(SOURCE, "flat_field_vec4", grid=_rows, block=(128,))
flat_field_scalar = kcheck.CudaKernel(SOURCE, "flat_field", grid=_rows, block=(128,))


def _rowmajor(t: torch.Tensor) -> torch.Tensor:
    return t if t.stride(1) == 1 else t.contiguous()


def flat_field(raw: torch.Tensor, dark: torch.Tensor, gain: torch.Tensor) -> torch.Tensor:
    h, w = raw.shape
    raw, dark, gain = _rowmajor(raw), _rowmajor(dark), _rowmajor(gain)
    out = torch.empty((h, w), dtype=raw.dtype, device=raw.device)
    if h == 0 or w == 0:
        return out
    bufs = (raw, dark, gain, out)
    vec = all(t.data_ptr() % 16 == 0 for t in bufs)
    kernel = flat_field_vec4 if vec else flat_field_scalar
    kernel(raw, dark, gain, out, w, raw.stride(0), dark.stride(0), gain.stride(0), out.stride(0))
    return out


def reference(raw: torch.Tensor, dark: torch.Tensor, gain: torch.Tensor) -> torch.Tensor:
    return (raw - dark) * gain


spec = kcheck.Spec(
    name="hx24_cuda_flat_field",
    kernel=flat_field,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="raw"), kcheck.Tensor("H", "W", name="dark"),
            kcheck.Tensor("H", "W", name="gain")],
    dims={"H": kcheck.Dim(nominal=64), "W": kcheck.Dim(nominal=256, large=False)},  # int w: rows grow instead
    dtypes=["fp32"],
)
