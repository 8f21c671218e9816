/* The kernel of ggml's TOP_K failure on the GPU by itself (docs/gpu-check.md, "Narrowing a wrong result down"): CUB's
 * DeviceSegmentedSortFallbackKernel (descending, float keys, int values), from a PTX file holding only it (NVIDIA's
 * PTX of ptx-tests/src/test/cuda/cub_segmented_sort.cu built for compute_75, or our NVPTX of it), launched as CUB
 * launches it for two segments of N elements (one block of 256 threads a segment), checked against qsort.
 *   cub_fallback KERNEL.ptx [N]        through whatever libcuda.so.1 the loader finds (NVIDIA's or ZLUDA-J's)
 *   JIT_O=0..4    NVIDIA's JIT optimization level;  KEYMASK=0x..  keys that differ only in these bits;
 *   DETAIL=1      how the result is wrong;  DUMP=FILE  the two unused output buffers, for probe_ptx.py */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef int CUresult; typedef void *CUcontext, *CUmodule, *CUfunction; typedef unsigned long long CUdeviceptr;
static CUresult (*cuInit)(unsigned); static CUresult (*cuCtxCreate)(CUcontext *, unsigned, int);
static CUresult (*cuModuleLoadData)(CUmodule *, const void *); static CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
static CUresult (*cuMemAlloc)(CUdeviceptr *, size_t); static CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
static CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t); static CUresult (*cuCtxSynchronize)(void);
static CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **, void **);
static CUresult (*cuMemsetD32)(CUdeviceptr, unsigned, size_t);
static CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
#define L(f) *(void **)&f = dlsym(h, #f "_v2") ? dlsym(h, #f "_v2") : dlsym(h, #f)
typedef struct { float k; int v; } kv;
static int fc(const void *x, const void *y) { float p = *(const float *)x, q = *(const float *)y; return p < q ? -1 : p > q; }
static int cmp(const void *a, const void *b) { const kv *x = a, *y = b; if (x->k > y->k) return -1; if (x->k < y->k) return 1; return x->v - y->v; }
int main(int argc, char **argv) {
    void *h = dlopen("libcuda.so.1", RTLD_NOW); if (!h) { printf("no libcuda\n"); return 2; }
    L(cuInit); L(cuCtxCreate); L(cuModuleLoadData); L(cuModuleGetFunction); L(cuMemAlloc); L(cuMemcpyHtoD); L(cuMemcpyDtoH);
    *(void **)&cuCtxSynchronize = dlsym(h, "cuCtxSynchronize"); L(cuLaunchKernel); L(cuMemsetD32); L(cuModuleLoadDataEx);
    int n = argc > 2 ? atoi(argv[2]) : 16395, segs = 2, N = segs * n;
    FILE *f = fopen(argv[1], "rb"); fseek(f, 0, SEEK_END); long sz = ftell(f); rewind(f);
    char *ptx = calloc(1, sz + 1); fread(ptx, 1, sz, f); fclose(f);
    CUcontext c; CUmodule m; CUfunction fn; int r;
    cuInit(0); cuCtxCreate(&c, 0, 0);
    if (getenv("JIT_O")) {  /* CU_JIT_OPTIMIZATION_LEVEL */
        int opt = 7; void *val = (void *)(long)atoi(getenv("JIT_O"));
        if ((r = cuModuleLoadDataEx(&m, ptx, 1, &opt, &val))) { printf("load %d\n", r); return 2; }
    } else if ((r = cuModuleLoadData(&m, ptx))) { printf("load %d\n", r); return 2; }
    char *name = strstr(ptx, ".entry "); name += 7; char *e = strchr(name, '('); *e = 0;
    while (*name == ' ') name++;
    if ((r = cuModuleGetFunction(&fn, m, name))) { printf("function %d\n", r); return 2; }
    float *keys = malloc(4 * N); int *vals = malloc(4 * N), offs[3] = {0, n, 2 * n};
    unsigned s = 1;
    unsigned mask = getenv("KEYMASK") ? (unsigned)strtoul(getenv("KEYMASK"), 0, 0) : 0;
    for (int i = 0; i < N; i++) {
        s = s * 1664525u + 1013904223u; keys[i] = (float)(s >> 8) / 65536.0f - 100.0f; vals[i] = i % n;
        if (mask) { unsigned bits = 0x40000000u | ((s ^ (s >> 13) ^ (s << 7)) & mask); memcpy(&keys[i], &bits, 4); }
    }
    CUdeviceptr kin, kout, ka, kb, vin, vout, va, vb, doff;
    cuMemAlloc(&kin, 4 * N); cuMemAlloc(&kout, 4 * N); cuMemAlloc(&ka, 4 * N); cuMemAlloc(&kb, 4 * N);
    cuMemAlloc(&vin, 4 * N); cuMemAlloc(&vout, 4 * N); cuMemAlloc(&va, 4 * N); cuMemAlloc(&vb, 4 * N); cuMemAlloc(&doff, 12);
    cuMemsetD32(kout, 0, N); cuMemsetD32(ka, 0, N); cuMemsetD32(kb, 0, N); cuMemsetD32(vout, 0, N); cuMemsetD32(va, 0, N); cuMemsetD32(vb, 0, N);
    cuMemcpyHtoD(kin, keys, 4 * N); cuMemcpyHtoD(vin, vals, 4 * N); cuMemcpyHtoD(doff, offs, 12);
    CUdeviceptr kdb[2] = {ka, kb}, vdb[2] = {va, vb}, dbeg = doff, dend = doff + 4;
    void *args[] = {&kin, &kout, kdb, &vin, &vout, vdb, &dbeg, &dend};
    if ((r = cuLaunchKernel(fn, segs, 1, 1, 256, 1, 1, 0, 0, args, 0))) { printf("launch %d\n", r); return 2; }
    if ((r = cuCtxSynchronize())) { printf("sync %d\n", r); return 2; }
    kv *ref = malloc(sizeof(kv) * n); float *ok = malloc(4 * N); int *ov = malloc(4 * N);
    const char *where[] = {"out", "double buffer A", "double buffer B"}; CUdeviceptr kd[] = {kout, ka, kb}, vd[] = {vout, va, vb};
    int best = -1;
    for (int w = 0; w < 3; w++) {
        cuMemcpyDtoH(ok, kd[w], 4 * N); cuMemcpyDtoH(ov, vd[w], 4 * N);
        int bad = 0, firstbad = -1;
        for (int g = 0; g < segs; g++) {
            for (int i = 0; i < n; i++) { ref[i].k = keys[g * n + i]; ref[i].v = vals[g * n + i]; }
            qsort(ref, n, sizeof(kv), cmp);
            for (int i = 0; i < n; i++) if (ref[i].k != ok[g * n + i] || ref[i].v != ov[g * n + i]) { if (firstbad < 0) firstbad = g * n + i; bad++; }
        }
        printf("%s: %d wrong (first at %d)\n", where[w], bad, firstbad);
        if (getenv("DETAIL") && bad) {
            for (int g = 0; g < segs; g++) {
                int unsorted = 0, mismatch = 0, lost = 0;
                for (int i = 0; i + 1 < n; i++) if (ok[g * n + i] < ok[g * n + i + 1]) unsorted++;
                for (int i = 0; i < n; i++) { int v = ov[g * n + i]; if (v < 0 || v >= n || keys[g * n + v] != ok[g * n + i]) mismatch++; }
                float *a = malloc(4 * (size_t)n), *b = malloc(4 * (size_t)n);
                for (int i = 0; i < n; i++) { a[i] = keys[g * n + i]; b[i] = ok[g * n + i]; }
                qsort(a, n, 4, fc); qsort(b, n, 4, fc);
                for (int i = 0; i < n; i++) if (a[i] != b[i]) lost++;
                printf("  segment %d: %d descents broken, %d values not with their key, %d keys not a permutation of the input\n", g, unsorted, mismatch, lost);
                int shown = 0;
                for (int i = 0; i + 1 < n && shown < 4; i++) if (ok[g * n + i] < ok[g * n + i + 1]) { printf("   at %d: %g then %g\n", i, ok[g*n+i], ok[g*n+i+1]); shown++; }
                free(a); free(b);
            }
        }
        if (bad == 0) best = w;
    }
    if (getenv("DUMP")) {  /* the probes' words: keys out (unused by the iterative path) */
        unsigned *d = malloc(4 * N), *e = malloc(4 * N); cuMemcpyDtoH(d, kout, 4 * N); cuMemcpyDtoH(e, vout, 4 * N);
        FILE *o = fopen(getenv("DUMP"), "w");
        for (int i = 0; i < N; i++) fprintf(o, "k %d %u\n", i, d[i]);
        for (int i = 0; i < N; i++) fprintf(o, "v %d %u\n", i, e[i]);
        fclose(o);
    }
    printf("%s\n", best >= 0 ? "PASS" : "FAIL");
    return best < 0;
}
