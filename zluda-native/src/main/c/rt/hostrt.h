/* ZLUDA-J host runtime: what host-compiled kernels and the Java driver share.
 * A host kernel is `void kernel(void **params, zluda_thread_ctx *ctx)`: params is CUDA's kernelParams array,
 * ctx describes the calling thread. Field order is ABI: org.zludaj.ptx.target.HostTarget reads it by index. */
#pragma once
#include <stdint.h>
#include <stddef.h>

/* Buffered device printf (printf.c): a device-to-host copy and a zeroing of device memory, 0 on success. */
typedef int (*zluda_copy_fn)(void *ctx, void *dst, uint64_t src, size_t n);
typedef int (*zluda_zero_fn)(void *ctx, uint64_t dst, size_t n);
/* Prints the buffer's records (printf lines to stdout, assert messages to stderr) and empties it; returns the
 * lines printed or -1, and the number of failed asserts in *asserts. */
int zluda_printf_drain(uint64_t buffer, zluda_copy_fn copy, zluda_zero_fn zero, void *ctx, int *asserts);

typedef struct {
    uint32_t tid[3];     /* field 0..2  %tid.x/y/z */
    uint32_t ntid[3];    /* field 3..5  %ntid */
    uint32_t ctaid[3];   /* field 6..8  %ctaid */
    uint32_t nctaid[3];  /* field 9..11 %nctaid */
    void *shared;        /* byte 48     static + dynamic shared memory of the block */
    uint64_t shared_size; /* byte 56    its size */
    void *block;         /* byte 64     the block's fiber scheduler (NULL on the fast path) */
    uint32_t linear;     /* byte 72     linear thread index in the block */
    uint32_t envreg1;    /* byte 76     %envreg1: high half of the cooperative grid's workspace (0 otherwise) */
    uint32_t envreg2;    /* byte 80     %envreg2: its low half */
    char *stack_lo;      /* byte 88     the thread's stack, where its .local memory is: isspacep.local */
    char *stack_hi;      /* byte 96     its end */
    char *param_lo;      /* byte 104    the kernel's parameters where a kernel takes their address (isspacep.param) */
    char *param_hi;      /* byte 112    their end; both written by the kernel, 0 otherwise */
} zluda_thread_ctx;
/* HostTarget.CTX_SIZE: compiled block functions copy this many bytes of it (a field beyond was read out of bounds,
 * and LLVM removed the kernel's code as undefined) */
_Static_assert(sizeof(zluda_thread_ctx) == 120, "zluda_thread_ctx changed: change HostTarget.CTX_SIZE and its offsets");

/* Block and warp operations, called by host-compiled kernels (fiber path only). */
void zluda_bar_sync(zluda_thread_ctx *ctx, uint32_t id, uint32_t count);
uint32_t zluda_bar_red(zluda_thread_ctx *ctx, uint32_t id, uint32_t count, uint32_t op, uint32_t pred);
uint64_t zluda_warp(zluda_thread_ctx *ctx, uint32_t kind, uint32_t mask, uint64_t value, uint32_t b, uint32_t c);
void zluda_warp_gather(zluda_thread_ctx *ctx, uint32_t *buffer, uint32_t words);
void zluda_wmma(zluda_thread_ctx *ctx, uint32_t *block, uint32_t layout, uint32_t input);
void zluda_warp_permutes(zluda_thread_ctx *ctx, uint32_t *buffer, uint32_t n);
void zluda_fiber_yield(zluda_thread_ctx *ctx);

typedef void (*zluda_host_kernel)(void **params, zluda_thread_ctx *ctx);

/* fibers.c */
void zluda_fiber_fail(zluda_thread_ctx *ctx, int code);

/* faults.c */
#include <setjmp.h>
#include <signal.h>
extern __thread sigjmp_buf *zluda_fault_escape;
extern __thread int zluda_fault_code;
extern __thread void *zluda_fault_address;
extern __thread void *zluda_fault_pc;
void zluda_faults_install(void);
void zluda_altstack_push(stack_t *old, void **mem);
void zluda_altstack_pop(const stack_t *old, void *mem);
/* faults.c: the block time limit (ZLUDA_BLOCK_TIME_LIMIT): a block past it ends with code -8 */
double zluda_watch_limit(void);
void zluda_watch_launch(void);
void zluda_watch_begin(void);
void zluda_watch_block(void);
void zluda_watch_end(void);

/* rt/blascall.c: one call of a run-time BLAS library's function with a generic signature (see there). */
#include <jni.h>
int zluda_blas_call(JNIEnv *e, void *fn, jlongArray args, jlongArray slots);
/* A call the shim makes without the JVM (shim/blas.c): fn with 32 argument words under the BLAS lock, unless the BLAS
 * epoch moved from `epoch` (-2, nothing called); prepare (may be NULL) first, after (may be NULL) last; the library's
 * status, or -3 where prepare failed. */
int zluda_blas_direct(void *fn, int64_t epoch, const int64_t *args, int (*prepare)(void), void (*after)(void));
