/* ZLUDA-J host runtime: JNI natives of org.zludaj.nativ.HostRuntime.
 * Raw memory access for the Java driver (device memory is host memory on this backend) and the grid launcher:
 * blocks are spread over a pool of worker threads (one per core); inside a block, threads run one after another
 * (the fast path for kernels without block or warp operations). */
#define _GNU_SOURCE
#include "hostrt.h"
#include <jni.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define JN(name) Java_org_zludaj_nativ_HostRuntime_##name
#define PTR(x) ((void *)(uintptr_t)(x))

JNIEXPORT jlong JNICALL JN(allocate)(JNIEnv *e, jclass c, jlong size, jlong align) {
    (void)e; (void)c;
    void *p = NULL;
    size_t a = (size_t)align < sizeof(void *) ? sizeof(void *) : (size_t)align;  /* posix_memalign's minimum */
    if (posix_memalign(&p, a, size ? (size_t)size : 1)) return 0;
    return (jlong)(uintptr_t)p;
}
JNIEXPORT void JNICALL JN(release)(JNIEnv *e, jclass c, jlong p) { (void)e; (void)c; free(PTR(p)); }
JNIEXPORT void JNICALL JN(memmove)(JNIEnv *e, jclass c, jlong dst, jlong src, jlong n) {
    (void)e; (void)c;
    memmove(PTR(dst), PTR(src), (size_t)n);
}
JNIEXPORT void JNICALL JN(fill8)(JNIEnv *e, jclass c, jlong dst, jint v, jlong n) {
    (void)e; (void)c;
    memset(PTR(dst), v, (size_t)n);
}
JNIEXPORT void JNICALL JN(fill16)(JNIEnv *e, jclass c, jlong dst, jint v, jlong n) {
    (void)e; (void)c;
    uint16_t *p = PTR(dst);
    for (jlong i = 0; i < n; i++) p[i] = (uint16_t)v;
}
JNIEXPORT void JNICALL JN(fill32)(JNIEnv *e, jclass c, jlong dst, jint v, jlong n) {
    (void)e; (void)c;
    uint32_t *p = PTR(dst);
    for (jlong i = 0; i < n; i++) p[i] = (uint32_t)v;
}
/* Whether `len` bytes at `a` can be read, without faulting where they cannot (process_vm_readv on ourselves answers
 * EFAULT): for images the application hands over without their size (cuModuleLoadData). */
JNIEXPORT jboolean JNICALL JN(readable)(JNIEnv *e, jclass c, jlong a, jlong len) {
    (void)e; (void)c;
    char tmp[4096];
    for (jlong done = 0; done < len;) {
        size_t n = (size_t)(len - done < (jlong)sizeof tmp ? len - done : (jlong)sizeof tmp);
        struct iovec local = {tmp, n}, remote = {(void *)(uintptr_t)(a + done), n};
        ssize_t got = syscall(SYS_process_vm_readv, getpid(), &local, 1UL, &remote, 1UL, 0UL);
        if (got <= 0) return JNI_FALSE;
        done += got;
    }
    return JNI_TRUE;
}

JNIEXPORT void JNICALL JN(read)(JNIEnv *e, jclass c, jlong a, jbyteArray dst, jint off, jint len) {
    (void)c;
    (*e)->SetByteArrayRegion(e, dst, off, len, PTR(a));
}
JNIEXPORT void JNICALL JN(write)(JNIEnv *e, jclass c, jlong a, jbyteArray src, jint off, jint len) {
    (void)c;
    (*e)->GetByteArrayRegion(e, src, off, len, PTR(a));
}
JNIEXPORT jlong JNICALL JN(strlen)(JNIEnv *e, jclass c, jlong a) { (void)e; (void)c; return (jlong)strlen(PTR(a)); }
JNIEXPORT jint JNICALL JN(threadId)(JNIEnv *e, jclass c) { (void)e; (void)c; return (jint)syscall(SYS_gettid); }

/* ---- calls into the application: stream callbacks and host functions ---- */

typedef void (*stream_callback_t)(void *stream, int status, void *user);
typedef void (*host_fn_t)(void *user);

JNIEXPORT void JNICALL JN(callStreamCallback)(JNIEnv *e, jclass c, jlong fn, jlong stream, jint status, jlong user) {
    (void)e; (void)c;
    ((stream_callback_t)PTR(fn))(PTR(stream), status, PTR(user));
}

JNIEXPORT void JNICALL JN(callHostFunction)(JNIEnv *e, jclass c, jlong fn, jlong user) {
    (void)e; (void)c;
    ((host_fn_t)PTR(fn))(PTR(user));
}

JNIEXPORT void JNICALL JN(callWithWords)(JNIEnv *e, jclass c, jlong fn, jlongArray words) {
    (void)c;
    int64_t w[128]; /* shim/blas.c's offer: 97 words */
    jsize n = (*e)->GetArrayLength(e, words);
    if (n > 128) return;
    (*e)->GetLongArrayRegion(e, words, 0, n, (jlong *)w);
    ((void (*)(const int64_t *))PTR(fn))(w);
}

/* cuLogsRegisterCallback's CUlogsCallback(void *data, CUlogLevel level, char *message, size_t length) */
JNIEXPORT void JNICALL JN(callLogCallback)(JNIEnv *e, jclass c, jlong fn, jlong data, jint level, jbyteArray message) {
    (void)c;
    jsize n = (*e)->GetArrayLength(e, message);
    char *text = malloc((size_t)n + 1);
    if (!text) return;
    (*e)->GetByteArrayRegion(e, message, 0, n, (jbyte *)text);
    text[n] = 0;
    ((void (*)(void *, int, char *, size_t))PTR(fn))(PTR(data), (int)level, text, (size_t)n);
    free(text);
}

/* cuOccupancyMaxPotentialBlockSize's CUoccupancyB2DSize: dynamic shared bytes for a block size */
JNIEXPORT jlong JNICALL JN(callBlockSizeToSharedBytes)(JNIEnv *e, jclass c, jlong fn, jint blockSize) {
    (void)e; (void)c;
    return (jlong)((size_t (*)(int))PTR(fn))((int)blockSize);
}

/* ---- grid launch ---- */

typedef struct {
    zluda_host_kernel fn;
    void **params;
    uint32_t grid[3], block[3];
    size_t shared_bytes;
    atomic_long next_block;
    long blocks;
    atomic_int busy;         /* workers still inside this job */
    int fibers;              /* run threads as fibers (kernel uses block or warp operations) */
    size_t stack_size;       /* fiber stack */
    atomic_int error;        /* first failure: -2 deadlock, -1 out of memory */
    uint64_t workspace;      /* cooperative launch: the grid-sync word's workspace (%envreg1:%envreg2), else 0 */
} job_t;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_wake = PTHREAD_COND_INITIALIZER, pool_done = PTHREAD_COND_INITIALIZER;
static job_t *current_job;
static long job_generation;
static int workers;

int zluda_run_block_fibers(zluda_host_kernel fn, void **params, zluda_thread_ctx *proto, uint32_t nthreads, size_t stack);
void zluda_flush_output(void);
extern __thread sigjmp_buf *zluda_block_escape;
extern __thread uint32_t zluda_failed_tid[3];  /* printf.c: the thread whose assert ended the block function */
extern __thread int zluda_block_failed;

/* The byte a block's shared memory starts with: 0, or ZLUDA_HOST_SHARED_FILL (a diagnostic: an NVIDIA GPU's shared
 * memory starts with what the last block there left, so code that reads it before writing differs from run to run) */
static int shared_fill(void) {
    static int fill = -1;
    if (fill < 0) {
        const char *e = getenv("ZLUDA_HOST_SHARED_FILL");
        fill = e && *e ? (int)(strtol(e, NULL, 0) & 0xff) : 0;
    }
    return fill;
}

/* The calling thread's stack (where a block function's .local memory is on the fast path), asked once per thread. */
static __thread char *own_stack_lo, *own_stack_hi;
static void own_stack(char **lo, char **hi) {
    if (!own_stack_hi) {
        pthread_attr_t a;
        void *addr = NULL;
        size_t size = 0;
        if (pthread_getattr_np(pthread_self(), &a) == 0) {
            pthread_attr_getstack(&a, &addr, &size);
            pthread_attr_destroy(&a);
        }
        own_stack_lo = addr;
        own_stack_hi = (char *)addr + size;
    }
    *lo = own_stack_lo;
    *hi = own_stack_hi;
}

static void run_blocks(job_t *j) {
    zluda_thread_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    own_stack(&ctx.stack_lo, &ctx.stack_hi);
    for (int d = 0; d < 3; d++) { ctx.ntid[d] = j->block[d]; ctx.nctaid[d] = j->grid[d]; }
    ctx.envreg1 = (uint32_t)(j->workspace >> 32);
    ctx.envreg2 = (uint32_t)j->workspace;
    /* volatile: not changed after the sigsetjmp below, but gcc cannot tell (-Wclobbered) */
    void *volatile shared = j->shared_bytes ? aligned_alloc(64, (j->shared_bytes + 63) & ~(size_t)63) : NULL;
    ctx.shared = shared;
    ctx.shared_size = j->shared_bytes;
    long b;
    uint32_t nthreads = j->block[0] * j->block[1] * j->block[2];
    zluda_watch_begin();
    while ((b = atomic_fetch_add(&j->next_block, 1)) < j->blocks) {
        int err = atomic_load(&j->error);
        if (err <= -4) break;  /* a trap or a fault ends the grid, as on NVIDIA; other blocks still run after an assert */
        zluda_watch_block();
        ctx.ctaid[0] = (uint32_t)(b % j->grid[0]);
        ctx.ctaid[1] = (uint32_t)(b / j->grid[0] % j->grid[1]);
        ctx.ctaid[2] = (uint32_t)(b / j->grid[0] / j->grid[1]);
        if (j->fibers) {  /* block or warp operations: every thread a fiber */
            if (shared) memset(shared, shared_fill(), j->shared_bytes);
            zluda_block_failed = 0;
            int rc = zluda_run_block_fibers(j->fn, j->params, &ctx, nthreads, j->stack_size);
            if (rc && !atomic_load(&j->error)) atomic_store(&j->error, rc);
            continue;
        }
        /* no block or warp operations: the compiled block function runs every thread of the block itself */
        memset(ctx.tid, 0, sizeof ctx.tid);
        volatile int failed = 0;  /* kept across the escapes of sigsetjmp below */
        for (;;) {  /* the block function runs the threads from ctx.tid on; an assert ends one thread only */
            sigjmp_buf escape;
            zluda_block_failed = 0;
            if (sigsetjmp(escape, 1) == 0) {
                zluda_block_escape = &escape;  /* assert, trap */
                zluda_fault_escape = &escape;  /* memory and arithmetic faults (faults.c) */
                j->fn(j->params, &ctx);
                zluda_block_escape = NULL;
                zluda_fault_escape = NULL;
                break;
            }
            zluda_block_escape = NULL;
            zluda_fault_escape = NULL;
            int code = zluda_block_failed ? zluda_block_failed : zluda_fault_code;
            if (!failed || code < failed) failed = code;  /* a trap or fault outranks an assert */
            if (code != -3) break;
            /* resume after the asserting thread (its tid is what the kernel's context held) */
            uint32_t *t = zluda_failed_tid;
            ctx.tid[0] = t[0] + 1; ctx.tid[1] = t[1]; ctx.tid[2] = t[2];
            if (ctx.tid[0] >= ctx.ntid[0]) { ctx.tid[0] = 0; ctx.tid[1]++; }
            if (ctx.tid[1] >= ctx.ntid[1]) { ctx.tid[1] = 0; ctx.tid[2]++; }
            if (ctx.tid[2] >= ctx.ntid[2]) break;
        }
        if (failed && !atomic_load(&j->error)) atomic_store(&j->error, failed);
    }
    zluda_watch_end();
    free(shared);
}

static void *worker_main(void *unused) {
    (void)unused;
    stack_t old;
    void *alt;
    zluda_altstack_push(&old, &alt);  /* kept for the thread's life */
    long seen = 0;
    pthread_mutex_lock(&pool_lock);
    for (;;) {
        while (job_generation == seen) pthread_cond_wait(&pool_wake, &pool_lock);
        seen = job_generation;
        job_t *j = current_job;
        if (!j) continue;
        atomic_fetch_add(&j->busy, 1);
        pthread_mutex_unlock(&pool_lock);
        run_blocks(j);
        pthread_mutex_lock(&pool_lock);
        if (atomic_fetch_sub(&j->busy, 1) == 1) pthread_cond_broadcast(&pool_done);
    }
    return NULL;
}

static void start_pool(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    const char *env = getenv("ZLUDA_HOST_THREADS");
    if (env && atoi(env) > 0) n = atoi(env);
    workers = n > 1 ? (int)n - 1 : 0;  /* the launching thread is the last worker */
    for (int i = 0; i < workers; i++) {
        pthread_t t;
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setstacksize(&a, 16u << 20);
        if (pthread_create(&t, &a, worker_main, NULL) == 0) pthread_detach(t);
        pthread_attr_destroy(&a);
    }
}

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t launch_lock = PTHREAD_MUTEX_INITIALIZER;

/* Runs the grid to completion. One launch at a time; its blocks run on every core. */
JNIEXPORT jint JNICALL JN(launch)(JNIEnv *e, jclass c, jlong fn, jlong params, jint gx, jint gy, jint gz, jint bx, jint by,
                                   jint bz, jlong shared, jint fibers, jlong stack) {
    (void)e; (void)c;
    pthread_once(&pool_once, start_pool);
    zluda_faults_install();
    zluda_watch_launch();
    stack_t old_alt;
    void *alt;
    zluda_altstack_push(&old_alt, &alt);  /* this thread runs blocks too */
    job_t j = {.fn = (zluda_host_kernel)PTR(fn), .params = PTR(params), .grid = {gx, gy, gz}, .block = {bx, by, bz},
               .shared_bytes = (size_t)shared, .fibers = fibers, .stack_size = (size_t)stack};
    atomic_init(&j.error, 0);
    j.blocks = (long)gx * gy * gz;
    atomic_init(&j.next_block, 0);
    atomic_init(&j.busy, 0);
    pthread_mutex_lock(&launch_lock);
    if (workers > 0 && j.blocks > 1) {
        pthread_mutex_lock(&pool_lock);
        current_job = &j;
        job_generation++;
        pthread_cond_broadcast(&pool_wake);
        pthread_mutex_unlock(&pool_lock);
    }
    run_blocks(&j);
    pthread_mutex_lock(&pool_lock);
    current_job = NULL;
    while (atomic_load(&j.busy) > 0) pthread_cond_wait(&pool_done, &pool_lock);
    pthread_mutex_unlock(&pool_lock);
    pthread_mutex_unlock(&launch_lock);
    zluda_altstack_pop(&old_alt, alt);
    zluda_flush_output();
    return atomic_load(&j.error);
}

JNIEXPORT jdouble JNICALL JN(blockTimeLimit)(JNIEnv *e, jclass c) {
    (void)e; (void)c;
    return zluda_watch_limit();
}

/* ---- cooperative launch: every block resident at once, each on a thread of its own, so that blocks waiting at a
 * grid-wide barrier (a word of the workspace, which the PTX finds in %envreg1:%envreg2) never wait for a block that
 * has no thread to run on. */

static void *cooperative_main(void *arg) {
    job_t *j = arg;
    stack_t old;
    void *alt;
    zluda_altstack_push(&old, &alt);
    run_blocks(j);
    zluda_altstack_pop(&old, alt);
    return NULL;
}

JNIEXPORT jint JNICALL JN(launchCooperative)(JNIEnv *e, jclass c, jlong fn, jlong params, jint gx, jint gy, jint gz, jint bx,
                                              jint by, jint bz, jlong shared, jint fibers, jlong stack, jlong workspace) {
    (void)e; (void)c;
    zluda_faults_install();
    zluda_watch_launch();
    job_t j = {.fn = (zluda_host_kernel)PTR(fn), .params = PTR(params), .grid = {gx, gy, gz}, .block = {bx, by, bz},
               .shared_bytes = (size_t)shared, .fibers = fibers, .stack_size = (size_t)stack, .workspace = (uint64_t)workspace};
    atomic_init(&j.error, 0);
    j.blocks = (long)gx * gy * gz;
    atomic_init(&j.next_block, 0);
    atomic_init(&j.busy, 0);
    pthread_t *threads = calloc((size_t)j.blocks, sizeof *threads);
    if (!threads) return -1;
    long started = 0;
    for (; started < j.blocks; started++)
        if (pthread_create(&threads[started], NULL, cooperative_main, &j)) break;
    for (long i = 0; i < started; i++) pthread_join(threads[i], NULL);
    free(threads);
    zluda_flush_output();
    if (started < j.blocks && !atomic_load(&j.error)) return -1;  /* could not make every block resident */
    return atomic_load(&j.error);
}
