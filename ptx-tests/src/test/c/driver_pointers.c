/* ZLUDA-J integration test: pointer attributes, address ranges, registered host memory and stream properties
 * through the shim, with the answers NVIDIA's driver gives (the same program passes on an H200).
 * Build: gcc -o driver_pointers driver_pointers.c -L<dist>/lib -lcuda. Prints PASS. */
#include <stdio.h>
#include <stdlib.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
CUresult cuInit(unsigned int flags);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int flags);
CUresult cuMemHostGetFlags(unsigned int *flags, void *p);
CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int flags);
CUresult cuMemHostUnregister(void *p);
CUresult cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size, CUdeviceptr dptr);
CUresult cuPointerGetAttribute(void *data, int attribute, CUdeviceptr ptr);
CUresult cuPointerGetAttributes(unsigned int n, int *attributes, void **data, CUdeviceptr ptr);
CUresult cuStreamCreate(CUstream *s, unsigned int flags);
CUresult cuStreamGetFlags(CUstream s, unsigned int *flags);
CUresult cuStreamGetPriority(CUstream s, int *priority);
CUresult cuStreamGetCtx(CUstream s, CUcontext *ctx);
CUresult cuStreamGetId(CUstream s, unsigned long long *id);

static int bad;
#define CHECK(x) do { CUresult r_ = (x); if (r_) { printf("FAIL %s = %d (line %d)\n", #x, r_, __LINE__); return 1; } } while (0)
#define EXPECT(c, ...) do { if (!(c)) { printf("FAIL line %d: ", __LINE__); printf(__VA_ARGS__); printf("\n"); bad++; } } while (0)

int main(void) {
    CUdevice dev;
    CUcontext ctx, got;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate_v2(&ctx, 0, dev));
    CUdeviceptr d, base = 0;
    size_t size = 0;
    CHECK(cuMemAlloc_v2(&d, 1 << 20));
    unsigned type = 0;
    int ordinal = -1;
    CHECK(cuPointerGetAttribute(&type, 2, d + 100));
    EXPECT(type == 2, "device memory type %u", type);
    CHECK(cuPointerGetAttribute(&base, 11, d + 100));
    CHECK(cuPointerGetAttribute(&size, 12, d + 100));
    EXPECT(base == d && size == 1 << 20, "range %llx %zu", base, size);
    CHECK(cuPointerGetAttribute(&ordinal, 9, d));
    EXPECT(ordinal == 0, "ordinal %d", ordinal);
    CHECK(cuPointerGetAttribute(&got, 1, d));
    EXPECT(got == ctx, "context of the allocation");
    base = 0; size = 0;
    CHECK(cuMemGetAddressRange_v2(&base, &size, d + 12345));
    EXPECT(base == d && size == 1 << 20, "address range %llx %zu", base, size);
    void *h;
    CHECK(cuMemHostAlloc(&h, 4096, 0));
    CHECK(cuPointerGetAttribute(&type, 2, (CUdeviceptr)h));
    EXPECT(type == 1, "host memory type %u", type);
    unsigned flags = 99;
    CHECK(cuMemHostGetFlags(&flags, h));
    EXPECT(flags == 2, "host alloc flags %u (DEVICEMAP implied by unified addressing)", flags);
    char *m = malloc(1 << 16);
    EXPECT(cuPointerGetAttribute(&type, 2, (CUdeviceptr)m) == 1, "unknown host pointer: CUDA_ERROR_INVALID_VALUE");
    EXPECT(cuMemGetAddressRange_v2(&base, &size, (CUdeviceptr)m) == 500, "no range: CUDA_ERROR_NOT_FOUND");
    int attrs[2] = {2, 8};
    unsigned t2 = 77, managed = 77;
    void *data[2] = {&t2, &managed};
    CHECK(cuPointerGetAttributes(2, attrs, data, (CUdeviceptr)m));
    EXPECT(t2 == 0 && managed == 0, "attributes of unknown memory read 0: %u %u", t2, managed);
    CHECK(cuMemHostRegister_v2(m, 1 << 16, 0));
    CHECK(cuPointerGetAttribute(&type, 2, (CUdeviceptr)(m + 10)));
    EXPECT(type == 1, "registered memory type %u", type);
    EXPECT(cuMemHostRegister_v2(m + 4096, 4096, 0) == 712, "registering twice: CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED");
    CHECK(cuMemHostUnregister(m));
    EXPECT(cuMemHostUnregister(m) == 713, "unregistering twice: CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED");
    CUstream s1, s2;
    CHECK(cuStreamCreate(&s1, 1));
    CHECK(cuStreamCreate(&s2, 0));
    unsigned sf = 9;
    int prio = 9;
    unsigned long long id1 = 0, id2 = 0;
    CHECK(cuStreamGetFlags(s1, &sf));
    EXPECT(sf == 1, "non-blocking flag %u", sf);
    CHECK(cuStreamGetPriority(s2, &prio));
    EXPECT(prio == 0, "priority %d", prio);
    CHECK(cuStreamGetCtx(s1, &got));
    EXPECT(got == ctx, "stream context");
    CHECK(cuStreamGetId(s1, &id1));
    CHECK(cuStreamGetId(s2, &id2));
    EXPECT(id1 != id2, "stream ids %llu %llu", id1, id2);
    if (bad) return 1;
    printf("PASS: pointers and streams\n");
    return 0;
}
