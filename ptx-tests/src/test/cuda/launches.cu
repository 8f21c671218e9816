// ZLUDA-J test program: 20,000 launches (and allocations) with stable memory use over the second half.
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void bump(int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1;
}

static long rss_kib() {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6)) sscanf(line + 6, "%ld", &kib);
    if (f) fclose(f);
    return kib;
}

int main(int argc, char **argv) {
    const int n = 4096, launches = argc > 1 ? atoi(argv[1]) : 20000;
    int *x;
    cudaMalloc(&x, n * sizeof(int));
    cudaMemset(x, 0, n * sizeof(int));
    long afterHalf = 0;  // measured after the first half: the JVM's compilers have warmed up by then
    for (int k = 0; k < launches; k++) {
        bump<<<n / 256, 256>>>(x, n);
        if (k % 100 == 0) {  // allocation churn too
            void *tmp;
            cudaMalloc(&tmp, 1 << 20);
            cudaFree(tmp);
        }
        if (k == launches / 2 - 1) { cudaDeviceSynchronize(); afterHalf = rss_kib(); }
    }
    cudaError_t e = cudaDeviceSynchronize();
    long afterAll = rss_kib();
    static int h[n];
    cudaMemcpy(h, x, sizeof h, cudaMemcpyDeviceToHost);
    int bad = e != cudaSuccess;
    for (int i = 0; i < n; i++) bad += h[i] != launches;
    long growth = afterAll - afterHalf;
    bool ok = bad == 0 && growth < 16 * 1024;
    printf("%s: launches=%d bad=%d rss_growth_kib=%ld (rss %ld KiB)\n", ok ? "PASS" : "FAIL", launches, bad, growth, afterAll);
    return ok ? 0 : 1;
}
