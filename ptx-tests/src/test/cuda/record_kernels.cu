// ZLUDA-J test: a module of two kernels and a module-scope table, built as a fatbin (nvcc -fatbin) and loaded by
// c/module_from_file.c over the fake NVIDIA driver (CudaBackendFakeTest): the second process loads it by its record.
__device__ int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};

extern "C" __global__ void first(int *out) {
    __shared__ int tile[32];
    tile[threadIdx.x & 31] = table[threadIdx.x & 7];
    __syncthreads();
    out[threadIdx.x] = tile[(threadIdx.x + 1) & 31];
}

extern "C" __global__ void second(int *out, int n) {
    if (threadIdx.x < n) out[threadIdx.x] = table[(threadIdx.x * 3) & 7] * n;
}
