/* ZLUDA-J ptx-tests runner: runs one test folder's kernel through whatever libcuda.so.1 the loader finds
 * (NVIDIA's, to record expected outputs; ZLUDA-J's, to check them) and prints its output buffers.
 *
 *   ptxrun DIR...       each DIR holds kernel.ptx and test.txt; each test's output starts with "== DIR"
 *
 * test.txt, one directive a line ('#' comments):
 *   kernel NAME                       the .entry to launch
 *   grid X Y Z / block X Y Z          launch geometry (default 1 1 1)
 *   shared BYTES                      dynamic shared memory
 *   buffer NAME TYPE COUNT INIT       device buffer; TYPE u8 u16 u32 u64 s32 s64 f16 f32 f64; INIT one of:
 *                                       zero | iota | fill HEX | random SEED | float SEED LO HI | special SEED
 *                                       | half SEED LO HI | bhalf SEED LO HI  (f16 / bf16 of `float`'s values, RN)
 *   param buffer NAME | param TYPE VALUE    kernel parameters in order (TYPE u8..f64; VALUE decimal or 0x hex)
 *   param u32s V...  | param zero BYTES     a parameter of several u32 values (a uint3) / of zero bytes (a struct of nulls)
 *   output NAME [ulp N | abs E]       buffers printed after the launch (tolerance is read by the checker)
 *   time N                            after the checked launch, N more timed with events: "time KERNEL N US" (us each)
 *   jit LEVEL                         NVIDIA's JIT optimization level (default 4): 0 for a test whose PTX NVIDIA's
 *                                       optimizer departs from the ISA on, so that its run there gives the ISA's answer
 * Output: for each output buffer, a line "NAME TYPE COUNT" then one value per line as hex bits.
 * Inputs are generated here with a fixed generator (splitmix64), so every run sees the same data. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef void *CUcontext, *CUmodule, *CUfunction;
typedef unsigned long long CUdeviceptr;
static CUresult (*cuInit)(unsigned);
static CUresult (*cuCtxCreate)(CUcontext *, unsigned, int);
static CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
static CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
static CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
static CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
static CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
static CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
                                  void **, void **);
static CUresult (*cuCtxSynchronize)(void);
static CUresult (*cuGetErrorName)(CUresult, const char **);
static CUresult (*cuMemFree)(CUdeviceptr);
static CUresult (*cuModuleUnload)(CUmodule);
static CUresult (*cuCtxDestroy)(CUcontext);
static CUresult (*cuEventCreate)(void **, unsigned);
static CUresult (*cuEventRecord)(void *, void *);
static CUresult (*cuEventSynchronize)(void *);
static CUresult (*cuEventElapsedTime)(float *, void *, void *);
static CUresult (*cuEventDestroy)(void *);

#define MAXB 32
typedef struct { char name[64], type[8]; size_t count, elem; void *host; CUdeviceptr dev; } buffer_t;
static buffer_t bufs[MAXB];
static int nbufs;

static uint64_t sm64(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static size_t elem_size(const char *t) {
    if (!strcmp(t, "u8")) return 1;
    if (!strcmp(t, "u16") || !strcmp(t, "f16")) return 2;
    if (!strcmp(t, "u32") || !strcmp(t, "s32") || !strcmp(t, "f32")) return 4;
    if (!strcmp(t, "u64") || !strcmp(t, "s64") || !strcmp(t, "f64")) return 8;
    fprintf(stderr, "ptxrun: unknown type %s\n", t);
    exit(2);
}

static buffer_t *find(const char *name) {
    for (int i = 0; i < nbufs; i++) if (!strcmp(bufs[i].name, name)) return &bufs[i];
    fprintf(stderr, "ptxrun: no buffer %s\n", name);
    exit(2);
}

/* edge cases for float tests: zeros, denormals, infinities, NaN, large, small, near-integers */
static const uint32_t special32[] = {0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x00800000, 0x7f800000, 0xff800000,
    0x7fc00000, 0x7f7fffff, 0x3f800000, 0xbf800000, 0x3f000000, 0x3fc00000, 0x40200000, 0xbfc00000, 0x4b000001,
    0x3effffff, 0x49742400, 0xc0490fdb, 0x33800000};
static const uint64_t special64[] = {0, 0x8000000000000000ULL, 1, 0x000fffffffffffffULL, 0x0010000000000000ULL,
    0x7ff0000000000000ULL, 0xfff0000000000000ULL, 0x7ff8000000000000ULL, 0x7fefffffffffffffULL, 0x3ff0000000000000ULL,
    0xbff0000000000000ULL, 0x3fe0000000000000ULL, 0x3ff8000000000000ULL, 0x4004000000000000ULL, 0xbff8000000000000ULL,
    0x4330000000000001ULL};

/* f32 bits to f16 / bf16 bits, round to nearest even (finite inputs of modest size: the test generators') */
static uint16_t to_half(float f) {
    uint32_t x; memcpy(&x, &f, 4);
    uint32_t sign = x >> 16 & 0x8000, mag = x & 0x7fffffff;
    if (mag >= 0x477ff000) return (uint16_t)(sign | 0x7c00);           /* rounds to infinity */
    if (mag < 0x38800000) {                                            /* subnormal half */
        if (mag < 0x33000000) return (uint16_t)sign;
        uint32_t m = (mag & 0x7fffff) | 0x800000; int shift = 126 - (int)(mag >> 23);
        uint32_t r = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1))) r++;
        return (uint16_t)(sign | r);
    }
    uint32_t r = mag - 0x38000000, h = r >> 13, rem = r & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++;
    return (uint16_t)(sign | h);
}
static uint16_t to_bhalf(float f) {
    uint32_t x; memcpy(&x, &f, 4);
    uint32_t h = x >> 16, rem = x & 0xffff;
    if (rem > 0x8000 || (rem == 0x8000 && (h & 1))) h++;
    return (uint16_t)h;
}

static void init(buffer_t *b, char **w, int n) {
    uint64_t seed = n > 1 ? strtoull(w[1], 0, 0) : 1;
    unsigned char *p = b->host;
    for (size_t i = 0; i < b->count; i++) {
        uint64_t v = 0;
        if (!strcmp(w[0], "zero")) v = 0;
        else if (!strcmp(w[0], "iota")) v = i;
        else if (!strcmp(w[0], "fill")) v = strtoull(w[1], 0, 16);
        else if (!strcmp(w[0], "random")) v = sm64(&seed);
        else if (!strcmp(w[0], "float")) {
            double lo = atof(w[2]), hi = atof(w[3]), r = (sm64(&seed) >> 11) * (1.0 / 9007199254740992.0), x = lo + (hi - lo) * r;
            if (b->elem == 4) { float f = (float)x; memcpy(&v, &f, 4); } else memcpy(&v, &x, 8);
        } else if (!strcmp(w[0], "half") || !strcmp(w[0], "bhalf")) {
            double lo = atof(w[2]), hi = atof(w[3]), r = (sm64(&seed) >> 11) * (1.0 / 9007199254740992.0);
            float f = (float)(lo + (hi - lo) * r);
            v = w[0][0] == 'h' ? to_half(f) : to_bhalf(f);
        } else if (!strcmp(w[0], "special")) {
            uint64_t r = sm64(&seed);
            if (b->elem == 4) v = i < 20 ? special32[i] : (r % 3 == 0 ? special32[r % 20] ^ (uint32_t)(r >> 40 & 0x3f) : (uint32_t)r);
            else v = i < 16 ? special64[i] : (r % 3 == 0 ? special64[r % 16] ^ (r >> 50 & 0x3f) : r);
        } else { fprintf(stderr, "ptxrun: unknown init %s\n", w[0]); exit(2); }
        memcpy(p + i * b->elem, &v, b->elem);
    }
}

#define CK(x) do { CUresult r_ = (x); if (r_) { const char *n_ = "?"; if (cuGetErrorName) cuGetErrorName(r_, &n_); \
    printf("ERROR %s = %d %s\n", #x, r_, n_); return 3; } } while (0)

static int run_test(const char *dir);

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: ptxrun DIR...\n"); return 2; }
    void *h = dlopen("libcuda.so.1", RTLD_NOW);
    if (!h) { fprintf(stderr, "ptxrun: %s\n", dlerror()); return 2; }
#define L(f, s) *(void **)&f = dlsym(h, s)
    L(cuInit, "cuInit"); L(cuCtxCreate, "cuCtxCreate_v2"); L(cuModuleLoadDataEx, "cuModuleLoadDataEx");
    L(cuModuleGetFunction, "cuModuleGetFunction"); L(cuMemAlloc, "cuMemAlloc_v2"); L(cuMemcpyHtoD, "cuMemcpyHtoD_v2");
    L(cuMemcpyDtoH, "cuMemcpyDtoH_v2"); L(cuLaunchKernel, "cuLaunchKernel"); L(cuCtxSynchronize, "cuCtxSynchronize");
    L(cuGetErrorName, "cuGetErrorName"); L(cuMemFree, "cuMemFree_v2"); L(cuModuleUnload, "cuModuleUnload");
    L(cuCtxDestroy, "cuCtxDestroy_v2"); L(cuEventCreate, "cuEventCreate"); L(cuEventRecord, "cuEventRecord");
    L(cuEventSynchronize, "cuEventSynchronize"); L(cuEventElapsedTime, "cuEventElapsedTime_v2"); L(cuEventDestroy, "cuEventDestroy_v2");
    if (!cuEventElapsedTime) L(cuEventElapsedTime, "cuEventElapsedTime");
    CUcontext ctx;
    if (cuInit(0) || cuCtxCreate(&ctx, 0, 0)) { printf("ERROR init\n"); return 3; }
    int worst = 0;
    for (int i = 1; i < argc; i++) {
        if (argc > 2) { printf("== %s\n", argv[i]); fflush(stdout); }  /* before it runs: a test that hangs is the last named */
        int r = run_test(argv[i]);
        if (r > worst) worst = r;
        if (r == 3 && i + 1 < argc) {  /* a fault leaves the context unusable (sticky): the next test gets a new one */
            cuCtxDestroy(ctx);
            CUdeviceptr probe = 0;  /* some drivers cannot give this process a working context again */
            if (cuCtxCreate(&ctx, 0, 0) || cuMemAlloc(&probe, 4)) { printf("ERROR init\n"); return 3; }
            cuMemFree(probe);
        }
        fflush(stdout);
    }
    return argc > 2 ? 0 : worst;
}

static int run_test(const char *dir) {
    nbufs = 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/kernel.ptx", dir);
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); return 2; }
    fseek(f, 0, SEEK_END); long len = ftell(f); fseek(f, 0, SEEK_SET);
    char *ptx = calloc(1, len + 1);
    if (fread(ptx, 1, len, f) != (size_t)len) return 2;
    fclose(f);
    snprintf(path, sizeof path, "%s/test.txt", dir);
    f = fopen(path, "r");
    if (!f) { perror(path); return 2; }
    char kernel[256] = "", line[1024];
    int timed = 0;  /* test.txt "time N" */
    int jit = -1;  /* test.txt "jit LEVEL", PTXRUN_JIT_O: NVIDIA's JIT optimization level (-1: its default) */
    unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1}, shared = 0;
    void *params[64];
    unsigned char scalars[64][64];
    int nparams = 0;
    char outputs[MAXB][64];
    int nout = 0;
    while (fgets(line, sizeof line, f)) {
        char *w[16];
        int n = 0;
        for (char *t = strtok(line, " \t\r\n"); t && n < 16; t = strtok(NULL, " \t\r\n")) w[n++] = t;
        if (!n || w[0][0] == '#') continue;
        if (!strcmp(w[0], "kernel")) snprintf(kernel, sizeof kernel, "%s", w[1]);
        else if (!strcmp(w[0], "grid")) for (int i = 0; i < 3; i++) grid[i] = atoi(w[1 + i]);
        else if (!strcmp(w[0], "block")) for (int i = 0; i < 3; i++) block[i] = atoi(w[1 + i]);
        else if (!strcmp(w[0], "shared")) shared = atoi(w[1]);
        else if (!strcmp(w[0], "buffer")) {
            buffer_t *b = &bufs[nbufs++];
            snprintf(b->name, sizeof b->name, "%s", w[1]);
            snprintf(b->type, sizeof b->type, "%s", w[2]);
            b->count = strtoull(w[3], 0, 0);
            b->elem = elem_size(w[2]);
            b->host = calloc(b->count, b->elem);
            init(b, w + 4, n - 4);
            CK(cuMemAlloc(&b->dev, b->count * b->elem));
            CK(cuMemcpyHtoD(b->dev, b->host, b->count * b->elem));
        } else if (!strcmp(w[0], "param")) {
            if (!strcmp(w[1], "buffer")) params[nparams++] = &find(w[2])->dev;
            else if (!strcmp(w[1], "u32s") || !strcmp(w[1], "zero")) {  /* a uint3 (u32s X Y Z) or zeroed bytes (zero N) */
                memset(scalars[nparams], 0, sizeof scalars[nparams]);
                if (w[1][0] == 'u') for (int k = 2; k < n && k < 18; k++) { uint32_t v = (uint32_t)strtoul(w[k], 0, 0); memcpy(scalars[nparams] + 4 * (k - 2), &v, 4); }
                else if (atoi(w[2]) > 64) { fprintf(stderr, "ptxrun: zero %s: 64 bytes at most\n", w[2]); exit(2); }
                params[nparams] = scalars[nparams];
                nparams++;
            } else {
                size_t sz = elem_size(w[1]);
                uint64_t v;
                if (w[1][0] == 'f' && !strchr(w[2], 'x')) {
                    double d = atof(w[2]);
                    if (sz == 4) { float x = (float)d; memcpy(&v, &x, 4); } else memcpy(&v, &d, 8);
                } else v = strtoull(w[2], 0, 0);
                memcpy(scalars[nparams], &v, 8);
                params[nparams] = scalars[nparams];
                nparams++;
            }
        } else if (!strcmp(w[0], "output")) snprintf(outputs[nout++], 64, "%s", w[1]);
        else if (!strcmp(w[0], "jit")) jit = atoi(w[1]);
        else if (!strcmp(w[0], "time")) timed = atoi(w[1]);
    }
    fclose(f);
    char log[8192] = "";
    /* PTXRUN_JIT_O=0..4: the JIT's optimization level (CU_JIT_OPTIMIZATION_LEVEL), to tell a PTX defect from the
     * JIT's optimizer (docs/gpu-check.md) */
    int opts[] = {5, 6, 7};
    if (getenv("PTXRUN_JIT_O")) jit = atoi(getenv("PTXRUN_JIT_O"));
    void *vals[] = {log, (void *)(size_t)sizeof log, (void *)(size_t)(jit >= 0 ? jit : 4)};
    CUmodule mod;
    CUresult r = cuModuleLoadDataEx(&mod, ptx, jit >= 0 ? 3 : 2, opts, vals);
    free(ptx);
    if (r) { const char *nm = "?"; cuGetErrorName(r, &nm); printf("ERROR load %d %s\n%s\n", r, nm, log); return 3; }
    CUfunction fn;
    CK(cuModuleGetFunction(&fn, mod, kernel));
    CK(cuLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared, NULL, params, NULL));
    CK(cuCtxSynchronize());
    if (timed > 0) {  /* the same launch N times between two events: the kernel's time each (launch gaps included) */
        void *e0, *e1;
        float ms = 0;
        CK(cuEventCreate(&e0, 0)); CK(cuEventCreate(&e1, 0));
        CK(cuEventRecord(e0, NULL));
        for (int t = 0; t < timed; t++) CK(cuLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared, NULL, params, NULL));
        CK(cuEventRecord(e1, NULL)); CK(cuEventSynchronize(e1)); CK(cuEventElapsedTime(&ms, e0, e1));
        printf("time %s %d %.3f\n", kernel, timed, 1000.0 * ms / timed);
        cuEventDestroy(e0); cuEventDestroy(e1);
    }
    for (int o = 0; o < nout; o++) {
        buffer_t *b = find(outputs[o]);
        CK(cuMemcpyDtoH(b->host, b->dev, b->count * b->elem));
        printf("%s %s %zu\n", b->name, b->type, b->count);
        for (size_t i = 0; i < b->count; i++) {
            uint64_t v = 0;
            memcpy(&v, (unsigned char *)b->host + i * b->elem, b->elem);
            printf("%llx\n", (unsigned long long)v);
        }
    }
    for (int i = 0; i < nbufs; i++) { cuMemFree(bufs[i].dev); free(bufs[i].host); }
    cuModuleUnload(mod);
    return 0;
}
