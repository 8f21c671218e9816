/* ZLUDA-J: one call of a BLAS library function through a generic signature, for the libraries the GPU backends
 * open at run time (NVIDIA's cuBLAS: rt/nvidia.c; AMD's rocBLAS: rt/hip.c). Every parameter of those APIs is an
 * integer, an enum or a pointer (scalars go by address), which the x86-64 System V ABI passes alike: in the six
 * integer registers, then in 8-byte stack slots. Extra arguments are harmless (the caller cleans the stack). An
 * argument equal to BLAS_SLOT | i becomes the address of slots[2i] (16 bytes each: host scalars in, handles and
 * descriptors out); the slots are copied back to the caller afterwards. */
#include <jni.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "hostrt.h"

#define BLAS_SLOT 0x5a4c000000000000LL
#define BLAS_SLOTS 8
#define BLAS_ARGS 32

typedef long long ll;
typedef int (*f32args)(ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll,
                       ll, ll, ll, ll, ll, ll);

/* Under ZLUDA_PROFILE=calls, the time each call spends inside the backend's library, printed at exit after the
 * JVM's table: the part of a cuBLAS call's cost that is the library's own (the rest is ZLUDA-J's path to it). */
#define PROFILED (1 << 20)
static int profile = -1;
static uint32_t *profile_ns;  /* nanoseconds of the first PROFILED calls */
static unsigned profile_count;

static int by_value(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void profile_print(void) {
    unsigned n = profile_count < PROFILED ? profile_count : PROFILED, skip = n / 10;  /* the first tenth: first calls */
    if (n - skip == 0) return;
    qsort(profile_ns + skip, n - skip, sizeof *profile_ns, by_value);
    double sum = 0;
    for (unsigned i = skip; i < n; i++) sum += profile_ns[i];
    fprintf(stderr, "ZLUDA-J backend BLAS calls (inside the library, first tenth left out): %u calls, p50 %.2f us, p90 %.2f us, mean %.2f us\n",
            n - skip, profile_ns[skip + (n - skip) / 2] / 1e3, profile_ns[skip + (n - skip) * 9 / 10] / 1e3, sum / (n - skip) / 1e3);
}

static uint64_t nanos(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The backend BLAS's lock and state epoch, for the GEMMs the shim makes without the JVM (shim/blas.c): every call of
 * the library holds the lock; the JVM moves the epoch (blasStateChanged) before it changes what such a call depends
 * on (the backend handle's stream, pointer mode or math mode, an application handle's settings), and a direct call
 * made under an older epoch is refused. */
static pthread_mutex_t blas_lock = PTHREAD_MUTEX_INITIALIZER;
static int64_t blas_epoch = 1;

static int call_args(void *fn, const ll *a) {
    return ((f32args)fn)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15],
                         a[16], a[17], a[18], a[19], a[20], a[21], a[22], a[23], a[24], a[25], a[26], a[27], a[28], a[29],
                         a[30], a[31]);
}

int zluda_blas_direct(void *fn, int64_t epoch, const int64_t *args, int (*prepare)(void), void (*after)(void)) {
    ll a[BLAS_ARGS];
    for (int i = 0; i < BLAS_ARGS; i++) a[i] = args[i];
    pthread_mutex_lock(&blas_lock);
    int r = epoch != blas_epoch ? -2 : prepare ? prepare() : 0;
    if (r == 0) r = call_args(fn, a);
    else if (r > 0) r = -3;  /* the backend's context could not be made current */
    if (after) after();
    pthread_mutex_unlock(&blas_lock);
    return r;
}

/* org.zludaj.nativ.HostRuntime.blasStateChanged: a new epoch (returned); direct calls made under older ones refused */
JNIEXPORT jlong JNICALL Java_org_zludaj_nativ_HostRuntime_blasStateChanged(JNIEnv *e, jclass c) {
    (void)e; (void)c;
    pthread_mutex_lock(&blas_lock);
    jlong r = ++blas_epoch;
    pthread_mutex_unlock(&blas_lock);
    return r;
}

/* org.zludaj.nativ.HostRuntime.blasEpoch: the epoch now */
JNIEXPORT jlong JNICALL Java_org_zludaj_nativ_HostRuntime_blasEpoch(JNIEnv *e, jclass c) {
    (void)e; (void)c;
    return __atomic_load_n(&blas_epoch, __ATOMIC_ACQUIRE);
}

int zluda_blas_call(JNIEnv *e, void *fn, jlongArray args, jlongArray slots) {
    ll a[BLAS_ARGS] = {0};
    uint64_t sl[2 * BLAS_SLOTS] = {0};
    jsize n = (*e)->GetArrayLength(e, args), ns = (*e)->GetArrayLength(e, slots);
    if (!fn || n > BLAS_ARGS || ns > 2 * BLAS_SLOTS) return -1;
    (*e)->GetLongArrayRegion(e, args, 0, n, (jlong *)a);
    (*e)->GetLongArrayRegion(e, slots, 0, ns, (jlong *)sl);
    for (jsize i = 0; i < n; i++)
        if ((a[i] & ~0xffLL) == BLAS_SLOT && (a[i] & 0xff) < BLAS_SLOTS) a[i] = (ll)(uintptr_t)&sl[2 * (a[i] & 0xff)];
    if (profile < 0) {
        const char *p = getenv("ZLUDA_PROFILE");
        profile = p && !strcmp(p, "calls") && (profile_ns = malloc(sizeof *profile_ns * PROFILED)) != NULL;
        if (profile) atexit(profile_print);
    }
    uint64_t t0 = profile ? nanos() : 0;
    pthread_mutex_lock(&blas_lock);
    int r = call_args(fn, a);
    pthread_mutex_unlock(&blas_lock);
    if (profile) {
        uint64_t took = nanos() - t0;
        unsigned i = __atomic_fetch_add(&profile_count, 1, __ATOMIC_RELAXED);
        if (i < PROFILED) profile_ns[i] = (uint32_t)(took < UINT32_MAX ? took : UINT32_MAX);
    }
    (*e)->SetLongArrayRegion(e, slots, 0, ns, (const jlong *)sl);
    return r;
}
