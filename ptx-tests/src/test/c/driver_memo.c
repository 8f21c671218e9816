/* ZLUDA-J test program: the answers the shim keeps in C (shim/memo.c) stay right while contexts change. Every query is
 * asked twice (the second answer may come from what the shim kept) around each change of the calling thread's context
 * stack (create, push, pop, set, destroy), from a second thread, and with arguments that are errors (never kept); a
 * function's occupancy and attributes around a change of its attributes and its module's unloading.
 * Build: gcc -o driver_memo driver_memo.c -L<dist>/lib -lcuda -lpthread. Prints PASS or FAIL lines. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef int CUresult;
typedef void *CUcontext;
typedef int CUdevice;
CUresult cuInit(unsigned);
CUresult cuDriverGetVersion(int *);
CUresult cuDeviceGet(CUdevice *, int);
CUresult cuDeviceGetCount(int *);
CUresult cuDeviceGetAttribute(int *, int, CUdevice);
CUresult cuGetErrorName(CUresult, const char **);
CUresult cuGetErrorString(CUresult, const char **);
CUresult cuCtxCreate_v2(CUcontext *, unsigned, CUdevice);
CUresult cuCtxDestroy_v2(CUcontext);
CUresult cuCtxGetCurrent(CUcontext *);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuCtxPushCurrent_v2(CUcontext);
CUresult cuCtxPopCurrent_v2(CUcontext *);
CUresult cuCtxGetDevice(CUdevice *);
CUresult cuCtxGetDevice_v2(CUdevice *, CUcontext);
CUresult cuGetExportTable(const void **, const void *);
typedef void *CUmodule;
typedef void *CUfunction;
CUresult cuModuleLoadData(CUmodule *, const void *);
CUresult cuModuleGetFunction(CUfunction *, CUmodule, const char *);
CUresult cuModuleUnload(CUmodule);
CUresult cuFuncSetAttribute(CUfunction, int, int);
CUresult cuFuncGetAttribute(int *, int, CUfunction);
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *, CUfunction, int, size_t);
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *, CUfunction, int, size_t, unsigned);
static const char OCC_PTX[] = ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry occ(.param .u64 p)\n{\n\tret;\n}\n";
/* a function's attribute asked twice: both answers (or errors) equal: the value, or -result */
static int fattr(CUfunction f, int attrib) {
    int a = -7, b = -8;
    CUresult r1 = cuFuncGetAttribute(&a, attrib, f), r2 = cuFuncGetAttribute(&b, attrib, f);
    if (r1 != r2 || (r1 == 0 && a != b)) { printf("FAIL: attribute %d asked twice: %d %d, %d %d\n", attrib, r1, a, r2, b); return -99999; }
    return r1 ? -(int)r1 : a;
}

/* a function's occupancy asked twice: both answers (or errors) equal: the block count, or -result */
static int occupancy(CUfunction f, int block, size_t shared) {
    int a = -7, b = -8;
    CUresult r1 = cuOccupancyMaxActiveBlocksPerMultiprocessor(&a, f, block, shared);
    CUresult r2 = cuOccupancyMaxActiveBlocksPerMultiprocessor(&b, f, block, shared);
    if (r1 != r2 || (r1 == 0 && a != b)) { printf("FAIL: occupancy asked twice: %d %d, %d %d\n", r1, a, r2, b); return -99999; }
    return r1 ? -(int)r1 : a;
}

/* cudart's context-local storage (export table c693336e: put, delete, get), whose values the shim keeps per thread */
typedef CUresult (*cls_put_fn)(CUcontext, void *, void *, void *);
typedef CUresult (*cls_delete_fn)(CUcontext, void *);
typedef CUresult (*cls_get_fn)(void **, CUcontext, void *);
static cls_put_fn cls_put;
static cls_delete_fn cls_delete;
static cls_get_fn cls_get;
static const unsigned char CLS_ID[16] = {0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93};
/* the value for (ctx, key) asked twice; both answers (or errors) equal: the value, or (void *)-result */
static void *cls(CUcontext ctx, void *key) {
    void *a = (void *)11, *b = (void *)12;
    CUresult r1 = cls_get(&a, ctx, key), r2 = cls_get(&b, ctx, key);
    if (r1 != r2) return (void *)-1000L;
    return r1 ? (void *)(long)-r1 : (a == b ? a : (void *)-999L);
}

static int failures;
#define EXPECT(what, cond) do { if (!(cond)) { failures++; printf("FAIL: %s\n", what); } } while (0)

/* the current context, asked twice: both answers equal */
static CUcontext current(const char *what) {
    CUcontext a = (CUcontext)1, b = (CUcontext)2;
    CUresult r1 = cuCtxGetCurrent(&a), r2 = cuCtxGetCurrent(&b);
    EXPECT(what, r1 == 0 && r2 == 0 && a == b);
    return a;
}

/* the current context's device, asked twice through cuCtxGetDevice and twice through cuCtxGetDevice_v2 with no
   context (what cuGetProcAddress gives cudart 13 for cuCtxGetDevice): all four answers equal */
static int device(void) {
    CUdevice a = -5, b = -6, c = -7, d = -8;
    CUresult r1 = cuCtxGetDevice(&a), r2 = cuCtxGetDevice(&b), r3 = cuCtxGetDevice_v2(&c, NULL), r4 = cuCtxGetDevice_v2(&d, NULL);
    if (r1 != r2 || r1 != r3 || r1 != r4) return -100 - r1;
    return r1 ? -r1 : (a == b && a == c && a == d ? a : -99);
}

static CUcontext shared;
static void *other(void *arg) {
    (void)arg;
    EXPECT("a new thread has no current context", current("other thread") == NULL);
    EXPECT("cuCtxGetDevice without a context: 201", device() == -201);
    cuCtxSetCurrent(shared);
    EXPECT("the other thread's context", current("other thread set") == shared);
    EXPECT("its device", device() == 0);
    return NULL;
}

int main(void) {
    CUcontext c = (CUcontext)1;
    int v1 = 0, v2 = 0;
    EXPECT("cuCtxGetCurrent before cuInit: 3", cuCtxGetCurrent(&c) == 3 && cuCtxGetCurrent(&c) == 3);
    EXPECT("cuDriverGetVersion before cuInit", cuDriverGetVersion(&v1) == 0 && cuDriverGetVersion(&v2) == 0 && v1 == v2 && v1 >= 12000);
    EXPECT("cuDriverGetVersion(NULL): 1", cuDriverGetVersion(NULL) == 1);
    if (cuInit(0)) { printf("FAIL: cuInit\n"); return 1; }
    int n1 = 0, n2 = 0;
    EXPECT("cuDeviceGetCount twice", cuDeviceGetCount(&n1) == 0 && cuDeviceGetCount(&n2) == 0 && n1 == n2 && n1 >= 1);
    CUdevice d1 = -1, d2 = -1;
    EXPECT("cuDeviceGet twice", cuDeviceGet(&d1, 0) == 0 && cuDeviceGet(&d2, 0) == 0 && d1 == d2);
    EXPECT("cuDeviceGet of no device: 101", cuDeviceGet(&d1, 99) == 101 && cuDeviceGet(&d1, 99) == 101);
    int a1 = 0, a2 = 0;
    EXPECT("an attribute twice", cuDeviceGetAttribute(&a1, 1, 0) == 0 && cuDeviceGetAttribute(&a2, 1, 0) == 0 && a1 == a2 && a1 > 0);
    EXPECT("an attribute of no device: 101", cuDeviceGetAttribute(&a1, 1, 99) == 101 && cuDeviceGetAttribute(&a1, 1, 99) == 101);
    EXPECT("an attribute into NULL: 1", cuDeviceGetAttribute(NULL, 1, 0) == 1);
    const char *s1 = 0, *s2 = 0;
    EXPECT("an error name twice", cuGetErrorName(700, &s1) == 0 && cuGetErrorName(700, &s2) == 0 && s1 == s2 && !strcmp(s1, "CUDA_ERROR_ILLEGAL_ADDRESS"));
    EXPECT("an error string twice", cuGetErrorString(1, &s1) == 0 && cuGetErrorString(1, &s2) == 0 && s1 == s2 && s1 && *s1);
    EXPECT("the name of no error: 1", cuGetErrorName(123456, &s1) == 1 && cuGetErrorName(123456, &s1) == 1);

    EXPECT("no context after cuInit", current("after cuInit") == NULL);
    EXPECT("cuCtxGetDevice without a context: 201", device() == -201);
    CUcontext A, B, popped;
    if (cuCtxCreate_v2(&A, 0, 0)) { printf("FAIL: cuCtxCreate\n"); return 1; }
    EXPECT("cuCtxCreate makes it current", current("created A") == A);
    EXPECT("its device", device() == 0);
    if (cuCtxCreate_v2(&B, 0, 0)) { printf("FAIL: cuCtxCreate\n"); return 1; }
    EXPECT("a second one on top", current("created B") == B);
    EXPECT("pop", cuCtxPopCurrent_v2(&popped) == 0 && popped == B && current("popped") == A);
    EXPECT("push", cuCtxPushCurrent_v2(B) == 0 && current("pushed") == B);
    EXPECT("set NULL pops the top", cuCtxSetCurrent(NULL) == 0 && current("set NULL") == A);
    EXPECT("its device", device() == 0);
    EXPECT("set NULL again: empty", cuCtxSetCurrent(NULL) == 0 && current("set NULL again") == NULL);
    EXPECT("cuCtxGetDevice without a context again: 201", device() == -201);
    CUdevice named = -1;
    EXPECT("cuCtxGetDevice_v2 of a named context without a current one",
           cuCtxGetDevice_v2(&named, A) == 0 && named == 0 && device() == -201);
    EXPECT("set A", cuCtxSetCurrent(A) == 0 && current("set A") == A);
    shared = B;
    pthread_t t;
    pthread_create(&t, NULL, other, NULL);
    pthread_join(t, NULL);
    EXPECT("this thread keeps A", current("after the other thread") == A);

    const void *table = NULL;
    if (cuGetExportTable(&table, CLS_ID) || !table) { printf("FAIL: no context-local storage table\n"); return 1; }
    cls_put = ((cls_put_fn const *)table)[0];
    cls_delete = ((cls_delete_fn const *)table)[1];
    cls_get = ((cls_get_fn const *)table)[2];
    static int key1, key2;
    EXPECT("cls: nothing for a new key: 400", cls(NULL, &key1) == (void *)-400L);
    EXPECT("cls: put in the current context", cls_put(NULL, &key1, (void *)0x100, NULL) == 0 && cls(NULL, &key1) == (void *)0x100);
    EXPECT("cls: the same by the context's handle", cls(A, &key1) == (void *)0x100);
    /* NVIDIA's driver (H200, 580.159.04; docs/gpu-check.md, ninth session): a key the context holds already is refused */
    EXPECT("cls: put again: 400, the value kept", cls_put(A, &key1, (void *)0x101, NULL) == 400 && cls(NULL, &key1) == (void *)0x100 && cls(A, &key1) == (void *)0x100);
    EXPECT("cls: another key", cls_put(NULL, &key2, (void *)0x200, NULL) == 0 && cls(NULL, &key2) == (void *)0x200 && cls(NULL, &key1) == (void *)0x100);
    EXPECT("cls: B has none", cls(B, &key1) == (void *)-400L);
    EXPECT("cls: push B, none current", cuCtxPushCurrent_v2(B) == 0 && cls(NULL, &key1) == (void *)-400L);
    EXPECT("cls: put in B", cls_put(NULL, &key1, (void *)0x300, NULL) == 0 && cls(NULL, &key1) == (void *)0x300 && cls(A, &key1) == (void *)0x100);
    EXPECT("cls: pop back to A", cuCtxPopCurrent_v2(&popped) == 0 && popped == B && cls(NULL, &key1) == (void *)0x100);
    EXPECT("cls: delete", cls_delete(NULL, &key1) == 0 && cls(NULL, &key1) == (void *)-400L && cls(B, &key1) == (void *)0x300);
    EXPECT("cls: put by B's handle", cls_put(B, &key2, (void *)0x400, NULL) == 0 && cls(B, &key2) == (void *)0x400 && cls(NULL, &key2) == (void *)0x200);
    /* NVIDIA's driver crashes on a NULL value pointer; ZLUDA-J answers CUDA_ERROR_INVALID_VALUE */
    if (dlsym(RTLD_DEFAULT, "zluda_ctx_epoch")) EXPECT("cls: NULL value pointer: 1", cls_get(NULL, NULL, &key2) == 1);
    CUmodule mod = NULL;
    CUfunction fn = NULL;
    EXPECT("occupancy: a module", cuModuleLoadData(&mod, OCC_PTX) == 0 && cuModuleGetFunction(&fn, mod, "occ") == 0);
    int blocks = occupancy(fn, 128, 0), flagged = -1;
    EXPECT("occupancy of 128 threads", blocks > 0);
    EXPECT("with flags 1, the same", cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&flagged, fn, 128, 0, 1) == 0
           && cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&flagged, fn, 128, 0, 1) == 0 && flagged == blocks);
    EXPECT("flags 2: 1", cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&flagged, fn, 128, 0, 2) == 1);
    EXPECT("a null count: 1", cuOccupancyMaxActiveBlocksPerMultiprocessor(NULL, fn, 128, 0) == 1);
    EXPECT("more dynamic shared memory than the function allows: 0 blocks", occupancy(fn, 128, 50176) == 0);
    int threads = fattr(fn, 0 /* MAX_THREADS_PER_BLOCK */), dynamic = fattr(fn, 8 /* MAX_DYNAMIC_SHARED_SIZE_BYTES */);
    EXPECT("attributes: threads per block", threads > 0 && threads <= 1024);
    EXPECT("attributes: the default dynamic shared memory maximum", dynamic > 0 && dynamic <= 49152);
    EXPECT("attributes: a null value pointer: 1", cuFuncGetAttribute(NULL, 8, fn) == 1);
    EXPECT("attributes: an attribute that does not exist: 1", fattr(fn, 9999) == -1);
    EXPECT("its maximum raised (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)", cuFuncSetAttribute(fn, 8, 50176) == 0);
    EXPECT("then it fits", occupancy(fn, 128, 50176) > 0);
    EXPECT("and the attribute says so", fattr(fn, 8) == 50176 && fattr(fn, 0) == threads);
    EXPECT("unloaded", cuModuleUnload(mod) == 0);
    EXPECT("the unloaded function: 400", occupancy(fn, 128, 0) == -400);
    EXPECT("its attribute: 400", fattr(fn, 8) == -400);
    EXPECT("destroy B (current elsewhere)", cuCtxDestroy_v2(B) == 0 && current("B destroyed") == A);
    EXPECT("destroy A (current here): popped", cuCtxDestroy_v2(A) == 0 && current("A destroyed") == NULL);
    EXPECT("cuCtxGetDevice after: 201", device() == -201);
    if (failures) printf("FAIL: %d kept answers\n", failures); else printf("PASS: kept answers\n");
    return failures != 0;
}
