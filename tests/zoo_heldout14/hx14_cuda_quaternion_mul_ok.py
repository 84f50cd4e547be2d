"""CUDA C batched Hamilton product of quaternions (w, x, y, z), composing rotations in pose estimation, IMU
integration and 3-D graphics pipelines:

    w = w1 w2 - x1 x2 - y1 y2 - z1 z2        x = w1 x2 + x1 w2 + y1 z2 - z1 y2
    y = w1 y2 - x1 z2 + y1 w2 + z1 x2        z = w1 z2 + x1 y2 - y1 x2 + z1 w2

q1, q2 and the output are [N, 4]. One thread per quaternion pair, 256 threads per block, scalar loads of the four
components of each (the launcher hands the kernel contiguous inputs), size_t offsets.
"""

import torch

import kcheck

BUG_CLASS = None

SOURCE = r"""
extern "C" __global__ void quat_mul(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
                                    int n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)n) return;
    const float* p = a + 4 * i;
    const float* q = b + 4 * i;
    const float w1 = p[0], x1 = p[1], y1 = p[2], z1 = p[3];
    const float w2 = q[0], x2 = q[1], y2 = q[2], z2 = q[3];
    float* o = out + 4 * i;
    o[0] = w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2;
    o[1] = w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2;
    o[2] = w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2;
    o[3] = w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2;
}
"""

quat_kernel = kcheck.CudaKernel(SOURCE, "quat_mul", grid=lambda a, b, out, n: ((n + 255) // 256,), block=(256,))


def quat_mul(q1: torch.Tensor, q2: torch.Tensor, out: torch.Tensor) -> None:
    n = q1.shape[0]
    if n:
        quat_kernel(q1.contiguous(), q2.contiguous(), out, n)


def reference(q1: torch.Tensor, q2: torch.Tensor) -> torch.Tensor:
    w1, x1, y1, z1 = q1.unbind(-1)
    w2, x2, y2, z2 = q2.unbind(-1)
    return torch.stack([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                        w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                        w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                        w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2], dim=-1)


spec = kcheck.Spec(
    name="hx14_cuda_quaternion_mul_ok",
    kernel=quat_mul,
    reference=reference,
    inputs=[kcheck.Tensor("N", 4, name="q1"), kcheck.Tensor("N", 4, name="q2")],
    outputs=[kcheck.Tensor("N", 4)],
    dims={"N": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
)
