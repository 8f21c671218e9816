/* ZLUDA-J integration test: CUDA arrays (cuArrayCreate, cuArray3DCreate, descriptors) and every copy to and from them:
 * HtoA/AtoH/DtoA/AtoD/AtoA by byte offset (1-D arrays; a 2-D array's first row only, as NVIDIA), 2-D copies with pitched host memory and between arrays, a
 * 3-D copy through a 3-D array.
 * The same program passes on NVIDIA's driver; its "errors:" line is compared with NVIDIA's answers.
 * Build: gcc -o driver_arrays driver_arrays.c -L<dist>/lib -lcuda. Prints PASS. */
#include <stdio.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUarray_st *CUarray;
typedef unsigned long long CUdeviceptr;
typedef struct { size_t Width, Height; int Format; unsigned NumChannels; } CUDA_ARRAY_DESCRIPTOR;
typedef struct { size_t Width, Height, Depth; int Format; unsigned NumChannels, Flags; } CUDA_ARRAY3D_DESCRIPTOR;
typedef struct {
    size_t srcXInBytes, srcY;
    int srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    CUarray srcArray;
    size_t srcPitch;
    size_t dstXInBytes, dstY;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    CUarray dstArray;
    size_t dstPitch;
    size_t WidthInBytes, Height;
} CUDA_MEMCPY2D;
typedef struct {
    size_t srcXInBytes, srcY, srcZ, srcLOD;
    int srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    CUarray srcArray;
    void *reserved0;
    size_t srcPitch, srcHeight;
    size_t dstXInBytes, dstY, dstZ, dstLOD;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    CUarray dstArray;
    void *reserved1;
    size_t dstPitch, dstHeight;
    size_t WidthInBytes, Height, Depth;
} CUDA_MEMCPY3D;

CUresult cuInit(unsigned int flags);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n);
CUresult cuArrayCreate_v2(CUarray *a, const CUDA_ARRAY_DESCRIPTOR *d);
CUresult cuArray3DCreate_v2(CUarray *a, const CUDA_ARRAY3D_DESCRIPTOR *d);
CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *d, CUarray a);
CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *d, CUarray a);
CUresult cuArrayDestroy(CUarray a);
CUresult cuMemcpyHtoA_v2(CUarray dst, size_t off, const void *src, size_t n);
CUresult cuMemcpyAtoH_v2(void *dst, CUarray src, size_t off, size_t n);
CUresult cuMemcpyDtoA_v2(CUarray dst, size_t off, CUdeviceptr src, size_t n);
CUresult cuMemcpyAtoD_v2(CUdeviceptr dst, CUarray src, size_t off, size_t n);
CUresult cuMemcpyAtoA_v2(CUarray dst, size_t doff, CUarray src, size_t soff, size_t n);
CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *c);
CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *c);

static int bad;
#define CHECK(x) do { CUresult r_ = (x); if (r_) { printf("FAIL %s = %d (line %d)\n", #x, r_, __LINE__); return 1; } } while (0)
#define EXPECT(c, ...) do { if (!(c)) { printf("FAIL line %d: ", __LINE__); printf(__VA_ARGS__); printf("\n"); bad++; } } while (0)

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate_v2(&ctx, 0, dev));
    enum { W = 16, H = 8, HP = 20 };  /* HP: host pitch in floats */
    float host[H][HP], back[H][W];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < HP; x++) host[y][x] = (float)(y * 100 + x);
    CUarray a, b;
    CUDA_ARRAY_DESCRIPTOR ad = {W, H, 0x20 /* FLOAT */, 1}, got;
    CHECK(cuArrayCreate_v2(&a, &ad));
    CHECK(cuArrayCreate_v2(&b, &ad));
    memset(&got, 0, sizeof got);
    CHECK(cuArrayGetDescriptor_v2(&got, a));
    EXPECT(got.Width == W && got.Height == H && got.Format == 0x20 && got.NumChannels == 1, "descriptor");

    /* host (pitched) -> array, array -> array, array -> host (packed) */
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = 1; c.srcHost = host; c.srcPitch = HP * sizeof(float);
    c.dstMemoryType = 3; c.dstArray = a;
    c.WidthInBytes = W * sizeof(float); c.Height = H;
    CHECK(cuMemcpy2D_v2(&c));
    memset(&c, 0, sizeof c);
    c.srcMemoryType = 3; c.srcArray = a;
    c.dstMemoryType = 3; c.dstArray = b;
    c.WidthInBytes = W * sizeof(float); c.Height = H;
    CHECK(cuMemcpy2D_v2(&c));
    memset(&c, 0, sizeof c);
    c.srcMemoryType = 3; c.srcArray = b;
    c.dstMemoryType = 1; c.dstHost = back; c.dstPitch = W * sizeof(float);
    c.WidthInBytes = W * sizeof(float); c.Height = H;
    CHECK(cuMemcpy2D_v2(&c));
    int wrong = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) wrong += back[y][x] != host[y][x];
    EXPECT(wrong == 0, "2-D copies through arrays: %d wrong", wrong);

    /* by byte offset, on 1-D arrays: element 3W.. of a copy of the host data, through device memory */
    CUarray l, l2;
    CUDA_ARRAY_DESCRIPTOR ld = {W * H, 0, 0x20, 1};
    CHECK(cuArrayCreate_v2(&l, &ld));
    CHECK(cuArrayCreate_v2(&l2, &ld));
    float flat[W * H];
    for (int i = 0; i < W * H; i++) flat[i] = (float)i;
    CHECK(cuMemcpyHtoA_v2(l, 0, flat, sizeof flat));
    CHECK(cuMemcpyAtoA_v2(l2, 0, l, 0, sizeof flat));
    CUdeviceptr d;
    float row[W];
    CHECK(cuMemAlloc_v2(&d, sizeof row));
    CHECK(cuMemcpyAtoD_v2(d, l2, 3 * W * sizeof(float), sizeof row));
    CHECK(cuMemcpyDtoH_v2(row, d, sizeof row));
    EXPECT(row[0] == 3 * W && row[W - 1] == 4 * W - 1, "elements 3W..: %g %g", row[0], row[W - 1]);
    float seven[W];
    for (int x = 0; x < W; x++) seven[x] = 7;
    CHECK(cuMemcpyHtoA_v2(l, W * sizeof(float), seven, sizeof seven));
    CHECK(cuMemcpyDtoA_v2(l, 2 * W * sizeof(float), d, sizeof row));
    float r1[W], r2[W];
    CHECK(cuMemcpyAtoH_v2(r1, l, W * sizeof(float), sizeof r1));
    CHECK(cuMemcpyAtoH_v2(r2, l, 2 * W * sizeof(float), sizeof r2));
    EXPECT(r1[5] == 7 && r2[0] == 3 * W, "written by offset: %g %g", r1[5], r2[0]);

    /* a 3-D array of uchar4 */
    enum { X = 8, Y = 4, Z = 3 };
    unsigned char vol[Z][Y][X][4], out[Z][Y][X][4];
    for (int i = 0; i < (int)sizeof vol; i++) ((unsigned char *)vol)[i] = (unsigned char)(i * 7);
    CUarray v;
    CUDA_ARRAY3D_DESCRIPTOR vd = {X, Y, Z, 0x01 /* UNSIGNED_INT8 */, 4, 0}, vgot;
    CHECK(cuArray3DCreate_v2(&v, &vd));
    memset(&vgot, 0, sizeof vgot);
    CHECK(cuArray3DGetDescriptor_v2(&vgot, v));
    EXPECT(vgot.Width == X && vgot.Height == Y && vgot.Depth == Z && vgot.NumChannels == 4, "3-D descriptor");
    CUDA_MEMCPY3D c3;
    memset(&c3, 0, sizeof c3);
    c3.srcMemoryType = 1; c3.srcHost = vol; c3.srcPitch = X * 4; c3.srcHeight = Y;
    c3.dstMemoryType = 3; c3.dstArray = v;
    c3.WidthInBytes = X * 4; c3.Height = Y; c3.Depth = Z;
    CHECK(cuMemcpy3D_v2(&c3));
    memset(&c3, 0, sizeof c3);
    memset(out, 0, sizeof out);
    c3.srcMemoryType = 3; c3.srcArray = v;
    c3.dstMemoryType = 1; c3.dstHost = out; c3.dstPitch = X * 4; c3.dstHeight = Y;
    c3.WidthInBytes = X * 4; c3.Height = Y; c3.Depth = Z;
    CHECK(cuMemcpy3D_v2(&c3));
    EXPECT(memcmp(vol, out, sizeof vol) == 0, "3-D array round trip");

    CUarray x;
    CUDA_ARRAY_DESCRIPTOR badFormat = {W, H, 0x7777, 1}, badChannels = {W, H, 0x20, 3};
    int e1 = cuArrayCreate_v2(&x, &badFormat);
    int e2 = cuArrayCreate_v2(&x, &badChannels);
    int e3 = cuMemcpyAtoH_v2(r1, l, W * H * sizeof(float) - 4, sizeof r1);  /* past the end */
    int e4 = cuMemcpyAtoH_v2(r1, a, 0, sizeof r1);                           /* a 2-D array's first row by offset */
    int e5 = cuMemcpyAtoH_v2(r1, a, 0, 2 * sizeof r1);                       /* two rows by offset */
    printf("errors: %d %d %d %d %d\n", e1, e2, e3, e4, e5);
    CHECK(cuArrayDestroy(a));
    CHECK(cuArrayDestroy(b));
    CHECK(cuArrayDestroy(v));
    CHECK(cuArrayDestroy(l));
    CHECK(cuArrayDestroy(l2));
    if (bad) return 1;
    printf("PASS: arrays\n");
    return 0;
}
