/* ZLUDA-J host runtime: what host-compiled kernels and the Java driver share.
 * A host kernel is `void kernel(void **params, zluda_thread_ctx *ctx)`: params is CUDA's kernelParams array,
 * ctx describes the calling thread. Field order is ABI: org.zludaj.ptx.target.HostTarget reads it by index. */
#pragma once
#include <stdint.h>

typedef struct {
    uint32_t tid[3];     /* field 0..2  %tid.x/y/z */
    uint32_t ntid[3];    /* field 3..5  %ntid */
    uint32_t ctaid[3];   /* field 6..8  %ctaid */
    uint32_t nctaid[3];  /* field 9..11 %nctaid */
    void *shared;        /* byte 48     static + dynamic shared memory of the block */
    uint64_t shared_size; /* byte 56    its size */
} zluda_thread_ctx;

typedef void (*zluda_host_kernel)(void **params, zluda_thread_ctx *ctx);
