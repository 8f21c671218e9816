/* ZLUDA-J: one call of a BLAS library function through a generic signature, for the libraries the GPU backends
 * open at run time (NVIDIA's cuBLAS: rt/nvidia.c; AMD's rocBLAS: rt/hip.c). Every parameter of those APIs is an
 * integer, an enum or a pointer (scalars go by address), which the x86-64 System V ABI passes alike: in the six
 * integer registers, then in 8-byte stack slots. Extra arguments are harmless (the caller cleans the stack). An
 * argument equal to BLAS_SLOT | i becomes the address of slots[2i] (16 bytes each: host scalars in, handles and
 * descriptors out); the slots are copied back to the caller afterwards. */
#include <jni.h>
#include <stdint.h>
#include "hostrt.h"

#define BLAS_SLOT 0x5a4c000000000000LL
#define BLAS_SLOTS 8
#define BLAS_ARGS 32

typedef long long ll;
typedef int (*f32args)(ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll, ll,
                       ll, ll, ll, ll, ll, ll);

int zluda_blas_call(JNIEnv *e, void *fn, jlongArray args, jlongArray slots) {
    ll a[BLAS_ARGS] = {0};
    uint64_t sl[2 * BLAS_SLOTS] = {0};
    jsize n = (*e)->GetArrayLength(e, args), ns = (*e)->GetArrayLength(e, slots);
    if (!fn || n > BLAS_ARGS || ns > 2 * BLAS_SLOTS) return -1;
    (*e)->GetLongArrayRegion(e, args, 0, n, (jlong *)a);
    (*e)->GetLongArrayRegion(e, slots, 0, ns, (jlong *)sl);
    for (jsize i = 0; i < n; i++)
        if ((a[i] & ~0xffLL) == BLAS_SLOT && (a[i] & 0xff) < BLAS_SLOTS) a[i] = (ll)(uintptr_t)&sl[2 * (a[i] & 0xff)];
    int r = ((f32args)fn)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15],
                          a[16], a[17], a[18], a[19], a[20], a[21], a[22], a[23], a[24], a[25], a[26], a[27], a[28], a[29],
                          a[30], a[31]);
    (*e)->SetLongArrayRegion(e, slots, 0, ns, (const jlong *)sl);
    return r;
}
