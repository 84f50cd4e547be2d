import kcheck

BUG_CLASS = "misaligned-access"

SOURCE = r"""
extern "C" __global__ void rms_apply(const float* __restrict__ x, const float* __restrict__ rstd,
                                     const float* __restrict__ w, float* __restrict__ out, int m, int n) {
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    float* orow = out + (size_t)row * (size_t)n;
    const float r = rstd[row];
    int n4 = 0;
    if (n >= 4) {
        n4 = n >> 2;
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        const float4* w4 = reinterpret_cast<const float4*>(w);
        float4* o4 = reinterpret_cast<float4*>(orow);
        for (int j = t; j < n4; j += blockDim.x) {
            float4 v = x4[j], g = w4[j];
            o4[j] = make_float4(v.x * r * g.x, v.y * r * g.y, v.z * r * g.z, v.w * r * g.w);
        }
    }
    for (int j = n4 * 4 + t; j < n; j += blockDim.x) orow[j] = xr[j] * r * w[j];
}
"""

rms_apply_kernel = kcheck.CudaKernel(SOURCE, "rms_apply", grid=lambda x, rstd, w, out, m, n: (m,), block=(128,))


def rms_apply(x, rstd, w, out):
    m, n = x.shape
    if m and n:
        rms_apply_kernel(x.contiguous(), rstd.contiguous(), w.contiguous(), out, m, n)


spec = kcheck.Spec(
    name="hx12_cuda_rms_apply_vec4",
    kernel=rms_apply,
    reference=lambda x, rstd, w: x * rstd[:, None] * w[None, :],
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", pattern="randn"), kcheck.Tensor("N", pattern="randn")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024, large=False)},
    dtypes=["fp32"],
)
