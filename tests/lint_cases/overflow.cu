// Cases for kcheck.lint's int32-index-overflow rule (tests/test_lint.py): every line marked EXPECT must be reported
// with that kind, and no other line. Compiles with nvcc; never run.
#include <cstddef>
#include <cstdint>
#define WIDTH 1024

// the seed's trap: a 32-bit global index times a runtime dimension
__global__ void rows_int(const float* a, float* out, int m, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= m) return;
    float s = 0.f;
    for (int j = 0; j < n; ++j) s += a[idx * n + j];  // EXPECT: int32-index-overflow
    out[idx] = s;  // a plain index of fewer than 2^31 elements is fine
}

// unsigned, through an index variable, and as pointer arithmetic
__global__ void rows_unsigned(const float* a, float* out, unsigned m, unsigned n) {
    unsigned row = blockIdx.y;
    unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned base = row * n;  // EXPECT: int32-index-overflow
    if (col < n && row < m) out[base + col] = a[base + col];
    const float* p = a + row * n;  // EXPECT: int32-index-overflow
    out[col] = p[col];
}

// widened after the product: still computed in 32 bits
__global__ void widen_after(float* a, int n) {
    int row = blockIdx.x;
    int64_t off = row * n;  // EXPECT: int32-index-overflow
    a[off + threadIdx.x] = 0.f;
    a[(size_t)(row * n) + 1] = 0.f;  // EXPECT: int32-index-overflow
}

// blockIdx straight into the subscript
__global__ void one_block_per_row(const float* x, float* y, int cols) {
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        y[blockIdx.x * cols + c] = x[c];  // EXPECT: int32-index-overflow
}

// ---- negatives ----

__global__ void wide_variables(float* a, int n) {
    size_t idx = blockIdx.x * blockDim.x + threadIdx.x;
    long long r = blockIdx.y;
    auto q = static_cast<int64_t>(blockIdx.z);
    a[idx * n] = 1.f;
    a[r * n + 1] = 1.f;
    a[q * n] = 1.f;
}

__global__ void cast_operand(float* a, int n, size_t ld) {
    int row = blockIdx.x;
    a[(size_t)row * n + threadIdx.x] = 0.f;
    a[(int64_t)row * n] = 0.f;
    a[static_cast<int64_t>(row) * n] = 0.f;
    a[row * (long long)n] = 0.f;
    a[1LL * row * n] = 0.f;
    a[row * ld] = 0.f;
}

template <int BLOCK>
__global__ void constant_products(float* a, int n) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    int j = blockIdx.x * WIDTH + threadIdx.x;
    int k = blockIdx.x * 256 + threadIdx.x;
    const int tile = 64;
    int l = blockIdx.x * tile;
    if (i < n) a[i] = a[j] + a[k] + a[l];
    a[i * 4] = 0.f;
    a[blockIdx.x * blockDim.x + threadIdx.x] = 0.f;
}

__global__ void local_memory(float* out, int n) {
    __shared__ float tile[32 * 33];
    extern __shared__ float dyn[];
    float* half = dyn + blockIdx.x * n;
    int row = blockIdx.x;
    tile[(row * n) % 1056] = 0.f;
    half[row * n] = 1.f;
    float regs[8];
    regs[row * n % 8] = 1.f;
    int t = threadIdx.x * n;  // the thread index alone is bounded by the block size
    out[t] = tile[0] + regs[0];
}

__global__ void not_an_index(float* out, int n) {
    int row = blockIdx.x;
    int count = row * n;
    out[0] = (float)count;
}

__global__ void scoped_counters(float* a, int n) {
    for (int i = blockIdx.x; i < n; i += gridDim.x) a[i] = 0.f;
    for (int i = 0; i < n; ++i) a[i * n] = 1.f;  // another i, not derived from blockIdx
}

__global__ void local_constants(float* a, int n) {
    int row = blockIdx.x;
    int vec = 4;
    a[row * vec] = 0.f;  // vec is only ever 4
    for (int j = 0; j < n; ++j) a[row * j] = 1.f;  // EXPECT: int32-index-overflow
}

__device__ float load_row(const float* a, int n) {
    int row = blockIdx.y;
    return a[row * n + threadIdx.x];  // EXPECT: int32-index-overflow
}
