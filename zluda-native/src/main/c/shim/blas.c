/* ZLUDA-J shim: cuBLAS GEMMs repeated without the JVM (the @direct functions of cublas.api: cublasSgemm_v2,
 * cublasGemmEx, cublasGemmStridedBatchedEx, cublasGemmBatchedEx, the calls llama.cpp makes).
 *
 * As launches (launch.c) and copies (copy.c): a GEMM that the JVM ran at once on the calling thread (its handle's
 * stream and the streams it implicitly waits for idle, no capture, a backend whose BLAS only hands work to a device
 * queue: NVIDIA's cuBLAS on the cuda backend, rocBLAS on the hip backend) is offered here by the JVM before it returns
 * (zluda_blas_offer, DirectBlas.java): the backend library's function that ran it and its arguments, each either a
 * value fixed by the call (the backend's handle, its enums) or one of the application's arguments (sizes, pointers,
 * strides, scalars), plus where the application's sizes are, for the checks. The calling thread keeps it, keyed by the
 * application's function, handle, and every argument that fixed the backend's call (operations, types, compute type,
 * algorithm). The next call with those makes the checks the JVM makes (sizes positive, leading dimensions large
 * enough, scalars not NULL) and calls the backend's function through the backend's own direct call (rt/blascall.c,
 * zluda_blas_direct), which holds the backend BLAS's lock and refuses when the BLAS state the offer was made in (the
 * backend handle's stream, pointer and math modes, any application handle's settings) changed since. Kept GEMMs also
 * hold only while the shim's epochs read before the JVM call stay (launch.c). Anything else, a refusal and a library
 * error go to the JVM, which answers as it always does. ZLUDA_DIRECT_LAUNCH=0 and ZLUDA_LOG=trace offer nothing. */
#include "shim.h"

extern volatile int zluda_stream_epoch, zluda_ctx_epoch;

#define BLAS_ARGS 32   /* rt/blascall.c's most arguments */
#define APP_ARGS 24    /* the application's function's arguments, at most (cublasGemmStridedBatchedEx: 23) */
#define STATUSES 20    /* the library's statuses 0..19 as cuBLAS's (B_STATUS); any other: B_STATUS_OTHER, -1: itself */

/* rt/blascall.c: calls fn with args under the BLAS lock unless the BLAS epoch moved from `epoch`; the library's status,
 * or -2 (not called) */
typedef int (*direct_blas_fn)(void *fn, int64_t epoch, const int64_t *args);

/* what the JVM offers (the layout DirectBlas.java writes: 64-bit words) */
enum {
    B_HANDLE, B_CALL, B_FN, B_EPOCH, B_NARGS, B_KEYS, B_FROM_APP, B_TRANSA, B_TRANSB, B_M, B_N, B_K, B_LDA, B_LDB, B_LDC,
    B_BATCH, B_MIN_BATCH, B_ALPHA, B_BETA, B_NAPP, B_STATUS_OTHER, B_STATUS, B_APP = B_STATUS + STATUSES,
    B_ARG = B_APP + APP_ARGS, B_WORDS = B_ARG + BLAS_ARGS
};

struct kept_blas {
    int id, ctx_epoch, stream_epoch, used;
    int64_t v[B_WORDS];
};

/* per thread: sets of WAYS GEMMs by function, handle and key (ggml makes a few kinds of products in turn) */
#define SETS 16
#define WAYS 4
static __thread struct kept_blas *kept; /* SETS * WAYS */
static __thread unsigned next_way;
static __thread struct kept_blas offered;
static __thread int has_offer, ctx_before, stream_before;
static void forget(void) { kept = NULL; }

__attribute__((visibility("default"))) void zluda_blas_offer(const int64_t *o) {
    for (int i = 0; i < B_WORDS; i++) offered.v[i] = o[i];
    has_offer = 1;
}

/* per function id: which of its arguments fix the backend's call (B_KEYS, the same in every offer of one function; 0
 * until one was offered) */
#define IDS 1024
static int64_t key_masks[IDS];

/* the set of a call's kept GEMMs: by function, handle and the arguments that fixed the backend's call */
static struct kept_blas *set_of(int id, int64_t keys, const int64_t *a) {
    uint64_t h = zluda_mix64((uint64_t)id ^ zluda_mix64((uint64_t)a[0]));
    for (int i = 1; i < APP_ARGS; i++)
        if (keys >> i & 1) h = zluda_mix64(h ^ (uint64_t)a[i]);
    return &kept[(h % SETS) * WAYS];
}

static int same_key(const struct kept_blas *k, int id, const int64_t *a) {
    if (!k->used || k->id != id || k->v[B_HANDLE] != a[0]) return 0;
    for (int i = 1; i < k->v[B_NAPP]; i++)
        if ((k->v[B_KEYS] >> i & 1) && k->v[B_APP + i] != a[i]) return 0;
    return 1;
}

/* the application argument that word w of the offer names (-1: none) as a 32-bit int */
static int32_t arg32(const int64_t *v, int w, const int64_t *a) { return v[w] < 0 ? 0 : (int32_t)a[v[w]]; }

/* CublasLevel3.gemm's checks of a call it would run: 1 where each holds and there is work to do (m, n, k or the batch
 * zero: the JVM answers, with nothing to do) */
static int allowed(const int64_t *v, const int64_t *a) {
    int32_t m = arg32(v, B_M, a), n = arg32(v, B_N, a), k = arg32(v, B_K, a);
    int32_t ta = arg32(v, B_TRANSA, a), tb = arg32(v, B_TRANSB, a);
    if (m <= 0 || n <= 0 || k <= 0) return 0;
    int32_t lda = arg32(v, B_LDA, a), ldb = arg32(v, B_LDB, a), ldc = arg32(v, B_LDC, a);
    if (lda < (ta == 0 ? m : k) || ldb < (tb == 0 ? k : n) || ldc < m) return 0;
    if (v[B_BATCH] >= 0 && arg32(v, B_BATCH, a) < v[B_MIN_BATCH]) return 0;
    return a[v[B_ALPHA]] != 0 && a[v[B_BETA]] != 0;
}

/* a @direct cuBLAS function (id: its number in cublas.api) from a kept GEMM: 1 when done here, with its status */
int zluda_blas_get(int id, const int64_t *a, int64_t *status) {
    ctx_before = __atomic_load_n(&zluda_ctx_epoch, __ATOMIC_ACQUIRE);
    stream_before = __atomic_load_n(&zluda_stream_epoch, __ATOMIC_ACQUIRE);
    has_offer = 0;
    if (!kept || id < 0 || id >= IDS) return 0;
    int64_t keys = __atomic_load_n(&key_masks[id], __ATOMIC_RELAXED);
    if (!keys) return 0;
    struct kept_blas *set = set_of(id, keys, a), *k = NULL;
    for (int i = 0; i < WAYS && !k; i++)
        if (same_key(&set[i], id, a)) k = &set[i];
    if (!k || k->ctx_epoch != ctx_before || k->stream_epoch != stream_before || !allowed(k->v, a)) return 0;
    int64_t args[BLAS_ARGS] = {0};  /* the direct call passes all of them */
    for (int i = 0; i < k->v[B_NARGS]; i++) args[i] = (k->v[B_FROM_APP] >> i & 1) ? a[k->v[B_ARG + i]] : k->v[B_ARG + i];
    direct_blas_fn call = (direct_blas_fn)(uintptr_t)k->v[B_CALL];
    int r = call((void *)(uintptr_t)k->v[B_FN], k->v[B_EPOCH], args);
    if (r < 0) {
        k->used = 0; /* not called: the BLAS state moved on since the offer; the JVM makes the call */
        return 0;
    }
    /* called: its status as cuBLAS's (never made again through the JVM: a GEMM with beta would count C twice) */
    int64_t s = r < STATUSES ? k->v[B_STATUS + r] : k->v[B_STATUS_OTHER] < 0 ? r : k->v[B_STATUS_OTHER];
    if (s != 0) k->used = 0; /* a failure: the next call goes through the JVM, which logs what the library says */
    *status = s;
    return 1;
}

/* After a successful call through the JVM: keeps what it offered for this very call, if anything. */
void zluda_blas_put(int id, const int64_t *a) {
    if (!has_offer) return;
    has_offer = 0;
    const int64_t *v = offered.v;
    if (id < 0 || id >= IDS || v[B_HANDLE] != a[0] || v[B_NAPP] > APP_ARGS || v[B_NARGS] > BLAS_ARGS || !(v[B_KEYS] & 1)) return;
    for (int i = 0; i < v[B_NAPP]; i++)
        if ((v[B_KEYS] >> i & 1) && v[B_APP + i] != a[i]) return;
    for (int i = 0; i < v[B_NARGS]; i++)  /* every argument taken from the application's is one of them */
        if ((v[B_FROM_APP] >> i & 1) && (v[B_ARG + i] < 0 || v[B_ARG + i] >= v[B_NAPP])) return;
    const int64_t checked[] = {v[B_TRANSA], v[B_TRANSB], v[B_M], v[B_N], v[B_K], v[B_LDA], v[B_LDB], v[B_LDC], v[B_ALPHA], v[B_BETA]};
    for (size_t i = 0; i < sizeof checked / sizeof *checked; i++)
        if (checked[i] < 0 || checked[i] >= v[B_NAPP]) return;
    if (v[B_BATCH] >= v[B_NAPP]) return;
    int64_t known = __atomic_load_n(&key_masks[id], __ATOMIC_RELAXED);
    if (known && known != v[B_KEYS]) return;  /* one mask per function: DirectBlas's table */
    if (!known) __atomic_store_n(&key_masks[id], v[B_KEYS], __ATOMIC_RELAXED);
    if (!kept && !(kept = zluda_thread_calloc(SETS * WAYS, sizeof *kept, forget))) return;
    struct kept_blas *set = set_of(id, v[B_KEYS], a), *k = NULL;
    for (int i = 0; i < WAYS && !k; i++)
        if (!set[i].used || same_key(&set[i], id, a)) k = &set[i];
    if (!k) k = &set[next_way++ % WAYS];
    for (int i = 0; i < B_WORDS; i++) k->v[i] = v[i];
    k->id = id;
    k->ctx_epoch = ctx_before;
    k->stream_epoch = stream_before;
    k->used = 1;
}
