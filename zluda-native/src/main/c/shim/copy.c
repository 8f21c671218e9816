/* ZLUDA-J shim: device-to-device copies repeated without the JVM (cuMemcpyDtoDAsync and its _ptsz variant).
 *
 * As launches (launch.c): a copy that the JVM ran at once on the calling thread (its stream and the streams it
 * implicitly waits for idle, no capture, a backend whose copy only hands work to a device queue: the cuda and hip
 * backends) is offered here by the JVM before it returns (zluda_copy_offer, DirectCopy.java): the backend's C
 * function that queues a copy and the stream's device queue. The calling thread keeps it, keyed by the application's
 * stream handle; the next device-to-device copy on the same stream by the same thread calls the backend's function
 * directly while the two epochs read before the offer hold (launch.c: zluda_ctx_epoch, zluda_stream_epoch). A NULL
 * address with a non-zero size and a backend error go to the JVM, which gives NVIDIA's error and its message; with
 * ZLUDA_LOG=trace or ZLUDA_DIRECT_LAUNCH=0 it offers nothing. ggml copies each token's keys and values into its cache
 * this way: 48 copies a token for GPT-2 124M, 5-7 us each through the JVM. */
#include "shim.h"

extern volatile int zluda_stream_epoch, zluda_ctx_epoch;

typedef CUresult (*device_copy_fn)(uint64_t dst, uint64_t src, size_t bytes, void *queue);

/* what the JVM offers (the layout DirectCopy.java writes: 64-bit words) */
enum { C_STREAM, C_PTDS, C_COPY, C_QUEUE, C_WORDS };

struct kept_copy {
    int ctx_epoch, stream_epoch, used;
    int64_t v[C_WORDS];
};

/* per thread, by stream: a few streams copy in turn (ggml: one per device, llama.cpp's split buffers a few more) */
#define COPY_SLOTS 16
static __thread struct kept_copy *kept;  /* COPY_SLOTS */
static __thread struct kept_copy offered;
static __thread int has_offer, ctx_before, stream_before;
static void forget(void) { kept = NULL; }  /* the thread's table freed as it ends */

static struct kept_copy *slot(int64_t stream, int ptds) {
    return &kept[zluda_mix64((uint64_t)stream ^ (uint64_t)ptds) % COPY_SLOTS];
}

__attribute__((visibility("default"))) void zluda_copy_offer(const int64_t *o) {
    for (int i = 0; i < C_WORDS; i++) offered.v[i] = o[i];
    has_offer = 1;
}

/* cuMemcpyDtoDAsync (ptds 0) and _ptsz (1): a[0] dst, a[1] src, a[2] bytes, a[3] stream; 1 when done here */
int zluda_copy_get(int ptds, const int64_t *a, CUresult *r) {
    ctx_before = __atomic_load_n(&zluda_ctx_epoch, __ATOMIC_ACQUIRE);
    stream_before = __atomic_load_n(&zluda_stream_epoch, __ATOMIC_ACQUIRE);
    has_offer = 0;
    if (!kept) return 0;
    if (a[2] != 0 && (a[0] == 0 || a[1] == 0)) return 0;  /* the JVM answers CUDA_ERROR_INVALID_VALUE */
    struct kept_copy *k = slot(a[3], ptds);
    if (!k->used || k->v[C_STREAM] != a[3] || k->v[C_PTDS] != ptds) return 0;
    if (k->ctx_epoch != ctx_before || k->stream_epoch != stream_before) return 0;
    device_copy_fn copy = (device_copy_fn)(uintptr_t)k->v[C_COPY];
    if (copy((uint64_t)a[0], (uint64_t)a[1], (size_t)a[2], (void *)(uintptr_t)k->v[C_QUEUE]) != CUDA_SUCCESS) {
        k->used = 0;  /* the JVM copies again and reports what the backend says */
        return 0;
    }
    *r = CUDA_SUCCESS;
    return 1;
}

/* After a successful copy through the JVM: keeps what it offered for this very copy, if anything. */
void zluda_copy_put(int ptds, const int64_t *a) {
    if (!has_offer) return;
    has_offer = 0;
    if (offered.v[C_STREAM] != a[3] || offered.v[C_PTDS] != ptds) return;
    if (!kept && !(kept = zluda_thread_calloc(COPY_SLOTS, sizeof *kept, forget))) return;
    struct kept_copy *k = slot(a[3], ptds);
    *k = offered;
    k->ctx_epoch = ctx_before;
    k->stream_epoch = stream_before;
    k->used = 1;
}
