/* ZLUDA-J integration test: cubins (NVIDIA machine code) given to cuModuleLoadData. A well-formed cubin cannot run
 * here: CUDA_ERROR_NO_BINARY_FOR_GPU (209), as NVIDIA answers a cubin for another GPU; a truncated or corrupt one, or
 * another machine's ELF, is CUDA_ERROR_INVALID_IMAGE (200), as NVIDIA answers it. The image has no size: a truncated
 * cubin is its first part followed by zeros. Build: gcc -o driver_cubin driver_cubin.c -L<dist>/lib -lcuda.
 * Usage: driver_cubin FILE.cubin. Prints the answers and PASS or FAIL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
CUresult cuInit(unsigned);
CUresult cuDeviceGet(int *, int);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, int);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuModuleLoadData(CUmodule *, const void *);

int main(int argc, char **argv) {
    int dev;
    CUcontext ctx;
    CUmodule mod;
    if (argc < 2) { printf("usage: driver_cubin FILE.cubin\n"); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { printf("FAIL: cannot open %s\n", argv[1]); return 1; }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *whole = malloc(n), *half = calloc(1, n), *head = calloc(1, n), *other = calloc(1, n);
    if (fread(whole, 1, n, f) != (size_t)n) { printf("FAIL: short read\n"); return 1; }
    fclose(f);
    memcpy(half, whole, n / 2);              /* the section headers (at the end) are zeros */
    memcpy(head, whole, 64);                 /* only the ELF header */
    memcpy(other, whole, n);
    other[18] = 62; other[19] = 0;           /* e_machine: x86-64 */
    if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) || cuCtxSetCurrent(ctx)) { printf("FAIL: setup\n"); return 1; }
    int r[4] = {cuModuleLoadData(&mod, whole), cuModuleLoadData(&mod, half), cuModuleLoadData(&mod, head), cuModuleLoadData(&mod, other)};
    printf("answers: %d %d %d %d\n", r[0], r[1], r[2], r[3]);
    int bad = r[0] != 209 || r[1] != 200 || r[2] != 200 || r[3] != 200;
    printf(bad ? "FAIL: cubins\n" : "PASS: cubins\n");
    return bad;
}
