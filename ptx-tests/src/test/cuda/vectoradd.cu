// ZLUDA-J example and integration test: vector add through the CUDA runtime (cudart), checked on the host.
#include <cstdio>
#include <cstdlib>
#include <cmath>

__global__ void vadd(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

__global__ void saxpy(float alpha, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = alpha * x[i] + y[i];
}

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); return 1; } } while (0)

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000003;
    size_t bytes = n * sizeof(float);
    float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes), *c = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) { a[i] = (float)(i % 1000) * 0.5f; b[i] = (float)(i % 7) - 3.0f; }
    float *da, *db, *dc;
    CHECK(cudaMalloc(&da, bytes)); CHECK(cudaMalloc(&db, bytes)); CHECK(cudaMalloc(&dc, bytes));
    CHECK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dc, 0xff, bytes));
    int threads = 256, blocks = (n + threads - 1) / threads;
    vadd<<<blocks, threads>>>(da, db, dc, n);
    CHECK(cudaGetLastError());
    saxpy<<<blocks, threads>>>(2.0f, da, dc, n);   // c = 2a + (a + b)
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) {
        float want = 2.0f * a[i] + (a[i] + b[i]);
        if (c[i] != want) { if (bad < 5) fprintf(stderr, "c[%d] = %g, want %g\n", i, c[i], want); bad++; }
    }
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s (cc %d.%d)\n", prop.name, prop.major, prop.minor);
    CHECK(cudaFree(da)); CHECK(cudaFree(db)); CHECK(cudaFree(dc));
    double last = c[n - 1];
    free(a); free(b); free(c);
    if (bad) { printf("FAIL: %d of %d wrong\n", bad, n); return 1; }
    printf("PASS: vectoradd n=%d, c[n-1]=%g\n", n, last);
    return 0;
}
