/* ZLUDA-J host runtime: printf and assert from kernels.
 * vprintf(format, args): CUDA packs the arguments into a buffer, each aligned to its own size (int 4, long and
 * pointer and double 8; float arrives promoted to double). The line is formatted here and written to the process's
 * stdout in one piece, so lines of different threads do not interleave; launches flush stdout at their end.
 * __assertfail(message, file, line, function, charSize): prints the CUDA-style message and stops the block; the
 * launch then fails with CUDA_ERROR_ASSERT. */
#define _GNU_SOURCE
#include "hostrt.h"
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t take(const unsigned char *args, size_t *at, size_t size, void *dst) {
    *at = (*at + size - 1) / size * size;
    memcpy(dst, args + *at, size);
    *at += size;
    return size;
}

/* Called with CUDA's .param ABI as ZLUDA-J lowers it: pointers to the storage of the return value and of the two
 * parameters (the format's address and the argument buffer's address). */
void zluda_vprintf(zluda_thread_ctx *ctx, int32_t *ret, const char **fmtp, const unsigned char **argsp) {
    (void)ctx;
    const char *fmt = *fmtp;
    const unsigned char *args = *argsp;
    char out[4096];
    size_t n = 0, at = 0;
    if (!fmt) { *ret = -1; return; }
    for (const char *p = fmt; *p && n < sizeof out - 1; p++) {
        if (*p != '%') { out[n++] = *p; continue; }
        if (p[1] == '%') { out[n++] = '%'; p++; continue; }
        /* one conversion: flags, width, precision, length, type */
        char spec[32];
        size_t s = 0;
        spec[s++] = '%';
        p++;
        while (*p && strchr("-+ #0123456789.*", *p) && s < 20) spec[s++] = *p++;
        int longs = 0;
        while (*p == 'l' || *p == 'h' || *p == 'z' || *p == 'j' || *p == 't') { if (*p == 'l' || *p == 'z' || *p == 'j' || *p == 't') longs++; p++; }
        char conv = *p;
        if (!conv) break;
        int w = 0;
        if (conv == 'd' || conv == 'i' || conv == 'u' || conv == 'x' || conv == 'X' || conv == 'o' || conv == 'c') {
            if (longs) { spec[s++] = 'l'; spec[s++] = 'l'; }
            spec[s++] = conv;
            spec[s] = 0;
            if (longs) {
                long long v = 0;
                if (args) take(args, &at, 8, &v);
                w = snprintf(out + n, sizeof out - n, spec, v);
            } else {
                int v = 0;
                if (args) take(args, &at, 4, &v);
                w = snprintf(out + n, sizeof out - n, spec, v);
            }
        } else if (strchr("fFeEgGaA", conv)) {
            spec[s++] = conv;
            spec[s] = 0;
            double v = 0;
            if (args) take(args, &at, 8, &v);
            w = snprintf(out + n, sizeof out - n, spec, v);
        } else if (conv == 's' || conv == 'p') {
            spec[s++] = conv;
            spec[s] = 0;
            void *v = NULL;
            if (args) take(args, &at, 8, &v);
            w = conv == 's' ? snprintf(out + n, sizeof out - n, spec, v ? (const char *)v : "(null)") : snprintf(out + n, sizeof out - n, spec, v);
        } else {
            out[n++] = '%';
            out[n++] = conv;
            continue;
        }
        if (w > 0) n += (size_t)w < sizeof out - n ? (size_t)w : sizeof out - n - 1;
    }
    out[n] = 0;
    pthread_mutex_lock(&out_lock);
    fputs(out, stdout);
    pthread_mutex_unlock(&out_lock);
    *ret = (int32_t)n;
}

void zluda_flush_output(void) {
    pthread_mutex_lock(&out_lock);
    fflush(stdout);
    pthread_mutex_unlock(&out_lock);
}

/* The block's escape: set by the worker before running a block (fast path) and used by assert. */
__thread sigjmp_buf *zluda_block_escape;
__thread uint32_t zluda_failed_tid[3];
__thread int zluda_block_failed;
void zluda_fiber_abort(zluda_thread_ctx *ctx);

void zluda_assertfail(zluda_thread_ctx *ctx, const char **msg, const char **file, const uint32_t *line,
                      const char **function, const uint64_t *charsize) {
    (void)charsize;
    pthread_mutex_lock(&out_lock);
    fflush(stdout);
    fprintf(stderr, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", *file ? *file : "?",
            line ? *line : 0, *function ? *function : "?", ctx->ctaid[0], ctx->ctaid[1], ctx->ctaid[2], ctx->tid[0],
            ctx->tid[1], ctx->tid[2], *msg ? *msg : "?");
    pthread_mutex_unlock(&out_lock);
    zluda_block_failed = -3;  /* the launch fails with CUDA_ERROR_ASSERT */
    memcpy(zluda_failed_tid, ctx->tid, sizeof zluda_failed_tid);
    if (ctx->block) zluda_fiber_fail(ctx, -3);  /* the thread ends, the block's others run on; does not return */
    if (zluda_block_escape) siglongjmp(*zluda_block_escape, 1);
}

/* PTX trap: the block stops and the launch fails as on NVIDIA (the driver maps -4 to its error code). */
void zluda_trap(zluda_thread_ctx *ctx) {
    zluda_block_failed = -4;
    if (ctx->block) zluda_fiber_abort(ctx);  /* does not return */
    if (zluda_block_escape) siglongjmp(*zluda_block_escape, 1);
    abort();  /* not inside a launch: cannot happen */
}
