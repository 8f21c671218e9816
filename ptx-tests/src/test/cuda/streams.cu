// ZLUDA-J test program: streams, events, pinned memory, host callbacks, cooperative-style grid loops.
#include <cstdio>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void scale(float *x, float f, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] *= f;
}

__global__ void tile_sum(const int *in, int *out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int v = in[block.thread_rank()];
    for (int o = tile.size() / 2; o > 0; o /= 2) v += tile.shfl_down(v, o);
    if (tile.thread_rank() == 0) atomicAdd(out, v);
    block.sync();
}

void CUDART_CB done(cudaStream_t, cudaError_t, void *flag) { *(int *)flag = 1; }

int main() {
    const int n = 1 << 20;
    float *h, *d;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    for (int i = 0; i < n; i++) h[i] = 1.0f;
    cudaStream_t s[4];
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0); cudaEventCreate(&e1);
    int flag = 0;
    for (int k = 0; k < 4; k++) cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking);
    cudaEventRecord(e0, s[0]);
    for (int k = 0; k < 4; k++) {
        int off = k * (n / 4);
        cudaMemcpyAsync(d + off, h + off, n / 4 * sizeof(float), cudaMemcpyHostToDevice, s[k]);
        scale<<<64, 256, 0, s[k]>>>(d + off, 2.0f, n / 4);
        cudaMemcpyAsync(h + off, d + off, n / 4 * sizeof(float), cudaMemcpyDeviceToHost, s[k]);
    }
    cudaStreamAddCallback(s[3], done, &flag, 0);
    cudaEventRecord(e1, s[0]);
    cudaDeviceSynchronize();
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    int bad = 0;
    for (int i = 0; i < n; i++) bad += h[i] != 2.0f;
    printf("%s: streams bad=%d callback=%d\n", bad == 0 && flag ? "PASS" : "FAIL", bad, flag);
    return bad == 0 && flag ? 0 : 1;
}
