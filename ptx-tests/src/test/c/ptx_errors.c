/* ZLUDA-J test: malformed PTX through cuModuleLoadDataEx. Expects CUDA_ERROR_INVALID_PTX (218), the diagnostics
 * in CU_JIT_ERROR_LOG_BUFFER with module, line and function, the log size written back, and the application still
 * able to load good PTX afterwards. Prints PASS and exits 0. */
#include <stdio.h>
#include <string.h>

typedef int CUresult;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
CUresult cuInit(unsigned int flags);
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, int dev);
CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions, int *options, void **optionValues);
CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name);

static const char *bad_ptx =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry good()\n{\n\tret;\n}\n"
    ".visible .entry broken()\n{\n\t.reg .b32 %r<2>;\n\tadd.u32 %r1, %r1;\n\tret;\n}\n";
static const char *good_ptx = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry good()\n{\n\tret;\n}\n";

int main(void) {
    int fails = 0;
    CUcontext ctx;
    if (cuInit(0) || cuCtxCreate_v2(&ctx, 0, 0)) { printf("FAIL: init\n"); return 1; }
    char err[1024] = "", info[256] = "";
    int options[] = {5, 6, 3, 4};  /* ERROR_LOG_BUFFER, its size, INFO_LOG_BUFFER, its size */
    void *values[] = {err, (void *)(size_t)sizeof err, info, (void *)(size_t)sizeof info};
    CUmodule mod;
    CUresult r = cuModuleLoadDataEx(&mod, bad_ptx, 4, options, values);
    if (r != 218) { printf("FAIL: bad PTX gave %d, want 218 (CUDA_ERROR_INVALID_PTX)\n", r); fails++; }
    if (!strstr(err, ":11:") || !strstr(err, "function broken") || !strstr(err, "takes 3 operands")) {
        printf("FAIL: error log lacks line, function and reason: '%s'\n", err);
        fails++;
    }
    if ((size_t)values[1] != strlen(err) + 1) { printf("FAIL: log size slot %zu, want %zu\n", (size_t)values[1], strlen(err) + 1); fails++; }
    values[1] = (void *)(size_t)sizeof err;
    values[3] = (void *)(size_t)sizeof info;
    CUfunction f;
    if (cuModuleLoadDataEx(&mod, good_ptx, 4, options, values) || cuModuleGetFunction(&f, mod, "good")) {
        printf("FAIL: good PTX after bad PTX\n");
        fails++;
    }
    if (!strstr(info, "ZLUDA-J")) { printf("FAIL: info log '%s'\n", info); fails++; }
    /* not PTX at all: CUDA_ERROR_INVALID_IMAGE, as NVIDIA answers (recorded on an H200) */
    if (cuModuleLoadDataEx(&mod, "this is not PTX", 0, NULL, NULL) != 200) { printf("FAIL: garbage text\n"); fails++; }
    printf("error log: %s\n", err);
    if (fails) return 1;
    printf("PASS: malformed PTX is reported, not fatal\n");
    return 0;
}
