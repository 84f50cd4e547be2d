// kcheck's GPU journal for CUDA C kernels: a bounded device-side log, decoded on the host by kcheck.journal.
//
//   #include <kcheck/journal.cuh>
//   extern "C" __global__ void scale(const float* x, float* y, int n, KCHECK_JOURNAL_PARAMS) {
//       int i = blockIdx.x * blockDim.x + threadIdx.x;
//       float v = i < n ? x[i] * 2.0f : 0.0f;
//       kcheck_journal(1, v);           // step 1: one entry per warp
//       if (i < n) y[i] = v;
//   }
//   // host: j = kcheck.journal.Journal(4096); kernel(x, y, n, *j.args); print(j.summary())
//
// kcheck_journal(step, value) is called by every thread of a warp that reaches it (threads that have exited or
// branched away are simply not counted); the warp's lowest active lane appends ONE entry with one atomicAdd on the
// journal's counter: {block, blockIdx.x/y/z, warp, step, value, nonfinite}. value is the warp's value of largest
// magnitude (signed), NaN when some lane's value is NaN; nonfinite counts the lanes whose value is NaN or Inf.
// An append past the capacity writes nothing: the counter still counts it, and the host reports it as dropped.
// The layout (8 header words, then 8-word entries) is kcheck/journal/_layout.py's.
#pragma once

#define KCHECK_JOURNAL_HEADER_WORDS 8
#define KCHECK_JOURNAL_ENTRY_WORDS 8

// The journal's two kernel parameters (the buffer and its capacity in entries): Journal.args on the host.
#define KCHECK_JOURNAL_PARAMS int* __restrict__ kcheck_journal_buf, int kcheck_journal_cap

// Append (step, value) for the calling warp, inside a kernel declared with KCHECK_JOURNAL_PARAMS. Compiled with
// -DKCHECK_JOURNAL_DISABLE it does nothing (the parameters stay, so the launch is the same): the cost of journaling
// is the difference between the two builds.
#ifdef KCHECK_JOURNAL_DISABLE
#define kcheck_journal(step, value) ((void)0)
#else
#define kcheck_journal(step, value) kcheck_journal_append(kcheck_journal_buf, kcheck_journal_cap, (step), (value))
#endif

__device__ __forceinline__ void kcheck_journal_append(int* buf, int cap, int step, float value) {
    const unsigned active = __activemask();
    const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const int lane = (int)(tid & 31u);  // warps are made of consecutive linear thread ids
    const int leader = __ffs(active) - 1;
    const unsigned bad = __ballot_sync(active, !isfinite(value));
    // |value| as an unsigned orders like the float, NaN above Inf above every finite value
    const unsigned mag = __float_as_uint(value) & 0x7fffffffu;
#if __CUDA_ARCH__ >= 800
    const unsigned top = __reduce_max_sync(active, mag);
#else
    unsigned top = mag;
    for (int l = 0; l < 32; ++l) {
        if (active & (1u << l)) {
            const unsigned other = __shfl_sync(active, mag, l);
            top = other > top ? other : top;
        }
    }
#endif
    const unsigned holders = __ballot_sync(active, mag == top);
    const float chosen = __shfl_sync(active, value, __ffs(holders) - 1);
    if (lane != leader) return;
    const int slot = atomicAdd(buf, 1);
    if (slot < 0 || slot >= cap) return;  // full: counted by the counter, nothing written
    const unsigned long long block =
        blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
    int4* entry = reinterpret_cast<int4*>(buf + KCHECK_JOURNAL_HEADER_WORDS +
                                          (long long)slot * KCHECK_JOURNAL_ENTRY_WORDS);
    entry[0] = make_int4((int)block, (int)blockIdx.x, (int)blockIdx.y, (int)blockIdx.z);
    entry[1] = make_int4((int)(tid >> 5), step, __float_as_int(chosen), __popc(bad));
}
