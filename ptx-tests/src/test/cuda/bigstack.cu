// ZLUDA-J test program: a kernel with 128 KiB of local memory per thread and a barrier (threads run as fibers,
// whose stacks must follow the kernel's local need), and a recursive device function under cudaLimitStackSize.
#include <cstdio>

__device__ int depth(int n) { return n == 0 ? 0 : 1 + depth(n - 1); }

__global__ void big(int *out, int recurse) {
    volatile int buf[32768];  // 128 KiB per thread
    for (int i = 0; i < 32768; i++) buf[i] = i ^ threadIdx.x;
    __syncthreads();
    long long s = 0;
    for (int i = 0; i < 32768; i += 97) s += buf[i];
    __syncthreads();
    out[threadIdx.x] = (int)(s & 0x7fffffff) + depth(recurse);
}

int main() {
    const int threads = 64, recurse = 2000;
    cudaError_t le = cudaDeviceSetLimit(cudaLimitStackSize, 256 * 1024);
    size_t limit = 0;
    cudaDeviceGetLimit(&limit, cudaLimitStackSize);
    int *d, h[threads];
    cudaMalloc(&d, sizeof h);
    big<<<2, threads>>>(d, recurse);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int bad = e != cudaSuccess || le != cudaSuccess || limit != 256 * 1024;
    for (int t = 0; t < threads; t++) {
        long long s = 0;
        for (int i = 0; i < 32768; i += 97) s += i ^ t;
        bad += h[t] != (int)(s & 0x7fffffff) + recurse;
    }
    printf("%s: bigstack bad=%d %s limit=%zu\n", bad == 0 ? "PASS" : "FAIL", bad, cudaGetErrorName(e), limit);
    return bad == 0 ? 0 : 1;
}
