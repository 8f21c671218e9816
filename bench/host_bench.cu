// ZLUDA-J benchmark of the host backend (run by bench/host-bench.sh through ZLUDA-J's libcuda.so.1):
// vector add of 16M floats (GB/s) against a plain C loop, a 512x512 tiled SGEMM (GFLOP/s), and the cost of
// launching an empty kernel (us). Prints a table.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#define TILE 16

__global__ void vadd(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

__global__ void sgemm(int n, const float *a, const float *b, float *c) {
    __shared__ float ta[TILE][TILE], tb[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0;
    for (int t = 0; t < n / TILE; t++) {
        ta[threadIdx.y][threadIdx.x] = a[row * n + t * TILE + threadIdx.x];
        tb[threadIdx.y][threadIdx.x] = b[(t * TILE + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++) acc += ta[threadIdx.y][k] * tb[k][threadIdx.x];
        __syncthreads();
    }
    c[row * n + col] = acc;
}

__global__ void empty() {}

static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

int main() {
    const int n = 16 << 20;
    float *a, *b, *c;
    cudaMalloc(&a, n * 4); cudaMalloc(&b, n * 4); cudaMalloc(&c, n * 4);
    float *ha = (float *)malloc(n * 4), *hb = (float *)malloc(n * 4), *hc = (float *)malloc(n * 4);
    for (int i = 0; i < n; i++) { ha[i] = i * 0.5f; hb[i] = 1.0f; }
    cudaMemcpy(a, ha, n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(b, hb, n * 4, cudaMemcpyHostToDevice);
    vadd<<<n / 256, 256>>>(a, b, c, n);
    cudaDeviceSynchronize();
    int reps = 5;
    double t0 = now();
    for (int r = 0; r < reps; r++) vadd<<<n / 256, 256>>>(a, b, c, n);
    cudaDeviceSynchronize();
    double tk = (now() - t0) / reps;
    t0 = now();
    for (int r = 0; r < reps; r++) {
        for (int i = 0; i < n; i++) hc[i] = ha[i] + hb[i];
        __asm__ volatile("" ::: "memory");
    }
    double tc = (now() - t0) / reps;
    cudaMemcpy(hc, c, n * 4, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n; i++) bad += hc[i] != ha[i] + hb[i];
    double bytes = 3.0 * n * 4;

    const int m = 512;
    float *ma, *mb, *mc;
    cudaMalloc(&ma, m * m * 4); cudaMalloc(&mb, m * m * 4); cudaMalloc(&mc, m * m * 4);
    cudaMemcpy(ma, ha, m * m * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(mb, hb, m * m * 4, cudaMemcpyHostToDevice);
    dim3 grid(m / TILE, m / TILE), block(TILE, TILE);
    sgemm<<<grid, block>>>(m, ma, mb, mc);
    cudaDeviceSynchronize();
    t0 = now();
    sgemm<<<grid, block>>>(m, ma, mb, mc);
    cudaDeviceSynchronize();
    double ts = now() - t0;

    // launch cost: the first 2,000 launches (the JVM still compiling the launch path), then 50,000 more once warm
    empty<<<1, 1>>>();
    cudaDeviceSynchronize();
    int launches = 2000;
    t0 = now();
    for (int r = 0; r < launches; r++) empty<<<1, 1>>>();
    cudaDeviceSynchronize();
    double tcold = (now() - t0) / launches;
    for (int r = 0; r < 50000; r++) empty<<<1, 1>>>();
    cudaDeviceSynchronize();
    launches = 50000;
    t0 = now();
    for (int r = 0; r < launches; r++) empty<<<1, 1>>>();
    cudaDeviceSynchronize();
    double tl = (now() - t0) / launches;
    t0 = now();
    for (int r = 0; r < 5000; r++) { empty<<<1, 1>>>(); cudaDeviceSynchronize(); }
    double tsync = (now() - t0) / 5000;

    printf("| measurement                               | value            |\n");
    printf("|-------------------------------------------|------------------|\n");
    printf("| vector add, 16M floats, kernel            | %8.2f GB/s    |\n", bytes / tk / 1e9);
    printf("| vector add, 16M floats, plain C loop      | %8.2f GB/s    |\n", bytes / tc / 1e9);
    printf("| kernel / C loop                           | %8.2f x       |\n", tc / tk);
    printf("| SGEMM 512x512x512, tiled 16x16, shared    | %8.3f GFLOP/s |\n", 2.0 * m * m * m / ts / 1e9);
    printf("| empty kernel launch, first 2,000          | %8.2f us      |\n", tcold * 1e6);
    printf("| empty kernel launch, warm (50,000)        | %8.2f us      |\n", tl * 1e6);
    printf("| empty kernel launch + synchronize, warm   | %8.2f us      |\n", tsync * 1e6);
    printf("%s\n", bad ? "FAIL: vector add results wrong" : "results checked");
    return bad != 0;
}
