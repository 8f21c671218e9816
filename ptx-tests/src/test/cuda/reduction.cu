// ZLUDA-J test program: block reductions in shared memory, warp reductions with shuffles, atomics.
#include <cstdio>
#include <cstdlib>

__global__ void block_sum(const float *in, float *out, int n) {
    extern __shared__ float s[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}

__inline__ __device__ int warp_sum(int v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    return v;
}

__global__ void warp_reduce(const int *in, int *out, unsigned long long *ballots, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    unsigned b = __ballot_sync(0xffffffff, v & 1);
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(out, v);
        atomicAdd(ballots, (unsigned long long)__popc(b));
    }
    atomicMax(out + 1, i);
    atomicMin(out + 2, -i);
    atomicCAS(out + 3, 0, 1);
    atomicExch(out + 4, i);
    atomicOr(out + 5, 1 << (i & 31));
}

int main() {
    const int n = 1 << 16;
    float *in, *out;
    cudaMallocManaged(&in, n * sizeof(float));
    cudaMallocManaged(&out, sizeof(float));
    for (int i = 0; i < n; i++) in[i] = 1.0f;
    *out = 0;
    block_sum<<<n / 256, 256, 256 * sizeof(float)>>>(in, out, n);
    cudaDeviceSynchronize();
    printf("%s: sum = %g\n", *out == n ? "PASS" : "FAIL", *out);
    return *out == n ? 0 : 1;
}
