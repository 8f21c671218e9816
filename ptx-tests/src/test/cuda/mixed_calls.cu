// ZLUDA-J test program: what a new user's CUDA program mixes — kernels with dynamic shared memory of several sizes,
// __noinline__ recursive device functions (fib, a tail-recursive sum), a struct returned by value from a
// non-inlined function, and a __device__ table of function pointers called through it. Checked against the host.
#include <cstdio>

struct Pair { int lo; long long hi; float f; };

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ __noinline__ long long sum_to(int n, long long acc) { return n == 0 ? acc : sum_to(n - 1, acc + n); }
__device__ __noinline__ Pair make_pair(int x) { Pair p; p.lo = x * 3; p.hi = (long long)x << 33; p.f = x * 0.5f; return p; }
__device__ __noinline__ int op_add(int a, int b) { return a + b; }
__device__ __noinline__ int op_mul(int a, int b) { return a * b; }
__device__ __noinline__ int op_xor(int a, int b) { return a ^ b; }
typedef int (*binop)(int, int);
__device__ binop table[3] = {op_add, op_mul, op_xor};

__global__ void shared_sum(const int *in, int *out, int n) {
    extern __shared__ int buf[];
    int t = threadIdx.x;
    buf[t] = t < n ? in[blockIdx.x * n + t] : 0;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = buf[0];
}

__global__ void calls(int *out, long long *out64, float *outf) {
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    Pair p = make_pair(t);
    out[4 * t] = fib(t % 16);
    out64[2 * t] = sum_to(t % 100, 0);
    out64[2 * t + 1] = p.hi + p.lo;
    outf[t] = p.f;
    out[4 * t + 1] = table[t % 3](t, 7);
    out[4 * t + 2] = table[(t + 1) % 3](t, 3);
    out[4 * t + 3] = p.lo;
}

static int hfib(int n) { return n < 2 ? n : hfib(n - 1) + hfib(n - 2); }

int main() {
    int bad = 0;
    for (int size = 32; size <= 1024; size *= 4) {  // 32, 128, 512 threads: 128 B .. 2 KiB of dynamic shared memory
        int blocks = 3, n = size, *in, *out, h_in[3 * 1024], h_out[3];
        for (int i = 0; i < blocks * n; i++) h_in[i] = i * 7 % 1000 - 300;
        cudaMalloc(&in, sizeof(int) * blocks * n);
        cudaMalloc(&out, sizeof h_out);
        cudaMemcpy(in, h_in, sizeof(int) * blocks * n, cudaMemcpyHostToDevice);
        shared_sum<<<blocks, size, size * sizeof(int)>>>(in, out, n);
        cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
        for (int b = 0; b < blocks; b++) {
            int s = 0;
            for (int i = 0; i < n; i++) s += h_in[b * n + i];
            if (h_out[b] != s) { printf("FAIL shared_sum size %d block %d: %d vs %d\n", size, b, h_out[b], s); bad = 1; }
        }
        cudaFree(in); cudaFree(out);
    }
    const int N = 128;
    int *o; long long *o64; float *of;
    cudaMalloc(&o, 4 * N * sizeof(int)); cudaMalloc(&o64, 2 * N * sizeof(long long)); cudaMalloc(&of, N * sizeof(float));
    calls<<<2, N / 2>>>(o, o64, of);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("FAIL calls: %s\n", cudaGetErrorString(e)); return 1; }
    int h[4 * N]; long long h64[2 * N]; float hf[N];
    cudaMemcpy(h, o, sizeof h, cudaMemcpyDeviceToHost);
    cudaMemcpy(h64, o64, sizeof h64, cudaMemcpyDeviceToHost);
    cudaMemcpy(hf, of, sizeof hf, cudaMemcpyDeviceToHost);
    for (int t = 0; t < N; t++) {
        int ops[3] = {t + 7, t * 7, t ^ 7}, ops3[3] = {t + 3, t * 3, t ^ 3};
        long long s = (long long)(t % 100) * (t % 100 + 1) / 2;
        if (h[4 * t] != hfib(t % 16) || h[4 * t + 1] != ops[t % 3] || h[4 * t + 2] != ops3[(t + 1) % 3] || h[4 * t + 3] != 3 * t
            || h64[2 * t] != s || h64[2 * t + 1] != ((long long)t << 33) + 3 * t || hf[t] != t * 0.5f) {
            printf("FAIL calls thread %d\n", t); bad = 1; break;
        }
    }
    printf(bad ? "FAIL\n" : "PASS\n");
    return bad;
}
