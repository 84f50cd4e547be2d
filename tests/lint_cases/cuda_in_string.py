"""A CUDA C source held in a Python string, as kcheck's CUDA C kernels hold theirs: kcheck.lint reads it as CUDA C
and reports the lines of this file (tests/test_lint.py). Never compiled."""

SOURCE = r"""
extern "C" __global__ void scale_rows(const float* x, float* y, int rows, int cols) {
    int row = blockIdx.x;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        y[row * cols + c] = 2.0f * x[(size_t)row * cols + c];  // EXPECT: int32-index-overflow
    }
    if (threadIdx.x < 32) {
        __syncthreads();  // EXPECT: divergent-barrier
    }
}
"""

NOT_CUDA = "__global__ mentioned in prose, with no kernel"
