/* ZLUDA-J integration test: texture and surface objects through the driver API (cuTexObjectCreate, cuSurfObjectCreate,
 * their descriptions read back, misuse) and a kernel sampling a texture and writing a surface of layered arrays.
 * The same program runs on NVIDIA's driver; its "errors:" line is compared with NVIDIA's answers.
 * Build: gcc -o driver_textures driver_textures.c -L<dist>/lib -lcuda. Prints PASS. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUarray_st *CUarray;
typedef unsigned long long CUdeviceptr, CUtexObject, CUsurfObject;
typedef struct { size_t Width, Height, Depth; int Format; unsigned NumChannels, Flags; } CUDA_ARRAY3D_DESCRIPTOR;
typedef struct {
    int resType;
    union {
        struct { CUarray hArray; } array;
        struct { CUdeviceptr devPtr; int format; unsigned numChannels; size_t sizeInBytes; } linear;
        struct { CUdeviceptr devPtr; int format; unsigned numChannels; size_t width, height, pitchInBytes; } pitch2D;
        struct { int reserved[32]; } reserved;
    } res;
    unsigned flags;
} CUDA_RESOURCE_DESC;
typedef struct {
    int addressMode[3];
    int filterMode;
    unsigned flags, maxAnisotropy;
    int mipmapFilterMode;
    float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
    float borderColor[4];
    int reserved[12];
} CUDA_TEXTURE_DESC;
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
CUresult cuCtxSynchronize(void);
CUresult cuModuleLoadData(CUmodule *m, const void *image);
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void *s, void **params, void **extra);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemFree_v2(CUdeviceptr dptr);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n);
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n);
CUresult cuArray3DCreate_v2(CUarray *a, const CUDA_ARRAY3D_DESCRIPTOR *d);
CUresult cuArrayDestroy(CUarray a);
CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *p);
CUresult cuTexObjectCreate(CUtexObject *t, const CUDA_RESOURCE_DESC *r, const CUDA_TEXTURE_DESC *td, const void *view);
CUresult cuTexObjectDestroy(CUtexObject t);
CUresult cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *r, CUtexObject t);
CUresult cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *td, CUtexObject t);
CUresult cuSurfObjectCreate(CUsurfObject *s, const CUDA_RESOURCE_DESC *r);
CUresult cuSurfObjectDestroy(CUsurfObject s);
CUresult cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *r, CUsurfObject s);

static int bad;
#define CHECK(x) do { CUresult r_ = (x); if (r_) { printf("FAIL %s = %d (line %d)\n", #x, r_, __LINE__); return 1; } } while (0)
#define EXPECT(c, ...) do { if (!(c)) { printf("FAIL line %d: ", __LINE__); printf(__VA_ARGS__); printf("\n"); bad++; } } while (0)

/* out[layer * 4 + x] = texel (x, 1) of layer `layer` of a 2-D layered float texture (point, unnormalized), plus 0.5
 * at texel centres; then the same values + 1 written through a surface into a 1-D layered array */
static const char *ptx =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry k(.param .u64 t, .param .u64 s, .param .u64 out) {\n"
    "  .reg .u32 %r<8>; .reg .f32 %f<8>; .reg .u64 %rd<6>;\n"
    "  ld.param.u64 %rd1, [t]; ld.param.u64 %rd2, [s]; ld.param.u64 %rd3, [out];\n"
    "  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x;\n"
    "  cvt.rn.f32.u32 %f1, %r1; add.f32 %f1, %f1, 0f3F000000; mov.f32 %f2, 0f3FC00000;\n"
    "  tex.a2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%r2, %f1, %f2, %f2}];\n"
    "  mad.lo.u32 %r3, %r2, 4, %r1; mul.wide.u32 %rd4, %r3, 4; add.u64 %rd5, %rd3, %rd4;\n"
    "  st.global.f32 [%rd5], %f3;\n"
    "  add.f32 %f7, %f3, 0f3F800000; mov.b32 %r4, %f7; shl.b32 %r5, %r1, 2;\n"
    "  sust.b.a1d.b32.trap [%rd2, {%r2, %r5}], {%r4};\n"
    "  ret;\n}\n";

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate_v2(&ctx, 0, dev));
    CUmodule mod;
    CUfunction k;
    CHECK(cuModuleLoadData(&mod, ptx));
    CHECK(cuModuleGetFunction(&k, mod, "k"));

    /* a 2-D layered float array 4x3, 2 layers: texel (x, y, l) = 100 l + 10 y + x */
    CUDA_ARRAY3D_DESCRIPTOR d2 = {4, 3, 2, 0x20, 1, 1 /* LAYERED */};
    CUarray a2;
    CHECK(cuArray3DCreate_v2(&a2, &d2));
    float texels[2][3][4];
    for (int l = 0; l < 2; l++) for (int y = 0; y < 3; y++) for (int x = 0; x < 4; x++) texels[l][y][x] = 100.0f * l + 10 * y + x;
    CUDA_MEMCPY3D cp;
    memset(&cp, 0, sizeof cp);
    cp.srcMemoryType = 1; /* HOST */
    cp.srcHost = texels;
    cp.srcPitch = 16;
    cp.srcHeight = 3;
    cp.dstMemoryType = 3; /* ARRAY */
    cp.dstArray = a2;
    cp.WidthInBytes = 16;
    cp.Height = 3;
    cp.Depth = 2;
    CHECK(cuMemcpy3D_v2(&cp));
    /* a 1-D layered u32 array of 4 texels, 2 layers, for surface stores */
    CUDA_ARRAY3D_DESCRIPTOR d1 = {4, 0, 2, 0x03, 1, 1 | 2 /* LAYERED | SURFACE_LDST */};
    CUarray a1;
    CHECK(cuArray3DCreate_v2(&a1, &d1));

    CUDA_RESOURCE_DESC res;
    memset(&res, 0, sizeof res);
    res.resType = 0; /* ARRAY */
    res.res.array.hArray = a2;
    CUDA_TEXTURE_DESC td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = 1; /* CLAMP */
    td.borderColor[2] = 0.5f;
    CUtexObject t;
    CHECK(cuTexObjectCreate(&t, &res, &td, NULL));
    CUDA_RESOURCE_DESC rb;
    CUDA_TEXTURE_DESC tb;
    memset(&rb, 0xee, sizeof rb);
    memset(&tb, 0xee, sizeof tb);
    CHECK(cuTexObjectGetResourceDesc(&rb, t));
    CHECK(cuTexObjectGetTextureDesc(&tb, t));
    EXPECT(rb.resType == 0 && rb.res.array.hArray == a2, "resource description read back");
    printf("texture description: address %d %d %d filter %d flags %u anisotropy %u border %g %g %g %g reserved0 %d\n",
           tb.addressMode[0], tb.addressMode[1], tb.addressMode[2], tb.filterMode, tb.flags, tb.maxAnisotropy,
           tb.borderColor[0], tb.borderColor[1], tb.borderColor[2], tb.borderColor[3], tb.reserved[0]);

    res.res.array.hArray = a1;
    CUsurfObject s;
    CHECK(cuSurfObjectCreate(&s, &res));
    CHECK(cuSurfObjectGetResourceDesc(&rb, s));
    EXPECT(rb.resType == 0 && rb.res.array.hArray == a1, "surface resource read back");

    CUdeviceptr out;
    CHECK(cuMemAlloc_v2(&out, 8 * 4));
    void *params[] = {&t, &s, &out};
    CHECK(cuLaunchKernel(k, 2, 1, 1, 4, 1, 1, 0, 0, params, 0));
    CHECK(cuCtxSynchronize());
    float got[8];
    CHECK(cuMemcpyDtoH_v2(got, out, sizeof got));
    for (int l = 0; l < 2; l++) for (int x = 0; x < 4; x++)
        EXPECT(got[l * 4 + x] == texels[l][1][x], "texel (%d, 1, layer %d) = %g, want %g", x, l, got[l * 4 + x], texels[l][1][x]);
    unsigned back[2][4];
    memset(&cp, 0, sizeof cp);
    cp.srcMemoryType = 3;
    cp.srcArray = a1;
    cp.dstMemoryType = 1;
    cp.dstHost = back;
    cp.dstPitch = 16;
    cp.dstHeight = 1;
    cp.WidthInBytes = 16;
    cp.Height = 1;
    cp.Depth = 2;
    CHECK(cuMemcpy3D_v2(&cp));
    for (int l = 0; l < 2; l++) for (int x = 0; x < 4; x++) {
        float f = texels[l][1][x] + 1;
        unsigned want;
        memcpy(&want, &f, 4);
        EXPECT(back[l][x] == want, "surface (%d, layer %d) = 0x%x, want 0x%x", x, l, back[l][x], want);
    }

    /* misuse: NVIDIA's answers are the expectation */
    CUresult e[8];
    CUtexObject t2;
    e[0] = cuTexObjectCreate(NULL, &res, &td, NULL);             /* no output */
    e[1] = cuTexObjectCreate(&t2, &res, NULL, NULL);             /* no texture description */
    CUDA_RESOURCE_DESC bogus = res;
    bogus.resType = 7;
    e[2] = cuTexObjectCreate(&t2, &bogus, &td, NULL);            /* no such resource type */
    res.res.array.hArray = a2;
    CUsurfObject s2;
    e[3] = cuSurfObjectCreate(&s2, &res);                        /* an array without SURFACE_LDST: allowed */
    if (e[3] == 0) cuSurfObjectDestroy(s2);
    CHECK(cuSurfObjectDestroy(s));
    CHECK(cuTexObjectDestroy(t));
    e[4] = cuTexObjectGetTextureDesc(&tb, t);                    /* destroyed */
    e[5] = cuTexObjectDestroy(0);                                 /* the null object: success */
    CUDA_RESOURCE_DESC lin;
    memset(&lin, 0, sizeof lin);
    lin.resType = 2; /* LINEAR */
    lin.res.linear.devPtr = out;
    lin.res.linear.format = 0x20;
    lin.res.linear.numChannels = 3;                               /* three channels */
    lin.res.linear.sizeInBytes = 32;
    e[6] = cuTexObjectCreate(&t2, &lin, &td, NULL);
    lin.res.linear.numChannels = 1;
    e[7] = cuTexObjectCreate(&t2, &lin, &td, NULL);
    if (e[7] == 0) cuTexObjectDestroy(t2);
    printf("errors: %d %d %d %d %d %d %d %d\n", e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7]);

    CHECK(cuArrayDestroy(a1));
    CHECK(cuArrayDestroy(a2));
    CHECK(cuMemFree_v2(out));
    if (bad) { printf("FAIL: %d\n", bad); return 1; }
    printf("PASS: texture and surface objects\n");
    return 0;
}
