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
#include <jni.h>

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t take(const unsigned char *args, size_t *at, size_t size, void *dst) {
    *at = (*at + size - 1) / size * size;
    memcpy(dst, args + *at, size);
    *at += size;
    return size;
}

/* A %s argument's text: the host backend's kernels pass host pointers; buffered records (below) name device
 * addresses, read through the drain's copy function. */
typedef const char *(*string_fn)(void *ctx, uint64_t address, char *tmp, size_t cap);

static const char *direct_string(void *ctx, uint64_t address, char *tmp, size_t cap) {
    (void)ctx; (void)tmp; (void)cap;
    return (const char *)(uintptr_t)address;
}

/* Formats CUDA's (format, argument buffer) into out (cap bytes, NUL-terminated); returns the length. */
static size_t format(const char *fmt, const unsigned char *args, size_t argsBytes, char *out, size_t cap, string_fn str,
                     void *sctx) {
    size_t n = 0, at = 0;
#define ARG(size, dst) (args && (at + size - 1) / size * size + size <= argsBytes ? take(args, &at, size, dst) : 0)
    for (const char *p = fmt; *p && n < cap - 1; p++) {
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
                ARG(8, &v);
                w = snprintf(out + n, cap - n, spec, v);
            } else {
                int v = 0;
                ARG(4, &v);
                w = snprintf(out + n, cap - n, spec, v);
            }
        } else if (strchr("fFeEgGaA", conv)) {
            spec[s++] = conv;
            spec[s] = 0;
            double v = 0;
            ARG(8, &v);
            w = snprintf(out + n, cap - n, spec, v);
        } else if (conv == 's' || conv == 'p') {
            spec[s++] = conv;
            spec[s] = 0;
            uint64_t v = 0;
            ARG(8, &v);
            char tmp[1024];
            const char *text = v ? str(sctx, v, tmp, sizeof tmp) : NULL;
            w = conv == 's' ? snprintf(out + n, cap - n, spec, text ? text : "(null)") : snprintf(out + n, cap - n, spec, (void *)(uintptr_t)v);
        } else {
            out[n++] = '%';
            if (n < cap - 1) out[n++] = conv;
            continue;
        }
        if (w > 0) n += (size_t)w < cap - n ? (size_t)w : cap - n - 1;
    }
#undef ARG
    out[n] = 0;
    return n;
}

static void emit(FILE *f, const char *text) {
    pthread_mutex_lock(&out_lock);
    if (f == stderr) fflush(stdout);
    fputs(text, f);
    pthread_mutex_unlock(&out_lock);
}

/* Called with CUDA's .param ABI as ZLUDA-J lowers it: pointers to the storage of the return value and of the two
 * parameters (the format's address and the argument buffer's address). */
void zluda_vprintf(zluda_thread_ctx *ctx, int32_t *ret, const char **fmtp, const unsigned char **argsp) {
    (void)ctx;
    if (!*fmtp) { *ret = -1; return; }
    char out[4096];
    size_t n = format(*fmtp, *argsp, SIZE_MAX, out, sizeof out, direct_string, NULL);
    emit(stdout, out);
    *ret = (int32_t)n;
}

/* ---- buffered device printf (targets whose kernels cannot call the host: AMD GPUs; the host's AMD emulation)
 * The kernel's module holds a pointer to a buffer: a 16-byte header {u32 used, u32 capacity, u32 lost, u32 0} and
 * records from offset 16, each {u32 kind, u32 bytes, ...} with kind written last (0: incomplete, skipped).
 * kind 1 printf: u64 format address, then the argument buffer. kind 2 assert: u64 message, file, function
 * addresses, u32 line, u32 0, u32 ctaid[3], u32 tid[3]. Addresses are device addresses, read through `copy`. */
typedef struct {
    zluda_copy_fn copy;
    void *ctx;
} reader;

static const char *device_string(void *ctx, uint64_t address, char *tmp, size_t cap) {
    reader *r = ctx;
    size_t n = 0;
    while (n + 64 < cap) {  /* 64-byte aligned pieces never cross a page, so no read leaves the string's page */
        uint64_t at = address + n, piece = 64 - (at & 63);
        if (r->copy(r->ctx, tmp + n, at, piece) != 0) return n ? (tmp[n] = 0, tmp) : "(unreadable)";
        char *end = memchr(tmp + n, 0, piece);
        if (end) return tmp;
        n += piece;
    }
    tmp[n] = 0;
    return tmp;
}

int zluda_printf_drain(uint64_t buffer, zluda_copy_fn copy, zluda_zero_fn zero, void *ctx, int *asserts) {
    uint32_t header[4];
    *asserts = 0;
    if (copy(ctx, header, buffer, sizeof header) != 0) return -1;
    if ((header[0] == 0 && header[2] == 0) || header[1] < 16) return 0;
    uint32_t used = header[0] < header[1] - 16 ? header[0] : header[1] - 16;
    unsigned char *records = malloc(used ? used : 1);
    if (!records || copy(ctx, records, buffer + 16, used) != 0) { free(records); return -1; }
    reader r = {copy, ctx};
    int printed = 0;
    for (uint32_t at = 0; at + 8 <= used;) {
        uint32_t kind, bytes;
        memcpy(&kind, records + at, 4);
        memcpy(&bytes, records + at + 4, 4);
        if (bytes < 16 || at + bytes > used) break;
        char out[4096], fmt[1024];
        uint64_t a[3];
        memcpy(a, records + at + 8, bytes >= 32 ? 24 : 8);
        if (kind == 1) {
            const char *f = device_string(&r, a[0], fmt, sizeof fmt);
            format(f, records + at + 16, bytes - 16, out, sizeof out, device_string, &r);
            emit(stdout, out);
            printed++;
        } else if (kind == 2 && bytes >= 64) {
            char msg[1024], file[1024], function[1024];
            uint32_t w[8];
            memcpy(w, records + at + 32, 32);
            snprintf(out, sizeof out, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n",
                     device_string(&r, a[1], file, sizeof file), w[0], device_string(&r, a[2], function, sizeof function),
                     w[2], w[3], w[4], w[5], w[6], w[7], device_string(&r, a[0], msg, sizeof msg));
            emit(stderr, out);
            ++*asserts;
        }
        at += (bytes + 7) & ~7u;
    }
    if (header[2]) {
        char out[128];
        snprintf(out, sizeof out, "ZLUDA-J: device printf buffer full, %u records lost\n", header[2]);
        emit(stderr, out);
    }
    free(records);
    zero(ctx, buffer + 16, used);  /* records, used and lost; the capacity stays */
    zero(ctx, buffer, 4);
    zero(ctx, buffer + 8, 4);
    fflush(stdout);
    return printed;
}

static int host_copy(void *ctx, void *dst, uint64_t src, size_t n) {
    (void)ctx;
    memcpy(dst, (const void *)(uintptr_t)src, n);
    return 0;
}

static int host_zero(void *ctx, uint64_t dst, size_t n) {
    (void)ctx;
    memset((void *)(uintptr_t)dst, 0, n);
    return 0;
}

/* The host backend's AMD emulation: drains a buffer in host memory; returns asserts << 32 | lines printed. */
JNIEXPORT jlong JNICALL Java_org_zludaj_nativ_HostRuntime_printfDrain(JNIEnv *e, jclass c, jlong buffer) {
    (void)e; (void)c;
    int asserts = 0, printed = zluda_printf_drain((uint64_t)buffer, host_copy, host_zero, NULL, &asserts);
    return ((jlong)asserts << 32) | (uint32_t)printed;
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

/* A buffered assert (the AMD emulation: the message is in the printf buffer): the thread ends as in
 * zluda_assertfail, and the launch fails with CUDA_ERROR_ASSERT. */
void zluda_assert_stop(zluda_thread_ctx *ctx) {
    zluda_block_failed = -3;
    memcpy(zluda_failed_tid, ctx->tid, sizeof zluda_failed_tid);
    if (ctx->block) zluda_fiber_fail(ctx, -3);
    if (zluda_block_escape) siglongjmp(*zluda_block_escape, 1);
}

/* PTX trap: the block stops and the launch fails as on NVIDIA (the driver maps -4 to its error code). */
void zluda_trap(zluda_thread_ctx *ctx) {
    zluda_block_failed = -4;
    if (ctx->block) zluda_fiber_abort(ctx);  /* does not return */
    if (zluda_block_escape) siglongjmp(*zluda_block_escape, 1);
    abort();  /* not inside a launch: cannot happen */
}
