/* Does the link-map namespace cost NVIDIA's cuBLAS time per call? HGEMM (GemmEx f16 in, f32 out, m=n=k=SIZE) in a
 * loop with NVIDIA's driver and cuBLAS loaded the way the cuda backend loads them (mode "namespace": the driver by
 * path with RTLD_DEEPBIND, cuBLASLt and cuBLAS by dlmopen into a new namespace whose libcuda.so.1 is
 * libzluda_nvfwd.so), or plainly (mode "direct": the driver, then cuBLAS, by dlopen in the application's namespace).
 * No ZLUDA-J and no JVM in the process: the difference between the modes is the namespace's alone.
 * Usage: cublas_namespace direct|namespace LIBCUDA CUBLAS_DIR NVFWD [SIZE] [SECONDS]; prints us per call, best second.
 * Build: gcc -O2 -o cublas_namespace cublas_namespace.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int (*cu_init_t)(unsigned);
typedef int (*cu_retain_t)(void **, int);
typedef int (*cu_set_t)(void *);
typedef int (*cu_sync_t)(void);
typedef int (*cu_alloc_t)(unsigned long long *, size_t);
typedef int (*cu_memset_t)(unsigned long long, unsigned char, size_t);
typedef int (*create_t)(void **);
typedef int (*gemmex_t)(void *, int, int, int, int, int, const void *, const void *, int, int, const void *, int, int,
                        const void *, void *, int, int, int, int);

#define CALLS 20
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

static void *need(void *h, const char *what) {
    if (!h) { fprintf(stderr, "%s: %s\n", what, dlerror()); exit(2); }
    return h;
}

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage: %s direct|namespace LIBCUDA CUBLAS_DIR NVFWD [SIZE] [SECONDS]\n", argv[0]); return 2; }
    int ns = strcmp(argv[1], "namespace") == 0, n = argc > 5 ? atoi(argv[5]) : 1024;
    double seconds = argc > 6 ? atof(argv[6]) : 5;
    char lt[1024], bl[1024];
    snprintf(lt, sizeof lt, "%s/libcublasLt.so.13", argv[3]);
    snprintf(bl, sizeof bl, "%s/libcublas.so.13", argv[3]);
    void *drv, *cublas;
    if (ns) {
        drv = need(dlopen(argv[2], RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND), argv[2]);
        void *fwd = need(dlmopen(LM_ID_NEWLM, argv[4], RTLD_NOW | RTLD_LOCAL), argv[4]);
        Lmid_t lm;
        dlinfo(fwd, RTLD_DI_LMID, &lm);
        ((int (*)(void *))need(dlsym(fwd, "zluda_nvfwd_init"), "zluda_nvfwd_init"))(drv);
        need(dlmopen(lm, lt, RTLD_NOW | RTLD_LOCAL), lt);
        cublas = need(dlmopen(lm, bl, RTLD_NOW | RTLD_LOCAL), bl);
    } else {
        drv = need(dlopen(argv[2], RTLD_NOW | RTLD_GLOBAL), argv[2]);
        need(dlopen(lt, RTLD_NOW | RTLD_GLOBAL), lt);
        cublas = need(dlopen(bl, RTLD_NOW | RTLD_LOCAL), bl);
    }
    void *ctx, *h;
    unsigned long long a, b, c;
    if (((cu_init_t)dlsym(drv, "cuInit"))(0) || ((cu_retain_t)dlsym(drv, "cuDevicePrimaryCtxRetain"))(&ctx, 0) ||
        ((cu_set_t)dlsym(drv, "cuCtxSetCurrent"))(ctx) || ((create_t)dlsym(cublas, "cublasCreate_v2"))(&h)) {
        puts("no cuBLAS");
        return 1;
    }
    cu_alloc_t alloc = (cu_alloc_t)dlsym(drv, "cuMemAlloc_v2");
    cu_memset_t memset8 = (cu_memset_t)dlsym(drv, "cuMemsetD8_v2");
    cu_sync_t sync = (cu_sync_t)dlsym(drv, "cuCtxSynchronize");
    gemmex_t gemm = (gemmex_t)dlsym(cublas, "cublasGemmEx");
    size_t bytes = (size_t)n * n * 4;
    if (alloc(&a, bytes) || alloc(&b, bytes) || alloc(&c, bytes)) { puts("no memory"); return 1; }
    memset8(a, 0, bytes);
    memset8(b, 0, bytes);
    float one = 1, zero = 0;
    double end = now() + seconds, t0 = now(), mark = t0 + 1, best = 1e9;
    long calls = 0;
    while (now() < end) {
        for (int i = 0; i < CALLS; i++) gemm(h, 0, 0, n, n, n, &one, (void *)a, 2, n, (void *)b, 2, n, &zero, (void *)c, 0, n, 68, -1);
        sync();
        calls += CALLS;
        if (now() > mark) {
            double us = (now() - t0) / calls * 1e6;
            if (us < best) best = us;
            calls = 0;
            t0 = now();
            mark = t0 + 1;
        }
    }
    printf("%s HGEMM %d: %.2f us per call (best second)\n", argv[1], n, best);
    return 0;
}
