"""CUDA C per-token rescale (dequantization with one scale per token): out[i, :] = x[i, :] * scale[i].
One block of 256 threads per row; the row is moved in float4 (16-byte) loads and stores, and the last n % 4
elements of the row, if any, one at a time. fp32, size_t row offsets. Runs on a GPU through CuPy; without one
kcheck compiles it for sm_90 and skips its cases."""


import kcheck

SOURCE = r"""
extern "C" __global__ void token_scale(const float* __restrict__ x, const float* __restrict__ scale,
                                       float* __restrict__ out, int m, int n) {
    const int row = blockIdx.x;
    const float s = scale[row];
    const float* xr = x + (size_t)row * (size_t)n;
    float* orow = out + (size_t)row * (size_t)n;
    const int n4 = n / 4;
    const float4* x4 = reinterpret_cast<const float4*>(xr);
    float4* o4 = reinterpret_cast<float4*>(orow);
    for (int i = threadIdx.x; i < n4; i += blockDim.x) {
        float4 v = x4[i];
        v.x *= s; v.y *= s; v.z *= s; v.w *= s;
        o4[i] = v;
    }
    for (int j = 4 * n4 + threadIdx.x; j < n; j += blockDim.x) orow[j] = xr[j] * s;
}
"""

token_scale_kernel = kcheck.CudaKernel(SOURCE, "token_scale", grid=lambda x, scale, out, m, n: (m,), block=(256,))


def token_scale(x, scale, out):
    m, n = x.shape
    if m and n:
        token_scale_kernel(x.contiguous(), scale.contiguous(), out, m, n)


def reference(x, scale):
    return x * scale[:, None]


spec = kcheck.Spec(
    name="hx7_cuda_token_scale_vec4",
    kernel=token_scale,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("M", name="scale")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
)

BUG_CLASS = "misaligned-access"
