/* ZLUDA-J integration test: stream memory operations (a stream waiting for a word another stream writes, 32 and
 * 64 bits, every wait condition), stream attributes, device and context of a stream, capture info, managed memory
 * attached and prefetched, graph upload. Passes on NVIDIA's driver too.
 * Build: gcc -o driver_stream_ops driver_stream_ops.c -L<dist>/lib -lcuda. Prints PASS. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef unsigned long long CUdeviceptr;
CUresult cuInit(unsigned int flags);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuDeviceGetAttribute(int *v, int attrib, CUdevice dev);
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned flags);
CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned v, size_t n);
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned v, size_t n, CUstream s);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n);
CUresult cuMemPrefetchAsync(CUdeviceptr p, size_t n, CUdevice dst, CUstream s);
CUresult cuStreamCreate(CUstream *s, unsigned int flags);
CUresult cuStreamQuery(CUstream s);
CUresult cuStreamSynchronize(CUstream s);
CUresult cuStreamWaitValue32_v2(CUstream s, CUdeviceptr addr, unsigned value, unsigned flags);
CUresult cuStreamWriteValue32_v2(CUstream s, CUdeviceptr addr, unsigned value, unsigned flags);
CUresult cuStreamWaitValue64_v2(CUstream s, CUdeviceptr addr, unsigned long long value, unsigned flags);
CUresult cuStreamWriteValue64_v2(CUstream s, CUdeviceptr addr, unsigned long long value, unsigned flags);
CUresult cuStreamGetAttribute(CUstream s, int attr, void *value);
CUresult cuStreamSetAttribute(CUstream s, int attr, const void *value);
CUresult cuStreamCopyAttributes(CUstream dst, CUstream src);
CUresult cuStreamGetDevice(CUstream s, CUdevice *dev);
CUresult cuStreamGetCtx_v2(CUstream s, CUcontext *ctx, void **green);
CUresult cuStreamAttachMemAsync(CUstream s, CUdeviceptr p, size_t length, unsigned flags);
CUresult cuStreamBeginCapture_v2(CUstream s, int mode);
CUresult cuStreamEndCapture(CUstream s, CUgraph *g);
CUresult cuStreamGetCaptureInfo(CUstream s, int *status, unsigned long long *id);
CUresult cuGraphInstantiateWithFlags(CUgraphExec *e, CUgraph g, unsigned long long flags);
CUresult cuGraphUpload(CUgraphExec e, CUstream s);
CUresult cuGraphLaunch(CUgraphExec e, CUstream s);

static int bad;
#define CHECK(x) do { CUresult r_ = (x); if (r_) { printf("FAIL %s = %d (line %d)\n", #x, r_, __LINE__); return 1; } } while (0)
#define EXPECT(c, ...) do { if (!(c)) { printf("FAIL line %d: ", __LINE__); printf(__VA_ARGS__); printf("\n"); bad++; } } while (0)

int main(void) {
    CUdevice dev;
    CUcontext ctx, got;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate_v2(&ctx, 0, dev));
    int ops = 0, nor = 0;
    CHECK(cuDeviceGetAttribute(&ops, 93, dev));
    CHECK(cuDeviceGetAttribute(&nor, 123, dev));
    EXPECT(ops == 0 && nor == 1, "WAIT_VALUE_NOR reported, the deprecated v1 attribute not (as NVIDIA): %d %d", ops, nor);
    CUstream a, b;
    CHECK(cuStreamCreate(&a, 1));
    CHECK(cuStreamCreate(&b, 1));
    CUdeviceptr words, data;
    CHECK(cuMemAlloc_v2(&words, 64));
    CHECK(cuMemAlloc_v2(&data, 1024));
    CHECK(cuMemsetD32_v2(words, 0, 16));
    CHECK(cuMemsetD32_v2(data, 0, 256));

    /* a waits until b writes the flag; then sets the data and writes a second word */
    CHECK(cuStreamWaitValue32_v2(a, words, 1, 0 /* GEQ */));
    CHECK(cuMemsetD32Async(data, 7, 256, a));
    CHECK(cuStreamWriteValue32_v2(a, words + 4, 5, 0));
    usleep(50000);
    int waiting = cuStreamQuery(a);
    unsigned early = 99;
    CHECK(cuMemcpyDtoH_v2(&early, data, 4));
    CHECK(cuStreamWriteValue32_v2(b, words, 3, 0));
    CHECK(cuStreamSynchronize(a));
    unsigned w[2], d0 = 0;
    CHECK(cuMemcpyDtoH_v2(w, words, 8));
    CHECK(cuMemcpyDtoH_v2(&d0, data, 4));
    EXPECT(waiting == 600 && early == 0, "stream a waited: query %d, data %u", waiting, early);
    EXPECT(w[0] == 3 && w[1] == 5 && d0 == 7, "after the wait: %u %u %u", w[0], w[1], d0);

    /* the other conditions, and 64-bit words */
    CHECK(cuStreamWaitValue32_v2(a, words, 3, 1 /* EQ */));
    CHECK(cuStreamWaitValue32_v2(a, words, 2, 2 /* AND: 3 & 2 */));
    CHECK(cuStreamWaitValue32_v2(a, words, 0xfffffff0u, 3 /* NOR: ~(3 | 0xfffffff0) = 0xc */));
    CHECK(cuStreamWriteValue64_v2(a, words + 8, 0x123456789abcdefull, 0));
    CHECK(cuStreamWaitValue64_v2(a, words + 8, 0x123456789abcdefull, 1));
    CHECK(cuStreamSynchronize(a));
    unsigned long long w64 = 0;
    CHECK(cuMemcpyDtoH_v2(&w64, words + 8, 8));
    EXPECT(w64 == 0x123456789abcdefull, "64-bit word %llx", w64);

    /* attributes: SYNCHRONIZATION_POLICY (3) set, read back, copied; PRIORITY (8) of a default stream */
    unsigned char v[64], r[64];
    memset(v, 0, sizeof v);
    v[0] = 2;  /* CU_SYNC_POLICY_YIELD */
    CHECK(cuStreamSetAttribute(a, 3, v));
    memset(r, 0xff, sizeof r);
    CHECK(cuStreamGetAttribute(a, 3, r));
    EXPECT(r[0] == 2, "policy %d", r[0]);
    CHECK(cuStreamCopyAttributes(b, a));
    memset(r, 0xff, sizeof r);
    CHECK(cuStreamGetAttribute(b, 3, r));
    EXPECT(r[0] == 2, "copied policy %d", r[0]);
    int prio[2] = {-1, 0x5a5a5a5a};  /* an int, as applications pass for PRIORITY: nothing after it is written */
    CHECK(cuStreamGetAttribute(a, 8, prio));
    EXPECT(prio[0] == 0 && prio[1] == 0x5a5a5a5a, "priority %d, the word after it 0x%x", prio[0], prio[1]);
    CUdevice sd = -1;
    void *green = (void *)1;
    CHECK(cuStreamGetDevice(a, &sd));
    CHECK(cuStreamGetCtx_v2(a, &got, &green));
    EXPECT(sd == dev && got == ctx && green == NULL, "stream device and context");

    /* capture info, graph upload */
    int status = -1;
    unsigned long long id = 0;
    CUgraph g;
    CUgraphExec x;
    CHECK(cuStreamBeginCapture_v2(b, 0));
    CHECK(cuStreamGetCaptureInfo(b, &status, &id));
    EXPECT(status == 1 && id != 0, "capturing: %d %llu", status, id);
    CHECK(cuMemsetD32Async(data, 9, 256, b));
    CHECK(cuStreamEndCapture(b, &g));
    CHECK(cuGraphInstantiateWithFlags(&x, g, 0));
    CHECK(cuGraphUpload(x, b));
    CHECK(cuGraphLaunch(x, b));
    CHECK(cuStreamSynchronize(b));
    CHECK(cuMemcpyDtoH_v2(&d0, data + 1020, 4));
    EXPECT(d0 == 9, "graph ran: %u", d0);

    /* managed memory attached to a stream and prefetched to the device */
    CUdeviceptr m;
    CHECK(cuMemAllocManaged(&m, 4096, 1));
    CHECK(cuStreamAttachMemAsync(a, m, 0, 4 /* SINGLE */));
    CHECK(cuMemPrefetchAsync(m, 4096, dev, a));
    CHECK(cuStreamSynchronize(a));
    if (bad) return 1;
    printf("PASS: stream operations\n");
    return 0;
}
