/* ZLUDA-J integration test: texture and surface references (cuModuleGetTexRef, cuTexRefSet*, cuModuleGetSurfRef,
 * cuSurfRefSetArray), CUDA's first texture API, which PTX reaches through .texref/.surfref variables: a reference
 * bound to an array (point and linear filtering, clamp and border), to linear memory (tex1Dfetch) and to pitched
 * memory, read back through the getters, and a surface reference written and read by a kernel.
 * The same program runs on NVIDIA's driver; its "errors:" line is compared with NVIDIA's answers.
 * Build: gcc -o driver_texrefs driver_texrefs.c -L<dist>/lib -lcuda. Prints PASS. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUarray_st *CUarray;
typedef struct CUtexref_st *CUtexref;
typedef struct CUsurfref_st *CUsurfref;
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

CUresult cuInit(unsigned int flags);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuCtxSynchronize(void);
CUresult cuModuleLoadData(CUmodule *m, const void *image);
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name);
CUresult cuModuleGetTexRef(CUtexref *t, CUmodule m, const char *name);
CUresult cuModuleGetSurfRef(CUsurfref *s, CUmodule m, const char *name);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void *s, void **params, void **extra);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t w, size_t h, unsigned elementSize);
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n);
CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *p);
CUresult cuArrayCreate_v2(CUarray *a, const CUDA_ARRAY_DESCRIPTOR *d);
CUresult cuArray3DCreate_v2(CUarray *a, const CUDA_ARRAY3D_DESCRIPTOR *d);
CUresult cuTexRefSetArray(CUtexref t, CUarray a, unsigned flags);
CUresult cuTexRefSetAddress_v2(size_t *offset, CUtexref t, CUdeviceptr p, size_t bytes);
CUresult cuTexRefSetAddress2D_v3(CUtexref t, const CUDA_ARRAY_DESCRIPTOR *d, CUdeviceptr p, size_t pitch);
CUresult cuTexRefSetFormat(CUtexref t, int fmt, int channels);
CUresult cuTexRefSetAddressMode(CUtexref t, int dim, int am);
CUresult cuTexRefSetFilterMode(CUtexref t, int fm);
CUresult cuTexRefSetFlags(CUtexref t, unsigned flags);
CUresult cuTexRefSetBorderColor(CUtexref t, float *color);
CUresult cuTexRefGetAddressMode(int *am, CUtexref t, int dim);
CUresult cuTexRefGetFilterMode(int *fm, CUtexref t);
CUresult cuTexRefGetFlags(unsigned *flags, CUtexref t);
CUresult cuTexRefGetFormat(int *fmt, int *channels, CUtexref t);
CUresult cuTexRefGetArray(CUarray *a, CUtexref t);
CUresult cuTexRefGetAddress_v2(CUdeviceptr *p, CUtexref t);
CUresult cuSurfRefSetArray(CUsurfref s, CUarray a, unsigned flags);
CUresult cuSurfRefGetArray(CUarray *a, CUsurfref s);

static int bad;
static int fl(float v) { int i = (int)v; return v < (float)i ? i - 1 : i; }  /* floor, without libm */
#define CHECK(x) do { CUresult r_ = (x); if (r_) { printf("FAIL %s = %d (line %d)\n", #x, r_, __LINE__); return 1; } } while (0)
#define EXPECT(c, ...) do { if (!(c)) { printf("FAIL line %d: ", __LINE__); printf(__VA_ARGS__); printf("\n"); bad++; } } while (0)

/* sample2d: out[i] = tex2D(tref, x[i], y[i]).x; fetch1d: out[i] = tex1Dfetch(lref, i - 2).x;
 * surf: s(x, y) = s(x, y) * 2 + y for an unsigned 2-D surface */
static const char *ptx =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".global .texref tref;\n.global .texref lref;\n.global .surfref sref;\n"
    ".visible .entry sample2d(.param .u64 xy, .param .u64 out) {\n"
    "  .reg .u32 %r<3>; .reg .u64 %rd<6>; .reg .f32 %f<8>;\n"
    "  ld.param.u64 %rd1, [xy]; ld.param.u64 %rd2, [out]; mov.u32 %r1, %tid.x;\n"
    "  mul.wide.u32 %rd3, %r1, 8; add.u64 %rd4, %rd1, %rd3; ld.global.v2.f32 {%f1, %f2}, [%rd4];\n"
    "  tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [tref, {%f1, %f2}];\n"
    "  mul.wide.u32 %rd3, %r1, 4; add.u64 %rd5, %rd2, %rd3; st.global.f32 [%rd5], %f3; ret;\n}\n"
    ".visible .entry fetch1d(.param .u64 out) {\n"
    "  .reg .u32 %r<3>; .reg .u64 %rd<4>; .reg .f32 %f<5>;\n"
    "  ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; sub.u32 %r2, %r1, 2;\n"
    "  tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [lref, {%r2}];\n"
    "  mul.wide.u32 %rd2, %r1, 4; add.u64 %rd3, %rd1, %rd2; st.global.f32 [%rd3], %f1; ret;\n}\n"
    ".visible .entry surf() {\n"
    "  .reg .u32 %r<6>;\n"
    "  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; shl.b32 %r3, %r1, 2;\n"
    "  suld.b.2d.b32.trap {%r4}, [sref, {%r3, %r2}];\n"
    "  shl.b32 %r4, %r4, 1; add.u32 %r4, %r4, %r2;\n"
    "  sust.b.2d.b32.trap [sref, {%r3, %r2}], {%r4}; ret;\n}\n";

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate_v2(&ctx, 0, dev));
    CUmodule m;
    CHECK(cuModuleLoadData(&m, ptx));
    CUfunction sample2d, fetch1d, surf;
    CHECK(cuModuleGetFunction(&sample2d, m, "sample2d"));
    CHECK(cuModuleGetFunction(&fetch1d, m, "fetch1d"));
    CHECK(cuModuleGetFunction(&surf, m, "surf"));
    CUresult e[6];

    /* a 4x3 float array: texel (x, y) = 10 y + x */
    const int W = 4, H = 3;
    float img[3][4];
    for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) img[y][x] = 10.0f * y + x;
    CUDA_ARRAY_DESCRIPTOR ad = {W, H, 0x20, 1};
    CUarray arr;
    CHECK(cuArrayCreate_v2(&arr, &ad));
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = 1;
    c.srcHost = img;
    c.srcPitch = W * 4;
    c.dstMemoryType = 3;
    c.dstArray = arr;
    c.WidthInBytes = W * 4;
    c.Height = H;
    CHECK(cuMemcpy2D_v2(&c));

    CUtexref tref, again;
    CHECK(cuModuleGetTexRef(&tref, m, "tref"));
    CHECK(cuModuleGetTexRef(&again, m, "tref"));
    EXPECT(tref == again, "one reference per name");
    CHECK(cuTexRefSetArray(tref, arr, 1 /* CU_TRSA_OVERRIDE_FORMAT */));
    CHECK(cuTexRefSetFormat(tref, 0x20, 1));
    CHECK(cuTexRefSetAddressMode(tref, 0, 1 /* CLAMP */));
    CHECK(cuTexRefSetAddressMode(tref, 1, 1));
    CHECK(cuTexRefSetFilterMode(tref, 0 /* POINT */));
    CHECK(cuTexRefSetFlags(tref, 0));

    const int N = 8;
    float xy[8][2] = {{0.5f, 0.5f}, {3.5f, 2.5f}, {-5, 1.5f}, {9, 9}, {1.2f, 1.9f}, {2.99f, 0.01f}, {2.0f, 2.0f}, {2.5f, -3}};
    CUdeviceptr dxy, dout;
    CHECK(cuMemAlloc_v2(&dxy, sizeof xy));
    CHECK(cuMemAlloc_v2(&dout, 64 * 4));
    CHECK(cuMemcpyHtoD_v2(dxy, xy, sizeof xy));
    void *p2[] = {&dxy, &dout};
    CHECK(cuLaunchKernel(sample2d, 1, 1, 1, N, 1, 1, 0, NULL, p2, NULL));
    CHECK(cuCtxSynchronize());
    float out[64];
    CHECK(cuMemcpyDtoH_v2(out, dout, N * 4));
    for (int i = 0; i < N; i++) {
        int x = fl(xy[i][0]), y = fl(xy[i][1]);
        x = x < 0 ? 0 : x >= W ? W - 1 : x;
        y = y < 0 ? 0 : y >= H ? H - 1 : y;
        EXPECT(out[i] == img[y][x], "point clamp %d: %g, want %g", i, out[i], img[y][x]);
    }
    /* linear filtering, border mode with a border color: the centre of 4 texels, and outside */
    float border[4] = {-1, 0, 0, 0};
    CHECK(cuTexRefSetFilterMode(tref, 1));
    CHECK(cuTexRefSetAddressMode(tref, 0, 3 /* BORDER */));
    CHECK(cuTexRefSetAddressMode(tref, 1, 3));
    CHECK(cuTexRefSetBorderColor(tref, border));
    CHECK(cuLaunchKernel(sample2d, 1, 1, 1, N, 1, 1, 0, NULL, p2, NULL));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH_v2(out, dout, N * 4));
    EXPECT(out[6] == 16.5f, "linear: the corner of (1,1) (2,1) (1,2) (2,2): %g", out[6]);
    EXPECT(out[3] == -1.0f, "outside: the border color, %g", out[3]);
    int am = -1, fm = -1, fmt = -1, ch = -1;
    unsigned flags = 99;
    CUarray got = NULL;
    CHECK(cuTexRefGetAddressMode(&am, tref, 1));
    CHECK(cuTexRefGetFilterMode(&fm, tref));
    CHECK(cuTexRefGetFlags(&flags, tref));
    CHECK(cuTexRefGetFormat(&fmt, &ch, tref));
    CHECK(cuTexRefGetArray(&got, tref));
    EXPECT(am == 3 && fm == 1 && flags == 0 && fmt == 0x20 && ch == 1 && got == arr, "getters %d %d %u %d %d", am, fm, flags, fmt, ch);

    /* linear memory through lref: indices -2..13 of 12 floats */
    CUtexref lref;
    CHECK(cuModuleGetTexRef(&lref, m, "lref"));
    float lin[12];
    for (int i = 0; i < 12; i++) lin[i] = 100.0f + i;
    CUdeviceptr dlin;
    CHECK(cuMemAlloc_v2(&dlin, sizeof lin));
    CHECK(cuMemcpyHtoD_v2(dlin, lin, sizeof lin));
    size_t offset = 99;
    CHECK(cuTexRefSetFormat(lref, 0x20, 1));
    CHECK(cuTexRefSetAddress_v2(&offset, lref, dlin, sizeof lin));
    EXPECT(offset == 0, "byte offset %zu", offset);
    void *p1[] = {&dout};
    CHECK(cuLaunchKernel(fetch1d, 1, 1, 1, 16, 1, 1, 0, NULL, p1, NULL));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH_v2(out, dout, 16 * 4));
    for (int i = 0; i < 16; i++) {
        int k = i - 2;
        EXPECT(out[i] == (k >= 0 && k < 12 ? lin[k] : 0.0f), "tex1Dfetch %d: %g", k, out[i]);
    }
    CUdeviceptr back = 0;
    CHECK(cuTexRefGetAddress_v2(&back, lref));
    EXPECT(back == dlin, "address read back");

    /* pitched memory through tref: the same image, point sampled */
    CUdeviceptr pitched;
    size_t pitch = 0;
    CHECK(cuMemAllocPitch_v2(&pitched, &pitch, W * 4, H, 4));
    memset(&c, 0, sizeof c);
    c.srcMemoryType = 1;
    c.srcHost = img;
    c.srcPitch = W * 4;
    c.dstMemoryType = 2;
    c.dstDevice = pitched;
    c.dstPitch = pitch;
    c.WidthInBytes = W * 4;
    c.Height = H;
    CHECK(cuMemcpy2D_v2(&c));
    CHECK(cuTexRefSetFilterMode(tref, 0));
    CHECK(cuTexRefSetAddressMode(tref, 0, 1));
    CHECK(cuTexRefSetAddressMode(tref, 1, 1));
    CHECK(cuTexRefSetAddress2D_v3(tref, &ad, pitched, pitch));
    CHECK(cuLaunchKernel(sample2d, 1, 1, 1, N, 1, 1, 0, NULL, p2, NULL));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH_v2(out, dout, N * 4));
    EXPECT(out[1] == img[2][3] && out[4] == img[1][1], "pitched %g %g", out[1], out[4]);

    /* a surface reference: an unsigned 2-D array, each element doubled plus its row */
    CUDA_ARRAY3D_DESCRIPTOR sd = {W, H, 0, 0x03, 1, 2 /* SURFACE_LDST */};
    CUarray sarr;
    CHECK(cuArray3DCreate_v2(&sarr, &sd));
    unsigned u[3][4], ub[3][4];
    for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) u[y][x] = 100u * y + x;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = 1;
    c.srcHost = u;
    c.srcPitch = W * 4;
    c.dstMemoryType = 3;
    c.dstArray = sarr;
    c.WidthInBytes = W * 4;
    c.Height = H;
    CHECK(cuMemcpy2D_v2(&c));
    CUsurfref sref;
    CHECK(cuModuleGetSurfRef(&sref, m, "sref"));
    CHECK(cuSurfRefSetArray(sref, sarr, 0));
    CUarray sgot = NULL;
    CHECK(cuSurfRefGetArray(&sgot, sref));
    EXPECT(sgot == sarr, "surface array read back");
    CHECK(cuLaunchKernel(surf, H, 1, 1, W, 1, 1, 0, NULL, NULL, NULL));
    CHECK(cuCtxSynchronize());
    memset(&c, 0, sizeof c);
    c.srcMemoryType = 3;
    c.srcArray = sarr;
    c.dstMemoryType = 1;
    c.dstHost = ub;
    c.dstPitch = W * 4;
    c.WidthInBytes = W * 4;
    c.Height = H;
    CHECK(cuMemcpy2D_v2(&c));
    for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) EXPECT(ub[y][x] == 2 * u[y][x] + y, "surface (%d,%d) = %u", x, y, ub[y][x]);

    /* misuse: NVIDIA's answers are the expectation */
    CUtexref none;
    e[0] = cuModuleGetTexRef(&none, m, "no_such_texref");
    e[1] = cuModuleGetTexRef(&none, m, "sref");                   /* a surface reference's name */
    e[2] = cuTexRefSetAddressMode(tref, 3, 1);                     /* dimension 3 */
    e[3] = cuTexRefSetFilterMode(tref, 7);
    e[4] = cuTexRefGetArray(&got, lref);                           /* bound to memory, not an array */
    e[5] = cuTexRefSetFormat(tref, 0x55, 1);
    printf("errors: %d %d %d %d %d %d\n", e[0], e[1], e[2], e[3], e[4], e[5]);
    if (bad) { printf("FAIL: %d\n", bad); return 1; }
    printf("PASS: texture and surface references\n");
    return 0;
}
