// ZLUDA-J test program: CUB's DeviceSegmentedSort (SortPairsDescending, float keys, int values) over two segments of
// n elements (argument 1, default 8,203), checked against std::stable_sort. Past 4,865 elements a segment takes the
// fallback kernel's radix passes through a global double buffer, which skip a pass whose digits all agree through
// __syncthreads_and: nvcc wraps that bar.red in a { } block declaring its own %p1/%p2, and the kernel's %p1 is live
// across it (pass.ScopedNames). ggml's TOP_K sorts rows this way.
#include <cub/device/device_segmented_sort.cuh>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
int main(int argc, char **argv) {
    const int segs = 2, n = argc > 1 ? atoi(argv[1]) : 8203;
    std::vector<float> keys(segs * n);
    std::vector<int> vals(segs * n), offs(segs + 1);
    unsigned s = 1;
    for (int i = 0; i < segs * n; i++) { s = s * 1664525u + 1013904223u; keys[i] = (float)(s >> 8) / 65536.0f - 100.0f; vals[i] = i % n; }
    for (int i = 0; i <= segs; i++) offs[i] = i * n;
    float *dk, *dk2; int *dv, *dv2, *doff;
    cudaMalloc(&dk, 4 * segs * n); cudaMalloc(&dk2, 4 * segs * n); cudaMalloc(&dv, 4 * segs * n); cudaMalloc(&dv2, 4 * segs * n);
    cudaMalloc(&doff, 4 * (segs + 1));
    cudaMemcpy(dk, keys.data(), 4 * segs * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dv, vals.data(), 4 * segs * n, cudaMemcpyHostToDevice);
    cudaMemcpy(doff, offs.data(), 4 * (segs + 1), cudaMemcpyHostToDevice);
    size_t tmp = 0; void *dt = nullptr;
    cub::DeviceSegmentedSort::SortPairsDescending(dt, tmp, dk, dk2, dv, dv2, segs * n, segs, doff, doff + 1);
    cudaMalloc(&dt, tmp);
    cub::DeviceSegmentedSort::SortPairsDescending(dt, tmp, dk, dk2, dv, dv2, segs * n, segs, doff, doff + 1);
    cudaError_t e = cudaDeviceSynchronize();
    int bad = 0;
    for (int inplace = 0; inplace < 2; inplace++) {  // then as ggml sorts: the keys in place, in a copy made on the device
    std::vector<float> ok(segs * n); std::vector<int> ov(segs * n);
    if (inplace) {
        cudaFree(dt); dt = nullptr; tmp = 0;
        cudaMemcpyAsync(dk2, dk, 4 * segs * n, cudaMemcpyDeviceToDevice, 0);
        cub::DeviceSegmentedSort::SortPairsDescending(dt, tmp, dk2, dk2, dv, dv2, segs * n, segs, doff, doff + 1);
        cudaMalloc(&dt, tmp);
        cub::DeviceSegmentedSort::SortPairsDescending(dt, tmp, dk2, dk2, dv, dv2, segs * n, segs, doff, doff + 1);
        cudaError_t e2 = cudaDeviceSynchronize();
        if (e == cudaSuccess) e = e2;
    }
    cudaMemcpy(ok.data(), dk2, 4 * segs * n, cudaMemcpyDeviceToHost);
    cudaMemcpy(ov.data(), dv2, 4 * segs * n, cudaMemcpyDeviceToHost);
    for (int g = 0; g < segs; g++) {
        std::vector<std::pair<float,int>> ref;
        for (int i = 0; i < n; i++) ref.push_back({keys[g * n + i], vals[g * n + i]});
        std::stable_sort(ref.begin(), ref.end(), [](auto a, auto b) { return a.first > b.first; });
        for (int i = 0; i < n; i++) if (ref[i].first != ok[g * n + i] || ref[i].second != ov[g * n + i]) { if (bad++ < 5) printf("%s seg %d [%d]: %g/%d want %g/%d\n", inplace ? "in place" : "", g, i, ok[g*n+i], ov[g*n+i], ref[i].first, ref[i].second); }
    }
    }
    printf("%s: cub segmented sort, %d wrong (%s)\n", bad ? "FAIL" : "PASS", bad, cudaGetErrorString(e));
    return bad != 0;
}
