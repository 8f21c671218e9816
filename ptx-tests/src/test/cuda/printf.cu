// ZLUDA-J test program: printf and assert in kernels.
#include <cstdio>
#include <cassert>

__global__ void say(int n, double scale) {
    int i = threadIdx.x;
    if (i < n) printf("thread %d: %5.2f %s %lld %x %c\n", i, scale * i, i % 2 ? "odd" : "even", (long long)i << 40, 255 + i, 'A' + i);
}

__global__ void check(int limit) {
    assert(threadIdx.x < limit);
}

__global__ void check_sync(int limit) {  // with a barrier: the host backend runs the threads as fibers
    __syncthreads();
    assert(threadIdx.x < limit);
}

int main(int argc, char **argv) {
    say<<<1, 4>>>(4, 1.5);
    cudaError_t e = cudaDeviceSynchronize();
    printf("after say: %s\n", cudaGetErrorName(e));
    check<<<1, 8>>>(8);
    e = cudaDeviceSynchronize();
    printf("check ok: %s\n", cudaGetErrorName(e));
    if (argc > 1) {  // "sync": the failing assert after a barrier
        check_sync<<<1, 8>>>(6);
        e = cudaDeviceSynchronize();
        printf("check_sync failing: %s\n", cudaGetErrorName(e));
        return 0;
    }
    check<<<1, 8>>>(3);
    e = cudaDeviceSynchronize();
    printf("check failing: %s\n", cudaGetErrorName(e));
    return 0;
}
