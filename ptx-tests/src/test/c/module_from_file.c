/* ZLUDA-J test: a module loaded from a file (a fatbin, as nvcc -fatbin writes it, or PTX) with cuModuleLoadData and
 * each kernel named on the command line launched once on a stream with one pointer argument (the fake NVIDIA driver
 * logs it as the launch's first argument), then a synchronization. CudaBackendFakeTest runs it in several processes
 * over one compile cache: a fatbin loaded before is loaded by its record (ModuleRecords).
 * Usage: module_from_file FILE KERNEL... Build: gcc -o module_from_file module_from_file.c -L<dist>/lib -lcuda.
 * Prints "PASS: module from file", or the failing call. */
#include <stdio.h>
#include <stdlib.h>

typedef int CUresult;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream;
typedef unsigned long long CUdeviceptr;
CUresult cuInit(unsigned);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, int);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuModuleLoadData(CUmodule *, const void *);
CUresult cuModuleGetFunction(CUfunction *, CUmodule, const char *);
CUresult cuModuleGetGlobal_v2(CUdeviceptr *, size_t *, CUmodule, const char *);
CUresult cuStreamCreate(CUstream *, unsigned);
CUresult cuStreamSynchronize(CUstream);
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void **, void **);

#define CHECK(call) do { CUresult r_ = (call); if (r_) { printf("FAIL %s = %d\n", #call, r_); return 1; } } while (0)

int main(int argc, char **argv) {
    if (argc < 3) { printf("usage: %s FILE KERNEL...\n", argv[0]); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { printf("FAIL: cannot open %s\n", argv[1]); return 1; }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *image = calloc(1, (size_t)n + 16);  /* NUL-terminated for PTX text */
    if (!image || fread(image, 1, (size_t)n, f) != (size_t)n) { printf("FAIL: cannot read %s\n", argv[1]); return 1; }
    fclose(f);
    CUcontext ctx;
    CUmodule m;
    CUstream s;
    CHECK(cuInit(0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuModuleLoadData(&m, image));
    CUdeviceptr table;
    size_t bytes = 0;
    CHECK(cuModuleGetGlobal_v2(&table, &bytes, m, "table"));
    if (bytes == 0) { printf("FAIL: the table has no bytes\n"); return 1; }
    CHECK(cuStreamCreate(&s, 1));
    for (int i = 2; i < argc; i++) {
        CUfunction fn;
        CHECK(cuModuleGetFunction(&fn, m, argv[i]));
        CUdeviceptr out = 90 + i;
        int count = 7;
        void *args[] = {&out, &count};
        CHECK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, s, args, NULL));
    }
    CHECK(cuStreamSynchronize(s));
    printf("PASS: module from file\n");
    return 0;
}
