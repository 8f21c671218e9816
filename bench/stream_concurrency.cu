// ZLUDA-J benchmark: two streams each running a kernel that spins about 20 ms; concurrent streams take about 20 ms,
// serialized ones about 40 ms (ratio 1 vs 2). Build with nvcc -arch=compute_75 and run natively and through ZLUDA-J.
#include <cstdio>
#include <chrono>
__global__ void spin(long long cycles, int *out) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {}
    if (threadIdx.x == 0) atomicAdd(out, 1);
}
int main() {
    int *d; cudaMalloc(&d, 4); cudaMemset(d, 0, 4);
    cudaStream_t a, b; cudaStreamCreate(&a); cudaStreamCreate(&b);
    spin<<<1, 32, 0, a>>>(1000, d); cudaDeviceSynchronize();
    long long cycles = 40000000LL;  // about 20 ms at ~2 GHz
    auto t0 = std::chrono::steady_clock::now();
    spin<<<1, 32, 0, a>>>(cycles, d);
    spin<<<1, 32, 0, b>>>(cycles, d);
    cudaDeviceSynchronize();
    double ms = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e3;
    t0 = std::chrono::steady_clock::now();
    spin<<<1, 32, 0, a>>>(cycles, d);
    cudaDeviceSynchronize();
    double one = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e3;
    int h; cudaMemcpy(&h, d, 4, cudaMemcpyDeviceToHost);
    printf("two streams: %.1f ms, one kernel: %.1f ms, ratio %.2f, count %d\n", ms, one, ms / one, h);
}
