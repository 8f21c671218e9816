/* ZLUDA-J integration test: pitched allocations, 2-D copies (host/device both ways, offsets, device to device) and
 * 2-D sets through the shim, with the errors NVIDIA's driver gives. Build: gcc -o driver_memcpy2d driver_memcpy2d.c
 * -L<dist>/lib -lcuda. Prints PASS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
typedef struct {
    size_t srcXInBytes, srcY;
    int srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    void *srcArray;
    size_t srcPitch;
    size_t dstXInBytes, dstY;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    void *dstArray;
    size_t dstPitch;
    size_t WidthInBytes, Height;
} CUDA_MEMCPY2D;
CUresult cuInit(unsigned int flags);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height, unsigned int elem);
CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *p);
CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *p, CUstream s);
CUresult cuMemsetD2D32_v2(CUdeviceptr dst, size_t pitch, unsigned int v, size_t w, size_t h);
CUresult cuStreamSynchronize(CUstream s);

#define CHECK(x) do { CUresult r_ = (x); if (r_) { printf("FAIL %s = %d (line %d)\n", #x, r_, __LINE__); return 1; } } while (0)
enum { HOST = 1, DEVICE = 2 };
#define W 100
#define H 10

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate_v2(&ctx, 0, dev));
    CUdeviceptr a, b;
    size_t pa, pb;
    CHECK(cuMemAllocPitch_v2(&a, &pa, W * 4, H, 4));
    CHECK(cuMemAllocPitch_v2(&b, &pb, W * 4, H, 4));
    if (pa < W * 4 || pa % 32) { printf("FAIL pitch %zu\n", pa); return 1; }
    printf("pitch for %d bytes: %zu\n", W * 4, pa);
    static unsigned h[H][W], back[H][W + 7];
    for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) h[y][x] = y * 1000 + x;
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = HOST; c.srcHost = h; c.srcPitch = W * 4;
    c.dstMemoryType = DEVICE; c.dstDevice = a; c.dstPitch = pa;
    c.WidthInBytes = W * 4; c.Height = H;
    CHECK(cuMemcpy2D_v2(&c));
    /* a 5x3 rectangle at (x 10, y 2) set to 7 */
    CHECK(cuMemsetD2D32_v2(a + 2 * pa + 10 * 4, pa, 7, 5, 3));
    /* device to device with offsets: rows 1..8, columns 3..99 of a to (0,0) of b */
    memset(&c, 0, sizeof c);
    c.srcMemoryType = DEVICE; c.srcDevice = a; c.srcPitch = pa; c.srcXInBytes = 3 * 4; c.srcY = 1;
    c.dstMemoryType = DEVICE; c.dstDevice = b; c.dstPitch = pb;
    c.WidthInBytes = (W - 3) * 4; c.Height = H - 2;
    CHECK(cuMemcpy2DAsync_v2(&c, 0));
    CHECK(cuStreamSynchronize(0));
    /* back to a host array of another pitch */
    memset(&c, 0, sizeof c);
    c.srcMemoryType = DEVICE; c.srcDevice = b; c.srcPitch = pb;
    c.dstMemoryType = HOST; c.dstHost = back; c.dstPitch = (W + 7) * 4;
    c.WidthInBytes = (W - 3) * 4; c.Height = H - 2;
    CHECK(cuMemcpy2D_v2(&c));
    int bad = 0;
    for (int y = 0; y < H - 2; y++)
        for (int x = 0; x < W - 3; x++) {
            int sy = y + 1, sx = x + 3;
            unsigned want = (sy >= 2 && sy < 5 && sx >= 10 && sx < 15) ? 7 : (unsigned)(sy * 1000 + sx);
            if (back[y][x] != want && bad++ < 5) printf("back[%d][%d] = %u, want %u\n", y, x, back[y][x], want);
        }
    /* errors: a width beyond the pitch, NULL parameters, an unknown memory type */
    c.WidthInBytes = pb + 4;
    CUresult e1 = cuMemcpy2D_v2(&c);
    CUresult e2 = cuMemcpy2D_v2(NULL);
    c.WidthInBytes = 4; c.srcMemoryType = 9;
    CUresult e3 = cuMemcpy2D_v2(&c);
    CUresult e4 = cuMemAllocPitch_v2(&b, &pb, 64, 4, 3);
    printf("errors: %d %d %d %d\n", e1, e2, e3, e4);
    if (e1 != 1 || e2 != 1 || e3 != 1 || e4 != 1) bad++;
    if (bad) { printf("FAIL: %d values or errors wrong\n", bad); return 1; }
    printf("PASS: 2-D copies\n");
    return 0;
}
