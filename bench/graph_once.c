/* ZLUDA-J benchmark (issue 18): a CUDA graph of many kernel nodes made and run once, as ggml makes one whenever its
 * graph changes (test-backend-ops' perf mode: 16,380 copies of an op, 65,520 kernel nodes). Natively (NVIDIA's
 * libcuda.so.1) or through ZLUDA-J (whichever libcuda.so.1 the loader finds). Prints "name value unit" lines, us per
 * node of each phase, for the first graph of the process (cold, as ggml's) and the best of the later rounds; "made"
 * sums the first four phases (a graph made and run once), "remade" the three after the replay (a graph captured again
 * and the executable updated from it, as ggml does when its graph's addresses change):
 *   capture       cuStreamBeginCapture, N cuLaunchKernel of a kernel with ggml's flash-attention parameters, cuStreamEndCapture
 *   instantiate   cuGraphInstantiate
 *   update        cuGraphExecUpdate of the executable from the graph it was made of (ggml does it after instantiating)
 *   launch+wait   the first cuGraphLaunch and cuStreamSynchronize
 *   replay+wait   the second
 *   recapture     the same launches captured again, every fourth with another argument (as ggml captures again when
 *                 its graph's addresses change)
 *   update-changed  cuGraphExecUpdate of the executable from that graph
 *   updated+wait  the next cuGraphLaunch and cuStreamSynchronize
 *   destroy       cuGraphExecDestroy and cuGraphDestroy of both graphs
 * GRAPH_ONCE_BUILD=add makes the graph node by node instead (cuGraphCreate, cuGraphAddKernelNode after the previous
 * node): what NVIDIA's driver costs for a graph made that way, against its capture.
 * Usage: graph_once [N [ROUNDS]]   (build: gcc -O2 graph_once.c -ldl) */
#define _GNU_SOURCE
#include "driver_bench.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream, *CUgraph, *CUgraphExec, *CUgraphNode;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct {
    CUfunction func;
    unsigned grid[3], block[3], shared;
    void **params, **extra;
} kernel_node_params; /* CUDA_KERNEL_NODE_PARAMS_v1 */
typedef struct {
    int status;
    CUgraphNode errorNode, errorFromNode;
} update_info; /* CUgraphExecUpdateResultInfo */

static CUresult (*cuInit)(unsigned);
static CUresult (*cuDeviceGet)(CUdevice *, int);
static CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
static CUresult (*cuCtxSetCurrent)(CUcontext);
static CUresult (*cuModuleLoadData)(CUmodule *, const void *);
static CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
static CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
static CUresult (*cuStreamCreate)(CUstream *, unsigned);
static CUresult (*cuStreamSynchronize)(CUstream);
static CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                                  void **, void **);
static CUresult (*cuStreamBeginCapture)(CUstream, int);
static CUresult (*cuStreamEndCapture)(CUstream, CUgraph *);
static CUresult (*cuGraphCreate)(CUgraph *, unsigned);
static CUresult (*cuGraphAddKernelNode)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t, const kernel_node_params *);
static CUresult (*cuGraphInstantiate)(CUgraphExec *, CUgraph, unsigned long long);
static CUresult (*cuGraphExecUpdate)(CUgraphExec, CUgraph, update_info *);
static CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
static CUresult (*cuGraphExecDestroy)(CUgraphExec);
static CUresult (*cuGraphDestroy)(CUgraph);

/* ggml's flash_attn_ext kernels take 8 pointers, 6 floats and 25 ints or so: 24 parameters here, 136 bytes */
#define PARAMS 24
static const char *ptx =
    ".version 7.0\n"
    ".target sm_52\n"
    ".address_size 64\n"
    ".visible .entry fa(.param .u64 q, .param .u64 k, .param .u64 v, .param .u64 mask, .param .u64 sinks,\n"
    "    .param .u64 kvmax, .param .u64 dst, .param .u64 meta, .param .f32 scale, .param .f32 max_bias,\n"
    "    .param .f32 m0, .param .f32 m1, .param .u32 n_head_log2, .param .f32 softcap, .param .u32 ne00,\n"
    "    .param .u32 ne01, .param .u32 ne02, .param .u32 ne03, .param .u32 nb01, .param .u32 nb02,\n"
    "    .param .u32 nb03, .param .u32 ne10, .param .u32 ne11, .param .u32 ne12)\n"
    "{\n"
    "\tret;\n"
    "}\n";


int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 65520;
    int rounds = argc > 2 ? atoi(argv[2]) : 3;
    const char *build = getenv("GRAPH_ONCE_BUILD");
    int add = build && !strcmp(build, "add");
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    SYM(cuInit); SYM(cuDeviceGet); SYMN(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    SYM(cuCtxSetCurrent); SYM(cuModuleLoadData); SYM(cuModuleGetFunction); SYMN(cuMemAlloc, "cuMemAlloc_v2");
    SYM(cuStreamCreate); SYM(cuStreamSynchronize); SYM(cuLaunchKernel); SYMN(cuStreamBeginCapture, "cuStreamBeginCapture_v2");
    SYM(cuStreamEndCapture); SYM(cuGraphCreate); SYM(cuGraphAddKernelNode); SYMN(cuGraphInstantiate, "cuGraphInstantiateWithFlags");
    SYMN(cuGraphExecUpdate, "cuGraphExecUpdate_v2"); SYM(cuGraphLaunch); SYM(cuGraphExecDestroy); SYM(cuGraphDestroy);
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;
    CUstream s;
    CUdeviceptr mem;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuModuleLoadData(&mod, ptx));
    CHECK(cuModuleGetFunction(&fn, mod, "fa"));
    CHECK(cuMemAlloc(&mem, 1 << 20));
    CHECK(cuStreamCreate(&s, 1 /* NON_BLOCKING */));
    unsigned long long words[PARAMS];
    void *args[PARAMS];
    for (int i = 0; i < PARAMS; i++) { words[i] = i < 8 ? mem + 4096 * i : (unsigned long long)i; args[i] = &words[i]; }
    CHECK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, s, args, 0));
    CHECK(cuStreamSynchronize(s));

    const char *names[9] = {"capture", "instantiate", "update", "launch+wait", "replay+wait", "recapture", "update-changed",
                            "updated+wait", "destroy"};
    double first[9], best[9];
    for (int k = 0; k < 9; k++) best[k] = 1e30;
    for (int round = 0; round < rounds; round++) {
        double t[10];
        CUgraph g, g2;
        CUgraphExec ge;
        t[0] = now();
        for (int pass = 0; pass < 2; pass++) {
            CUgraph *out = pass ? &g2 : &g;
            if (pass) t[5] = now();
            for (int j = 8; j < PARAMS; j++) words[j] = 0;  /* the copies differ, as ggml's do, the same in both passes */
            if (add) {
                CHECK(cuGraphCreate(out, 0));
                CUgraphNode prev = 0;
                for (long i = 0; i < n; i++) {
                    words[9 + i % 15] = (unsigned long long)i;
                    words[8] = pass && i % 4 == 0;
                    kernel_node_params p = {fn, {1 + (unsigned)(i & 1), 2, 1}, {32, 1, 1}, 0, args, 0};
                    CUgraphNode node;
                    CHECK(cuGraphAddKernelNode(&node, *out, prev ? &prev : 0, prev ? 1 : 0, &p));
                    prev = node;
                }
            } else {
                CHECK(cuStreamBeginCapture(s, 2 /* RELAXED, as ggml */));
                for (long i = 0; i < n; i++) {
                    words[9 + i % 15] = (unsigned long long)i;
                    words[8] = pass && i % 4 == 0;
                    CHECK(cuLaunchKernel(fn, 1 + (unsigned)(i & 1), 2, 1, 32, 1, 1, 0, s, args, 0));
                }
                CHECK(cuStreamEndCapture(s, out));
            }
            if (pass) break;
            t[1] = now();
            CHECK(cuGraphInstantiate(&ge, g, 0));
            t[2] = now();
            update_info info;
            CHECK(cuGraphExecUpdate(ge, g, &info));
            t[3] = now();
            CHECK(cuGraphLaunch(ge, s));
            CHECK(cuStreamSynchronize(s));
            t[4] = now();
            CHECK(cuGraphLaunch(ge, s));
            CHECK(cuStreamSynchronize(s));
        }
        t[6] = now();
        update_info info;
        CHECK(cuGraphExecUpdate(ge, g2, &info));
        t[7] = now();
        CHECK(cuGraphLaunch(ge, s));
        CHECK(cuStreamSynchronize(s));
        t[8] = now();
        CHECK(cuGraphExecDestroy(ge));
        CHECK(cuGraphDestroy(g));
        CHECK(cuGraphDestroy(g2));
        t[9] = now();
        for (int k = 0; k < 9; k++) {
            double per = (t[k + 1] - t[k]) / n / 1e3;
            if (round == 0) first[k] = per;
            else if (per < best[k]) best[k] = per;
        }
    }
    double sum_first = 0, sum_best = 0;
    for (int k = 0; k < 4; k++) {  /* making the graph and running it once */
        sum_first += first[k];
        sum_best += best[k];
    }
    printf("graph%ld-%s-made-once %.2f us\n", n, add ? "add" : "capture", sum_first);
    printf("graph%ld-%s-remade-once %.2f us\n", n, add ? "add" : "capture", first[5] + first[6] + first[7]);
    for (int k = 0; k < 9; k++) printf("graph%ld-%s-first-%s %.3f us\n", n, add ? "add" : "capture", names[k], first[k]);
    if (rounds > 1) {
        printf("graph%ld-%s-warm-made %.2f us\n", n, add ? "add" : "capture", sum_best);
        printf("graph%ld-%s-warm-remade %.2f us\n", n, add ? "add" : "capture", best[5] + best[6] + best[7]);
        for (int k = 0; k < 9; k++) printf("graph%ld-%s-warm-%s %.3f us\n", n, add ? "add" : "capture", names[k], best[k]);
    }
    return 0;
}
