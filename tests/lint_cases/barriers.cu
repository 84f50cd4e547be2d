// Cases for kcheck.lint's divergent-barrier rule (tests/test_lint.py): every line marked EXPECT must be reported
// with that kind, and no other line. Compiles with nvcc; never run.

__global__ void branch_on_thread(float* out) {
    __shared__ float s[64];
    int t = threadIdx.x;
    if (t < 32) {
        s[t] = 1.f;
        __syncthreads();  // EXPECT: divergent-barrier
    } else {
        __syncthreads();  // EXPECT: divergent-barrier
    }
    out[t] = t < 16 ? s[t] : 0.f;
}

__global__ void through_variables(float* out, int n) {
    __shared__ float s[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool active = i < n;
    if (active) __syncthreads();  // EXPECT: divergent-barrier
    int flag = 0;
    if (threadIdx.x == 0) flag = 1;
    if (flag) {
        __syncthreads();  // EXPECT: divergent-barrier
    }
    switch (threadIdx.x & 1) {
        case 0:
            __syncthreads();  // EXPECT: divergent-barrier
            break;
        default:
            break;
    }
    out[i] = s[threadIdx.x];
}

__global__ void trip_count(const int* counts, float* out) {
    __shared__ float s[128];
    int cnt = counts[threadIdx.x];
    for (int k = 0; k < cnt; ++k) {
        s[threadIdx.x] = k;
        __syncthreads();  // EXPECT: divergent-barrier
    }
    int x = threadIdx.x;
    while (x < 100) {
        x += 32;
        __syncthreads();  // EXPECT: divergent-barrier
    }
    out[threadIdx.x] = s[0];
}

__global__ void lanes(float* out) {
    int lane = threadIdx.x % 32;
    if (lane < 16) {
        __syncwarp();  // EXPECT: divergent-barrier
    }
    if (lane < 16) {
        __syncwarp(0x0000ffff);  // the mask names the lanes that take the branch
    }
    int warp = threadIdx.x / 32;
    if (warp == 0) __syncwarp();  // the same in every lane of a warp
    out[threadIdx.x] = 0.f;
}

// a barrier inside a helper: the call is the barrier (a block reduction called by thread 0 alone)
__device__ float block_total(float v, float* buf) {
    buf[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    float r = buf[0];
    __syncthreads();
    return r;
}

__device__ float block_mean(float v, float* buf) { return block_total(v, buf) / blockDim.x; }

template <int N>
__device__ float block_total_t(float v, float* buf) { return block_total(v, buf) * N; }

__device__ float square(float v) { return v * v; }

__global__ void helpers(const float* in, float* out) {
    __shared__ float buf[256];
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    float total = block_total(v, buf);
    if (threadIdx.x == 0) {
        out[blockIdx.x] = block_mean(v, buf);  // EXPECT: divergent-barrier
    }
    if (threadIdx.x < 32) out[blockIdx.x] += block_total_t<2>(v, buf);  // EXPECT: divergent-barrier
    if (threadIdx.x < 32) out[blockIdx.x] += square(v);  // no barrier in the helper
    if (blockIdx.x == 0) out[0] = block_total(total, buf);  // the same in every thread of the block
}

// ---- negatives ----

__global__ void uniform(float* out, const float* in, int n) {
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 256 + t];
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (n > 1024) __syncthreads();
    if (blockIdx.x == 0) {
        __syncthreads();
    }
    for (int k = 0; k < n; k += 256) {
        __syncthreads();
    }
    for (int i = t; i < (n + 255) / 256 * 256; i += blockDim.x) {  // block-stride loop over a rounded bound
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
    int any = __syncthreads_or(t < 5);
    if (any) __syncthreads();
    if (t >= n) return;  // threads that exit do not hold the barrier up
    __syncthreads();
}
