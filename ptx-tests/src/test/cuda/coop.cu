// ZLUDA-J test program: a cooperative launch with grid-wide synchronization (cooperative groups' grid.sync(), which
// finds its barrier word through %envreg1/%envreg2), sized as applications size it (occupancy x multiprocessors);
// then cooperative launches queued back to back on a stream with nothing waited for between them, and the same
// captured into a CUDA graph (a kernel node with the COOPERATIVE attribute, as ggml's soft_max captures it) replayed.
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;

__global__ void rounds(int *a, int *b, int n, int steps) {
    cg::grid_group g = cg::this_grid();
    int i = (int)g.thread_rank();
    for (int s = 0; s < steps; s++) {
        if (i < n) b[i] = a[i] + a[(i + 1) % n];  // reads what other blocks wrote in the previous round
        g.sync();
        if (i < n) a[i] = b[i] % 1000003;
        g.sync();
    }
}

int main() {
    int dev = 0, coop = 0, sms = 0, perSm = 0;
    cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    const int threads = 64;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, rounds, threads, 0);
    int blocks = perSm * sms;
    if (blocks > 64) blocks = 64;
    int n = blocks * threads, steps = 5;
    int *a, *b;
    cudaMallocManaged(&a, n * sizeof(int));
    cudaMallocManaged(&b, n * sizeof(int));
    for (int i = 0; i < n; i++) a[i] = i;
    void *args[] = {&a, &b, &n, &steps};
    cudaError_t err = cudaLaunchCooperativeKernel((void *)rounds, blocks, threads, args, 0, 0);
    cudaError_t sync = cudaDeviceSynchronize();
    // the same on the host, round by round
    int *x = new int[n], *y = new int[n];
    for (int i = 0; i < n; i++) x[i] = i;
    for (int s = 0; s < steps; s++) {
        for (int i = 0; i < n; i++) y[i] = x[i] + x[(i + 1) % n];
        for (int i = 0; i < n; i++) x[i] = y[i] % 1000003;
    }
    int bad = 0;
    for (int i = 0; i < n; i++) bad += a[i] != x[i];
    // three more launches queued on a stream, each reading what the one before wrote, then a graph of two replayed twice
    cudaStream_t st;
    cudaStreamCreate(&st);
    cudaError_t queued = cudaSuccess;
    for (int l = 0; l < 3 && queued == cudaSuccess; l++) queued = cudaLaunchCooperativeKernel((void *)rounds, blocks, threads, args, 0, st);
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    cudaError_t captured = cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal);
    for (int l = 0; l < 2 && captured == cudaSuccess; l++) captured = cudaLaunchCooperativeKernel((void *)rounds, blocks, threads, args, 0, st);
    if (captured == cudaSuccess) captured = cudaStreamEndCapture(st, &graph);
    if (captured == cudaSuccess) captured = cudaGraphInstantiate(&exec, graph, 0);
    for (int l = 0; l < 2 && captured == cudaSuccess; l++) captured = cudaGraphLaunch(exec, st);
    cudaError_t waited = cudaStreamSynchronize(st);
    // the node's COOPERATIVE attribute, as NVIDIA's capture sets it
    size_t count = 0;
    int attr = -1;
    if (captured == cudaSuccess) cudaGraphGetNodes(graph, nullptr, &count);
    if (count == 2) {
        cudaGraphNode_t nodes[2];
        cudaGraphGetNodes(graph, nodes, &count);
        cudaKernelNodeAttrValue v = {};
        if (cudaGraphKernelNodeGetAttribute(nodes[0], cudaKernelNodeAttributeCooperative, &v) == cudaSuccess) attr = v.cooperative;
    }
    for (int r = 0; r < 3 + 2 * 2; r++)
        for (int s = 0; s < steps; s++) {
            for (int i = 0; i < n; i++) y[i] = x[i] + x[(i + 1) % n];
            for (int i = 0; i < n; i++) x[i] = y[i] % 1000003;
        }
    int bad2 = 0;
    for (int i = 0; i < n; i++) bad2 += a[i] != x[i];
    bool ok = coop == 1 && blocks > 1 && err == cudaSuccess && sync == cudaSuccess && bad == 0;
    printf("%s: cooperative blocks=%d (x%d threads) bad=%d %s\n", ok ? "PASS" : "FAIL", blocks, threads, bad,
           cudaGetErrorName(err != cudaSuccess ? err : sync));
    bool ok2 = queued == cudaSuccess && captured == cudaSuccess && waited == cudaSuccess && count == 2 && attr == 1 && bad2 == 0;
    printf("%s: queued and graph-captured cooperative launches bad=%d nodes=%zu cooperative=%d %s\n", ok2 ? "PASS" : "FAIL", bad2,
           count, attr, cudaGetErrorName(queued != cudaSuccess ? queued : captured != cudaSuccess ? captured : waited));
    return ok && ok2 ? 0 : 1;
}
