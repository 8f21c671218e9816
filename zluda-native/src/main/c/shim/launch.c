/* ZLUDA-J shim: kernel launches repeated without the JVM (issue 21).
 *
 * A launch that the JVM ran at once on the calling thread (its stream and the streams it implicitly waits for idle, no
 * capture, a backend whose launch only hands work to a device queue: the cuda and hip backends) is offered here by the
 * JVM before it returns (zluda_launch_offer, DirectLaunch.java): the backend's C function that submits a launch, its
 * function and device queue, and the limits the JVM checked (the device's block and grid limits, the kernel's .reqntid
 * and .maxntid, its dynamic shared memory maximum, whether it takes parameters). The calling thread keeps it, keyed by
 * the application's function and stream handles; the next launch of the same function on the same stream by the same
 * thread makes the same checks here and calls the backend's function directly. Kept launches hold while two epochs
 * stay the ones read before the JVM made the offer: zluda_ctx_epoch (memo.c: the thread's context stack, destroyed
 * contexts, function attributes, unloaded modules, a kernel fault) and zluda_stream_epoch, which the JVM bumps when
 * any stream gets work queued behind other work (the launch would have to wait its turn), a capture begins or ends, or
 * a stream is destroyed. A check that fails, a backend error, an extra argument buffer, CUDA_LAUNCH_BLOCKING and
 * ZLUDA_LOG=trace all go to the JVM, which gives NVIDIA's error and its message. */
#include "shim.h"
#include "zluda_ids.h"

/* written by the JVM (its address reaches it as -Dzluda.streamEpoch) */
__attribute__((visibility("default"))) volatile int zluda_stream_epoch;
extern volatile int zluda_ctx_epoch; /* memo.c */

typedef CUresult (*device_launch_fn)(void *fn, int gx, int gy, int gz, int bx, int by, int bz, int shared, void *params,
                                     void *queue);

/* what the JVM offers (the layout DirectLaunch.java writes: 64-bit words) */
enum { O_FUNCTION, O_STREAM, O_PTDS, O_LAUNCH, O_HANDLE, O_QUEUE, O_MAX_BX, O_MAX_BY, O_MAX_BZ, O_MAX_THREADS, O_REQ_BX,
       O_REQ_BY, O_REQ_BZ, O_MAX_GY, O_MAX_GZ, O_MAX_SHARED, O_PARAMS, O_WORDS };

struct kept {
    int ctx_epoch, stream_epoch, ptds, used;
    int64_t v[O_WORDS];
};

/* per thread: sets of WAYS launches by function and stream (a token of llama.cpp launches some dozens of kernels, a
 * ggml op up to a dozen in turn: with one slot per set two of them took each other's slot on every round) */
#define SETS 64
#define WAYS 8
static __thread struct kept *kept;  /* SETS * WAYS */
static __thread unsigned next_way;  /* the way a full set gives up next */
static __thread struct kept offered;
static void forget(void) { kept = NULL; }  /* the thread's table freed as it ends */

static struct kept *set_of(const int64_t *a, int ptds) {
    uint64_t h = zluda_mix64((uint64_t)a[0] ^ zluda_mix64((uint64_t)a[8] ^ (uint64_t)ptds));
    return &kept[(h % SETS) * WAYS];
}
/* the kept launch of a's function on a's stream, or NULL */
static struct kept *find(const int64_t *a, int ptds) {
    struct kept *set = set_of(a, ptds);
    for (int i = 0; i < WAYS; i++)
        if (set[i].used && set[i].v[O_FUNCTION] == a[0] && set[i].v[O_STREAM] == a[8] && set[i].ptds == ptds) return &set[i];
    return NULL;
}
static __thread int has_offer, ctx_before, stream_before;

__attribute__((visibility("default"))) void zluda_launch_offer(const int64_t *o) {
    for (int i = 0; i < O_WORDS; i++) offered.v[i] = o[i];
    has_offer = 1;
}

/* The launch's own checks, as LaunchApi.check makes them; 0 where the JVM must answer. */
static int allowed(const struct kept *k, const int64_t *a) {
    int gx = (int)a[1], gy = (int)a[2], gz = (int)a[3], bx = (int)a[4], by = (int)a[5], bz = (int)a[6], shared = (int)a[7];
    const int64_t *v = k->v;
    if (gx <= 0 || gy <= 0 || gz <= 0 || bx <= 0 || by <= 0 || bz <= 0) return 0;
    if (bx > v[O_MAX_BX] || by > v[O_MAX_BY] || bz > v[O_MAX_BZ] || (int64_t)bx * by * bz > v[O_MAX_THREADS]) return 0;
    if (v[O_REQ_BX] && (bx != v[O_REQ_BX] || by != v[O_REQ_BY] || bz != v[O_REQ_BZ])) return 0;
    if (gy > v[O_MAX_GY] || gz > v[O_MAX_GZ]) return 0;
    if (shared < 0 || shared > v[O_MAX_SHARED]) return 0;
    return a[9] || !v[O_PARAMS];
}

/* cuLaunchKernel (ptds 0) and cuLaunchKernel_ptsz (1) from a kept launch: 1 when done here, with its result */
int zluda_launch_get(int ptds, const int64_t *a, CUresult *r) {
    ctx_before = __atomic_load_n(&zluda_ctx_epoch, __ATOMIC_ACQUIRE);
    stream_before = __atomic_load_n(&zluda_stream_epoch, __ATOMIC_ACQUIRE);
    has_offer = 0;
    if (a[10]) return 0;  /* extra: the JVM reads the argument buffer */
    if (!kept) return 0;
    struct kept *k = find(a, ptds);
    if (!k) return 0;
    if (k->ctx_epoch != ctx_before || k->stream_epoch != stream_before || !allowed(k, a)) return 0;
    device_launch_fn launch = (device_launch_fn)(uintptr_t)k->v[O_LAUNCH];
    CUresult result = launch((void *)(uintptr_t)k->v[O_HANDLE], (int)a[1], (int)a[2], (int)a[3], (int)a[4], (int)a[5],
                             (int)a[6], (int)a[7], (void *)(uintptr_t)a[9], (void *)(uintptr_t)k->v[O_QUEUE]);
    if (result != CUDA_SUCCESS) {  /* the JVM launches it again and reports what the backend says */
        k->used = 0;
        return 0;
    }
    *r = CUDA_SUCCESS;
    return 1;
}

/* After a successful launch through the JVM: keeps what it offered for this very launch, if anything. */
void zluda_launch_put(int ptds, const int64_t *a) {
    if (!has_offer) return;
    has_offer = 0;
    if (offered.v[O_FUNCTION] != a[0] || offered.v[O_STREAM] != a[8] || offered.v[O_PTDS] != ptds) return;
    if (!kept && !(kept = zluda_thread_calloc(SETS * WAYS, sizeof *kept, forget))) return;
    struct kept *k = find(a, ptds);  /* this launch's own way, else a free one, else the set's next */
    if (!k) {
        struct kept *set = set_of(a, ptds);
        for (int i = 0; i < WAYS && !k; i++)
            if (!set[i].used) k = &set[i];
        if (!k) k = &set[next_way++ % WAYS];
    }
    *k = offered;
    k->ptds = ptds;
    k->ctx_epoch = ctx_before;
    k->stream_epoch = stream_before;
    k->used = 1;
}
