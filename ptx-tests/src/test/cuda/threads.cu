// ZLUDA-J test program: four host threads, each with its own stream, context work and results interleaved.
#include <cstdio>
#include <thread>
#include <vector>

__global__ void axpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void warp_sum(const int *in, int *out) {
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x % 32 == 0) atomicAdd(out, v);
}

static int work(int id, int rounds) {
    const int n = 1 << 16;
    cudaStream_t s;
    if (cudaStreamCreate(&s) != cudaSuccess) return 1;
    float *x, *y; int *in, *sum;
    cudaMalloc(&x, n * 4); cudaMalloc(&y, n * 4); cudaMalloc(&in, n * 4); cudaMalloc(&sum, 4);
    std::vector<float> hx(n, 1.0f + id), hy(n, 0.0f);
    std::vector<int> hin(n, id + 1);
    cudaMemcpyAsync(x, hx.data(), n * 4, cudaMemcpyHostToDevice, s);
    cudaMemcpyAsync(y, hy.data(), n * 4, cudaMemcpyHostToDevice, s);
    cudaMemcpyAsync(in, hin.data(), n * 4, cudaMemcpyHostToDevice, s);
    cudaMemsetAsync(sum, 0, 4, s);
    for (int r = 0; r < rounds; r++) {
        axpy<<<n / 256, 256, 0, s>>>(2.0f, x, y, n);
        warp_sum<<<n / 128, 128, 0, s>>>(in, sum);
    }
    int total = 0;
    cudaMemcpyAsync(hy.data(), y, n * 4, cudaMemcpyDeviceToHost, s);
    cudaMemcpyAsync(&total, sum, 4, cudaMemcpyDeviceToHost, s);
    cudaError_t e = cudaStreamSynchronize(s);
    int bad = e != cudaSuccess;
    for (int i = 0; i < n; i++) bad += hy[i] != 2.0f * (1.0f + id) * rounds;
    bad += total != (id + 1) * n * rounds;
    cudaFree(x); cudaFree(y); cudaFree(in); cudaFree(sum);
    cudaStreamDestroy(s);
    return bad;
}

int main() {
    int results[4] = {0, 0, 0, 0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++) threads.emplace_back([t, &results] { results[t] = work(t, 20 + t); });
    for (auto &t : threads) t.join();
    int bad = results[0] + results[1] + results[2] + results[3];
    printf("%s: threads bad=%d\n", bad == 0 ? "PASS" : "FAIL", bad);
    return bad == 0 ? 0 : 1;
}
