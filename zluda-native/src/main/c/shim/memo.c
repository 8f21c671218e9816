/* ZLUDA-J shim: answers in C for driver queries whose answer, once the JVM gave it, does not change (issue 21).
 *
 * The functions listed after @memo in cuda-driver.api ask zluda_memo_get first; on a miss they cross into the JVM
 * and zluda_memo_put keeps a successful answer. Kept: the driver version, the device count, cuDeviceGet's handles,
 * device attributes, the error names and strings (the JVM's C strings live as long as the process), and per thread
 * the current context and its device. The last two also depend on the thread's context stack and on contexts being
 * destroyed: the JVM bumps zluda_ctx_epoch on every such change (Driver.contextsChanged), and a thread's kept answer
 * holds only while the epoch is the one read before the JVM gave it. cuCtxGetDevice_v2 (what cuGetProcAddress gives
 * cudart 13 for cuCtxGetDevice: ggml asks it before most operations) shares cuCtxGetDevice's answer when its context
 * argument is NULL (the current one). The occupancy of a function (cuOccupancyMaxActiveBlocksPerMultiprocessor[WithFlags]:
 * ggml asks it before every flash-attention launch, 0.68 us a call through the JVM) is kept by function, block size,
 * dynamic shared memory and flags in a table of KEYED slots, valid while the same epoch holds: the JVM bumps it
 * when a function's attributes change and when a module or library is unloaded
 * (Driver.functionsChanged); a function's attributes (cuFuncGetAttribute: asked before launches by some runtimes and
 * libraries) are kept the same way in the same table. Launches are kept per thread by launch.c. Errors are never kept (they go to the JVM
 * every time, with its messages); with ZLUDA_LOG=trace nothing is answered here, so every call is logged. */
#include "shim.h"
#include "zluda_ids.h"

/* written by the JVM (its address reaches it as -Dzluda.epoch) */
__attribute__((visibility("default"))) volatile int zluda_ctx_epoch;

#define DEVICES 16
#define ATTRIBUTES 256
#define CODES 1024

static int version, count;
static volatile int version_known, count_known;
static int handle[DEVICES];
static volatile unsigned char handle_known[DEVICES];
static int attribute[DEVICES][ATTRIBUTES];
static volatile unsigned char attribute_known[DEVICES][ATTRIBUTES];
static void *volatile error_name[CODES], *volatile error_string[CODES];

static __thread int epoch_before;           /* the epoch when this thread's last miss went to the JVM */
static __thread int ctx_epoch = -1, dev_epoch = -1;
static __thread void *ctx;
static __thread int dev;

/* Answers kept by function (occupancies: by function, block size, dynamic shared memory and flags; attributes: by
 * function and attribute), each valid under the epoch read before the JVM gave it: a writer takes the slot's lock (or
 * leaves it), readers check its sequence number around the read. */
#define KEYED 512
#define KEYED_WAYS 4  /* a key's answer is in one of the 4 slots of its set */
struct keyed {
    volatile int lock, seq;
    int epoch, value;
    int64_t key[4];
};
static struct keyed keyed[KEYED];
static __thread int keyed_epoch;
static volatile unsigned keyed_next;  /* the way a full set gives up next */

static struct keyed *keyed_set(const int64_t *k) {
    uint64_t h = zluda_mix64((uint64_t)k[0] ^ zluda_mix64((uint64_t)k[1] ^ zluda_mix64((uint64_t)k[2] ^ zluda_mix64((uint64_t)k[3]))));
    return &keyed[h % (KEYED / KEYED_WAYS) * KEYED_WAYS];
}

static int same_key(const struct keyed *o, const int64_t *k) {
    return o->key[0] == k[0] && o->key[1] == k[1] && o->key[2] == k[2] && o->key[3] == k[3];
}

/* The kept value for key k into *out: 1, or 0 (ask the JVM). */
static int keyed_get(const int64_t *k, int *out) {
    keyed_epoch = __atomic_load_n(&zluda_ctx_epoch, __ATOMIC_ACQUIRE);
    if (!out) return 0;
    struct keyed *set = keyed_set(k);
    for (int i = 0; i < KEYED_WAYS; i++) {
        struct keyed *o = &set[i];
        int seq = __atomic_load_n(&o->seq, __ATOMIC_ACQUIRE);
        if (seq & 1) continue;
        int hit = o->epoch == keyed_epoch && same_key(o, k);
        int value = o->value;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (!hit || __atomic_load_n(&o->seq, __ATOMIC_RELAXED) != seq) continue;
        *out = value;
        return 1;
    }
    return 0;
}

static void keyed_put(const int64_t *k, int value) {
    struct keyed *set = keyed_set(k), *o = NULL;
    /* the key's own slot, else one never written or of an old epoch, else the set's next (read without the lock: a
     * torn read only picks another slot; the write below holds the lock) */
    for (int i = 0; i < KEYED_WAYS && !o; i++)
        if (set[i].seq && same_key(&set[i], k)) o = &set[i];
    for (int i = 0; i < KEYED_WAYS && !o; i++)
        if (!set[i].seq || set[i].epoch != keyed_epoch) o = &set[i];
    if (!o) o = &set[__atomic_fetch_add(&keyed_next, 1, __ATOMIC_RELAXED) % KEYED_WAYS];
    if (__atomic_exchange_n(&o->lock, 1, __ATOMIC_ACQUIRE)) return;  /* another thread writes it: keep nothing */
    __atomic_store_n(&o->seq, o->seq + 1, __ATOMIC_RELAXED);      /* odd: being written */
    __atomic_thread_fence(__ATOMIC_RELEASE);
    for (int i = 0; i < 4; i++) o->key[i] = k[i];
    o->value = value;
    o->epoch = keyed_epoch;
    __atomic_store_n(&o->seq, o->seq + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&o->lock, 0, __ATOMIC_RELEASE);
}

/* the keys: an occupancy (kind 1: function, block size, dynamic shared memory, flags) and an attribute (kind 2) */
static void occupancy_key(const int64_t *a, int flags, int64_t *k) {
    k[0] = a[1];
    k[1] = (int64_t)(int)a[2] << 8 | 1;
    k[2] = a[3];
    k[3] = flags;
}

static void attribute_key(const int64_t *a, int64_t *k) {
    k[0] = a[2];  /* cuFuncGetAttribute(int *value, CUfunction_attribute attrib, CUfunction hfunc) */
    k[1] = (int64_t)(int)a[1] << 8 | 2;
    k[2] = k[3] = 0;
}

static int known(volatile int *flag) { return __atomic_load_n(flag, __ATOMIC_ACQUIRE); }
static int known8(volatile unsigned char *flag) { return __atomic_load_n(flag, __ATOMIC_ACQUIRE); }
static void *ptr(int64_t a) { return (void *)(uintptr_t)a; }

int zluda_memo_get(int id, const int64_t *a, CUresult *r) {
    if (zluda_trace || zluda_shutting_down()) return 0;
    *r = CUDA_SUCCESS;
    switch (id) {
    case ZID_cuDriverGetVersion:
        if (!a[0] || !known(&version_known)) return 0;
        *(int *)ptr(a[0]) = version;
        return 1;
    case ZID_cuDeviceGetCount:
        if (!a[0] || !known(&count_known)) return 0;
        *(int *)ptr(a[0]) = count;
        return 1;
    case ZID_cuDeviceGet: {
        int ordinal = (int)a[1];
        if (!a[0] || ordinal < 0 || ordinal >= DEVICES || !known8(&handle_known[ordinal])) return 0;
        *(int *)ptr(a[0]) = handle[ordinal];
        return 1;
    }
    case ZID_cuDeviceGetAttribute: {
        int attr = (int)a[1], d = (int)a[2];
        if (!a[0] || d < 0 || d >= DEVICES || attr < 0 || attr >= ATTRIBUTES || !known8(&attribute_known[d][attr])) return 0;
        *(int *)ptr(a[0]) = attribute[d][attr];
        return 1;
    }
    case ZID_cuGetErrorName:
    case ZID_cuGetErrorString: {
        int code = (int)a[0];
        if (!a[1] || code < 0 || code >= CODES) return 0;
        void *s = __atomic_load_n(id == ZID_cuGetErrorName ? &error_name[code] : &error_string[code], __ATOMIC_ACQUIRE);
        if (!s) return 0;
        *(void **)ptr(a[1]) = s;
        return 1;
    }
    case ZID_cuCtxGetCurrent:
        epoch_before = __atomic_load_n(&zluda_ctx_epoch, __ATOMIC_ACQUIRE);
        if (!a[0] || ctx_epoch != epoch_before) return 0;
        *(void **)ptr(a[0]) = ctx;
        return 1;
    case ZID_cuCtxGetDevice_v2:
        if (a[1]) return 0;  /* a context named: the JVM checks it */
        __attribute__((fallthrough));  /* NULL is the current context */
    case ZID_cuCtxGetDevice:
        epoch_before = __atomic_load_n(&zluda_ctx_epoch, __ATOMIC_ACQUIRE);
        if (!a[0] || dev_epoch != epoch_before) return 0;
        *(int *)ptr(a[0]) = dev;
        return 1;
    case ZID_cuOccupancyMaxActiveBlocksPerMultiprocessor:
    case ZID_cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags: {
        int64_t k[4];
        /* the flags of the WithFlags call apart from the plain call's */
        occupancy_key(a, id == ZID_cuOccupancyMaxActiveBlocksPerMultiprocessor ? 0 : (int)a[4] | 0x100, k);
        return keyed_get(k, (int *)ptr(a[0]));
    }
    case ZID_cuFuncGetAttribute: {
        int64_t k[4];
        attribute_key(a, k);
        return keyed_get(k, (int *)ptr(a[0]));
    }
    case ZID_cuLaunchKernel:
        return zluda_launch_get(0, a, r);
    case ZID_cuLaunchKernel_ptsz:
        return zluda_launch_get(1, a, r);
    case ZID_cuMemcpyDtoDAsync_v2:
        return zluda_copy_get(0, a, r);
    case ZID_cuMemcpyDtoDAsync_v2_ptsz:
        return zluda_copy_get(1, a, r);
    default:
        return 0;
    }
}

void zluda_memo_put(int id, const int64_t *a) {
    switch (id) {
    case ZID_cuDriverGetVersion:
        version = *(int *)ptr(a[0]);
        __atomic_store_n(&version_known, 1, __ATOMIC_RELEASE);
        break;
    case ZID_cuDeviceGetCount:
        count = *(int *)ptr(a[0]);
        __atomic_store_n(&count_known, 1, __ATOMIC_RELEASE);
        break;
    case ZID_cuDeviceGet: {
        int ordinal = (int)a[1];
        if (ordinal < 0 || ordinal >= DEVICES) break;
        handle[ordinal] = *(int *)ptr(a[0]);
        __atomic_store_n(&handle_known[ordinal], 1, __ATOMIC_RELEASE);
        break;
    }
    case ZID_cuDeviceGetAttribute: {
        int attr = (int)a[1], d = (int)a[2];
        if (d < 0 || d >= DEVICES || attr < 0 || attr >= ATTRIBUTES) break;
        attribute[d][attr] = *(int *)ptr(a[0]);
        __atomic_store_n(&attribute_known[d][attr], 1, __ATOMIC_RELEASE);
        break;
    }
    case ZID_cuGetErrorName:
    case ZID_cuGetErrorString: {
        int code = (int)a[0];
        if (code < 0 || code >= CODES) break;
        __atomic_store_n(id == ZID_cuGetErrorName ? &error_name[code] : &error_string[code], *(void **)ptr(a[1]), __ATOMIC_RELEASE);
        break;
    }
    case ZID_cuCtxGetCurrent:
        ctx = *(void **)ptr(a[0]);
        ctx_epoch = epoch_before;
        break;
    case ZID_cuCtxGetDevice_v2:
        if (a[1]) break;
        __attribute__((fallthrough));
    case ZID_cuCtxGetDevice:
        dev = *(int *)ptr(a[0]);
        dev_epoch = epoch_before;
        break;
    case ZID_cuOccupancyMaxActiveBlocksPerMultiprocessor:
    case ZID_cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags: {
        int64_t k[4];
        occupancy_key(a, id == ZID_cuOccupancyMaxActiveBlocksPerMultiprocessor ? 0 : (int)a[4] | 0x100, k);
        keyed_put(k, *(int *)ptr(a[0]));
        break;
    }
    case ZID_cuFuncGetAttribute: {
        int64_t k[4];
        attribute_key(a, k);
        keyed_put(k, *(int *)ptr(a[0]));
        break;
    }
    case ZID_cuLaunchKernel:
        zluda_launch_put(0, a);
        break;
    case ZID_cuLaunchKernel_ptsz:
        zluda_launch_put(1, a);
        break;
    case ZID_cuMemcpyDtoDAsync_v2:
        zluda_copy_put(0, a);
        break;
    case ZID_cuMemcpyDtoDAsync_v2_ptsz:
        zluda_copy_put(1, a);
        break;
    default:
        break;
    }
}
