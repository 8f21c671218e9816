/* ZLUDA-J host runtime: the fiber path. Inside a block, every CUDA thread is a fiber run round-robin by
 * the worker that owns the block, so barriers and warp-synchronous operations behave as on NVIDIA:
 *   bar.sync/barrier: a fiber waits until `count` threads (default: the whole block) have arrived at barrier `id`;
 *   warp collectives (shfl, vote, match, redux, activemask-free ones): the lanes of the member mask form a group, so
 *     groups of different masks (divergent code) coexist. Once every member arrived, the group still lets the warp's
 *     other lanes run until each is blocked somewhere: lanes that execute the same instruction without being in its
 *     mask (undefined in PTX) then take part as on NVIDIA, where the converged warp executes it together.
 * If every live fiber of a block waits, the launch reports a deadlock instead of hanging. */
#define _GNU_SOURCE
#include "hostrt.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <immintrin.h>

/* Context switch (x86-64 System V): saves the callee-saved registers and the stack pointer of the current context
 * in *from, continues the context whose stack pointer is `to`. No system call (ucontext's swapcontext makes one). */
void zluda_ctx_switch(void **from, void *to);
__asm__(".text\n"
        ".globl zluda_ctx_switch\n"
        ".type zluda_ctx_switch,@function\n"
        "zluda_ctx_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n"
        ".size zluda_ctx_switch, .-zluda_ctx_switch\n"
        /* first entry of a fiber: its fiber_t is in r12 */
        ".globl zluda_fiber_trampoline\n"
        ".type zluda_fiber_trampoline,@function\n"
        "zluda_fiber_trampoline:\n"
        "  movq %r12, %rdi\n"
        "  call zluda_fiber_main\n"
        "  ud2\n"
        ".size zluda_fiber_trampoline, .-zluda_fiber_trampoline\n");
void zluda_fiber_trampoline(void);

enum { W_SHFL_UP, W_SHFL_DOWN, W_SHFL_BFLY, W_SHFL_IDX, W_VOTE_ALL, W_VOTE_ANY, W_VOTE_UNI, W_BALLOT, W_MATCH_ANY,
       W_MATCH_ALL, W_REDUX_ADD, W_REDUX_MIN, W_REDUX_MAX, W_REDUX_UMIN, W_REDUX_UMAX, W_REDUX_AND, W_REDUX_OR,
       W_REDUX_XOR, W_SYNC, W_ELECT, W_ACTIVEMASK, W_GATHER, W_WMMA, W_PERMUTES };

typedef struct {
    uint32_t mask, kind, arrived, b, c;
    int active;
    uint64_t in[32];
    uint32_t lane_b[32], lane_c[32];  /* each lane's own b and c (a shuffle's source lane may differ per lane) */
    uint64_t out[32];
    int done;
} group_t;

typedef struct fiber {
    void *sp;
    zluda_thread_ctx ctx;
    int finished, waiting;
    int converging;  /* arrived at a complete warp collective, letting the warp's other lanes reach theirs first */
    int spinning;    /* polling memory for another thread (nanosleep, mbarrier waits): blocked, though runnable */
    void *poll_site; /* where it last polled (the kernel's call), and whether that differed from the poll before */
    int moved;
} fiber_t;

typedef struct {
    void *main_sp;
    fiber_t *fibers;
    int n, live, current;
    char *stacks;
    size_t stack_size;
    zluda_host_kernel fn;
    void **params;
    /* barriers */
    uint32_t bar_arrived[16], bar_generation[16], bar_red[16], bar_red_count[16];
    uint32_t bar_result[16];
    /* warp groups: up to 32 pending per warp */
    group_t *groups;  /* warps * 32 */
    uint32_t *group_active;  /* per warp: which of its 32 groups are active */
    uint32_t *am_parked;     /* per warp: the lanes parked at an activemask (am_site set) */
    /* activemask meetings, per thread: the activemask instruction a lane is parked at (0: none), the mask it gets */
    uint32_t *am_site, *am_result;
    int deadlock, aborted;
    int chain;   /* switches of a fiber straight to another (a warp collective's missing lane) since the scheduler
                    last ran a fiber */
    int failed;  /* a thread asserted (-3): the others run on, as on NVIDIA, and the launch fails */
} block_t;

static __thread block_t *current_block;
extern __thread int zluda_block_failed;  /* printf.c: why a fiber aborted the block (-3 assert, -4 trap) */

__attribute__((used, noreturn)) void zluda_fiber_main(fiber_t *f) {
    block_t *b = current_block;
    b->fn(b->params, &f->ctx);
    f->finished = 1;
    b->live--;
    for (int t = 0; t < b->n; t++) b->fibers[t].waiting = 0;  /* collectives over live lanes re-check */
    void *dead;
    zluda_ctx_switch(&dead, b->main_sp);
    __builtin_unreachable();
}

/* A thread asserted: it ends, the block's other threads run on (each failing assert prints, as on NVIDIA), and
 * the launch fails with `code`. Threads left waiting for it at a barrier end the block without a deadlock error. */
void zluda_fiber_fail(zluda_thread_ctx *ctx, int code) {
    block_t *b = ctx->block;
    fiber_t *f = &b->fibers[ctx->linear];
    if (!b->failed) b->failed = code;
    f->finished = 1;
    b->live--;
    for (int t = 0; t < b->n; t++) b->fibers[t].waiting = 0;
    void *dead;
    zluda_ctx_switch(&dead, b->main_sp);
    __builtin_unreachable();
}

/* A thread trapped: the whole block stops (the fiber is never resumed). */
void zluda_fiber_abort(zluda_thread_ctx *ctx) {
    block_t *b = ctx->block;
    fiber_t *f = &b->fibers[ctx->linear];
    b->aborted = 1;
    zluda_ctx_switch(&f->sp, b->main_sp);
    __builtin_unreachable();
}

/* Switches back to the scheduler; returns when this fiber is resumed. */
static void yield(block_t *b, fiber_t *f) {
    zluda_ctx_switch(&f->sp, b->main_sp);
}

/* A lane waits at a warp collective for the lanes of `missing`: it switches straight to the first of them after it
 * that can run (one switch per lane and collective instead of two through the scheduler), else to the scheduler.
 * Every CHAIN_MAX such switches the scheduler gets its turn: a warp whose loop holds only collectives (waiting for
 * another warp through a memory read pass.SpinLoops does not see as a poll) would otherwise never let that warp run. */
enum { CHAIN_MAX = 256 };

static void yield_to_lane(block_t *b, fiber_t *f, int warp, int lane, uint32_t missing) {
    if (b->chain >= CHAIN_MAX) {
        yield(b, f);
        return;
    }
    uint32_t rotated = lane == 31 ? missing : (missing >> (lane + 1)) | (missing << (31 - lane));
    for (; rotated; rotated &= rotated - 1) {
        int t = warp * 32 + ((lane + 1 + __builtin_ctz(rotated)) & 31);
        fiber_t *next = &b->fibers[t];
        if (t >= b->n || next->finished || next->waiting) continue;
        b->current = t;
        b->chain++;
        zluda_ctx_switch(&f->sp, next->sp);
        return;
    }
    yield(b, f);
}

/* Fiber stacks of this worker, kept from block to block: one mapping, each stack with an inaccessible guard page
 * below it, so that an overflow faults instead of silently overwriting the neighbouring fiber's stack. */
static __thread char *stack_area;
static __thread size_t stack_area_count, stack_area_stride;

static char *fiber_stacks(uint32_t nthreads, size_t stack, size_t *stride) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t want = (stack + page - 1) / page * page + page;
    if (stack_area && stack_area_stride == want && stack_area_count >= nthreads) {
        *stride = want;
        return stack_area;
    }
    if (stack_area) munmap(stack_area, stack_area_count * stack_area_stride);
    stack_area = NULL;
    char *a = mmap(NULL, nthreads * want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (a == MAP_FAILED) return NULL;
    for (uint32_t t = 0; t < nthreads; t++)
        if (mprotect(a + t * want, page, PROT_NONE) != 0) {
            munmap(a, nthreads * want);
            return NULL;
        }
    stack_area = a;
    stack_area_count = nthreads;
    stack_area_stride = want;
    *stride = want;
    return a;
}

/* Seconds a block may spend with every live thread polling memory before its launch fails (ZLUDA_KERNEL_TIMEOUT;
 * 0: never). */
static double kernel_timeout(void) {
    static double timeout = -1;
    if (timeout < 0) {
        const char *e = getenv("ZLUDA_KERNEL_TIMEOUT");
        timeout = e && *e ? strtod(e, NULL) : 30.0;
        if (timeout < 0) timeout = 0;
    }
    return timeout;
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

int zluda_run_block_fibers(zluda_host_kernel fn, void **params, zluda_thread_ctx *proto, uint32_t nthreads, size_t stack) {
    block_t b;
    memset(&b, 0, sizeof b);
    b.n = (int)nthreads;
    b.live = b.n;
    b.fn = fn;
    b.params = params;
    b.stack_size = stack;
    b.fibers = calloc(nthreads, sizeof(fiber_t));
    size_t stride = 0;
    b.stacks = fiber_stacks(nthreads, stack, &stride);
    b.groups = calloc(((nthreads + 31) / 32) * 32, sizeof(group_t));
    uint32_t warps = (nthreads + 31) / 32;
    b.am_site = calloc(2 * (size_t)nthreads + 2 * (size_t)warps, sizeof(uint32_t));
    if (!b.fibers || !b.stacks || !b.groups || !b.am_site) {
        free(b.fibers); free(b.groups); free(b.am_site);
        return -1;
    }
    b.am_result = b.am_site + nthreads;
    b.group_active = b.am_result + nthreads;
    b.am_parked = b.group_active + warps;
    block_t *saved = current_block;
    current_block = &b;
    for (uint32_t t = 0; t < nthreads; t++) {
        fiber_t *f = &b.fibers[t];
        f->ctx = *proto;
        f->ctx.tid[0] = t % proto->ntid[0];
        f->ctx.tid[1] = t / proto->ntid[0] % proto->ntid[1];
        f->ctx.tid[2] = t / proto->ntid[0] / proto->ntid[1];
        f->ctx.block = &b;
        f->ctx.linear = t;
        f->ctx.stack_lo = b.stacks + (size_t)t * stride;  /* its .local memory (isspacep.local) */
        f->ctx.stack_hi = b.stacks + (size_t)(t + 1) * stride;
        /* initial frame: six callee-saved registers (r12 = the fiber) and the trampoline as return address, laid out
         * so that the trampoline starts with a 16-byte aligned stack */
        uintptr_t top = ((uintptr_t)(b.stacks + (size_t)(t + 1) * stride)) & ~(uintptr_t)15;
        void **frame = (void **)(top - 56);
        memset(frame, 0, 56);
        frame[3] = f;                           /* r12 */
        frame[6] = (void *)zluda_fiber_trampoline;
        f->sp = frame;
    }
    /* a memory fault in a fiber (faults.c) comes back here, on the worker's stack: the block ends */
    sigjmp_buf escape;
    sigjmp_buf *outer = zluda_fault_escape;
    volatile int faulted = 0;  /* set after a longjmp back here */
    if (sigsetjmp(escape, 1) != 0) {
        faulted = zluda_fault_code;
        const char *log = getenv("ZLUDA_LOG");
        if (log && (!strcmp(log, "debug") || !strcmp(log, "trace"))) {
            zluda_thread_ctx *c = &b.fibers[b.current].ctx;
            fprintf(stderr, "ZLUDA-J DEBUG host: kernel fault %d at address %p, instruction %p, block (%u,%u,%u) thread (%u,%u,%u)\n",
                    faulted, zluda_fault_address, zluda_fault_pc, c->ctaid[0], c->ctaid[1], c->ctaid[2], c->tid[0], c->tid[1], c->tid[2]);
        }
        goto end;
    }
    zluda_fault_escape = &escape;
    /* round-robin until every fiber finished; a full round in which no fiber could run is a deadlock, and rounds in
     * which every fiber that ran only polled memory again where it polled before (spinning: nanosleep, a polling
     * loop's yield, an mbarrier wait), for longer than the kernel timeout, loops that cannot end */
    double polling_since = 0, timeout = kernel_timeout();
    while (b.live > 0 && !b.deadlock && !b.aborted) {
        int progressed = 0, polled_only = 1;
        for (int t = 0; t < b.n && !b.deadlock && !b.aborted; t++) {
            fiber_t *f = &b.fibers[t];
            if (f->finished || f->waiting) continue;
            b.current = t;
            b.chain = 0;
            zluda_ctx_switch(&b.main_sp, f->sp);
            progressed = 1;
            fiber_t *ran = &b.fibers[b.current];  /* the fiber that came back: f, or one a collective switched to */
            if (!ran->spinning || ran->moved || b.chain > 0) polled_only = 0;
        }
        if (!progressed && b.live > 0) b.deadlock = 1;
        if (!polled_only || !progressed || timeout <= 0) {
            polling_since = 0;
        } else if (polling_since == 0) {
            polling_since = now_seconds();
        } else if (now_seconds() - polling_since > timeout) {
            b.aborted = 1;
            zluda_block_failed = -7;  /* the driver: CUDA_ERROR_LAUNCH_TIMEOUT */
        }
    }
end:
    zluda_fault_escape = outer;
    int rc = faulted ? faulted : b.aborted ? (zluda_block_failed ? zluda_block_failed : -3) : b.failed ? b.failed
           : b.deadlock ? -2 : 0;
    free(b.fibers);
    free(b.groups);
    free(b.am_site);
    current_block = saved;
    return rc;
}

static fiber_t *self_of(zluda_thread_ctx *ctx, block_t **bp) {
    block_t *b = ctx->block;
    *bp = b;
    return &b->fibers[ctx->linear];
}

/* A lane of `warp` stops to wait for something: the lanes parked at activemask (meetings of the lanes that execute
 * together, which count blocked lanes out) re-check whether their meetings are complete. */
static void wake_meeting(block_t *b, int warp) {
    for (uint32_t m = b->am_parked[warp]; m; m &= m - 1) b->fibers[warp * 32 + __builtin_ctz(m)].waiting = 0;
}

/* Arrives at barrier `id` of `count` threads (default: the block); waits for the others unless `wait` is 0
 * (bar.arrive). Fibers only advance when all arrived. */
static uint32_t barrier(zluda_thread_ctx *ctx, uint32_t id, uint32_t count, int red_op, uint32_t pred, int wait) {
    block_t *b;
    fiber_t *me = self_of(ctx, &b);
    id &= 15;
    if (count == 0 || count > (uint32_t)b->n) count = (uint32_t)b->n;
    uint32_t gen = b->bar_generation[id];
    if (b->bar_arrived[id] == 0) { b->bar_red[id] = red_op == 1 ? 1 : 0; b->bar_red_count[id] = 0; }
    b->bar_arrived[id]++;
    if (red_op == 0) b->bar_red_count[id] += pred != 0;       /* popc */
    else if (red_op == 1) b->bar_red[id] &= pred != 0;       /* and */
    else if (red_op == 2) b->bar_red[id] |= pred != 0;       /* or */
    if (b->bar_arrived[id] >= count) {
        b->bar_result[id] = red_op == 0 ? b->bar_red_count[id] : b->bar_red[id];
        b->bar_arrived[id] = 0;
        b->bar_generation[id]++;
        for (int t = 0; t < b->n; t++) b->fibers[t].waiting = 0;  /* waiters re-check their generation */
        return b->bar_result[id];
    }
    if (!wait) return 0;
    while (b->bar_generation[id] == gen) {
        wake_meeting(b, (int)(ctx->linear >> 5));
        me->waiting = 1;
        yield(b, me);
    }
    return b->bar_result[id];
}

void zluda_bar_sync(zluda_thread_ctx *ctx, uint32_t id, uint32_t count) { barrier(ctx, id, count, -1, 0, 1); }

void zluda_bar_arrive(zluda_thread_ctx *ctx, uint32_t id, uint32_t count) { barrier(ctx, id, count, -1, 0, 0); }

uint32_t zluda_bar_red(zluda_thread_ctx *ctx, uint32_t id, uint32_t count, uint32_t op, uint32_t pred) {
    return barrier(ctx, id, count, (int)op, pred, 1);
}

/* f16 / bf16 bits to double (exact) */
static double half_value(uint32_t h, int bf16) {
    if (bf16) { uint32_t x = h << 16; float f; memcpy(&f, &x, 4); return f; }
    uint32_t e = h >> 10 & 0x1f, m = h & 0x3ff, sign = (h & 0x8000u) << 16, x;
    if (e == 0) { double v = m * 0x1p-24; return sign ? -v : v; }
    x = sign | (e == 31 ? 0x7f800000u : (e + 112) << 23) | m << 13;
    float f; memcpy(&f, &x, 4);
    return f;
}

/* One AMD WMMA 16x16x16 for the whole wave, from the operands where the ISA puts them (lane blocks of a[8] b[8]
 * c[8] d[8] words). input: 0 f16, 1 bf16 (f32 accumulators), 2-5 iu8 with A/B signed: s8s8, s8u8, u8s8, u8u8 (i32
 * accumulators, wrapping). RDNA3: lane L holds row/column L%16 of A/B with all 16 k (2 per word for 16-bit, 4 for
 * 8-bit), lanes 16-31 repeat 0-15 (the outputs of lanes 16-31 are computed from their own copies, so a lowering that
 * forgets the copy fails); D element v of lane L is (2v + L/16, L%16). RDNA4: lanes 0-15 hold k 0-7, lanes 16-31
 * k 8-15; D element v of lane L is (8(L/16) + v, L%16). Products exact, sums in double (floats: one rounding to f32)
 * or 64-bit integers. */
/* 16 f16 values (8 words, little-endian halves: element j is half j) as floats, exactly: F16C where the CPU has it */
__attribute__((target("f16c"))) static void halves_f16c(const uint32_t *w, float *out) {
    _mm256_storeu_ps(out, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)w)));
    _mm256_storeu_ps(out + 8, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(w + 4))));
}

static void halves(const uint32_t *w, float *out, int bf16) {
    if (!bf16 && __builtin_cpu_supports("f16c")) { halves_f16c(w, out); return; }
    for (int j = 0; j < 16; j++) out[j] = (float)half_value(w[j / 2] >> (16 * (j % 2)) & 0xffff, bf16);
}

static void wmma(uint32_t *const *blocks, uint32_t executing, int layout, int input) {
    int integer = input >= 2;
    /* each lane's 16 A and 16 B elements as numbers, once: element j is word j/per, field j%per (RDNA4's lanes use
     * j < 8 only); floats hold f16 and bf16 exactly. A lane that does not execute contributes zeros. */
    float av[32][16], bv[32][16];
    int32_t ai[32][16], bi[32][16];
    static const uint32_t none[16];
    for (int l = 0; l < 32; l++) {
        const uint32_t *w = blocks[l] ? blocks[l] : none;
        if (integer) {
            for (int j = 0; j < 16; j++) {
                uint32_t ae = w[j / 4] >> (8 * (j % 4)) & 0xff, be = w[8 + j / 4] >> (8 * (j % 4)) & 0xff;
                ai[l][j] = (input == 2 || input == 3) ? (int8_t)ae : (int32_t)ae;
                bi[l][j] = (input == 2 || input == 4) ? (int8_t)be : (int32_t)be;
            }
        } else {
            halves(w, av[l], input == 1);
            halves(w + 8, bv[l], input == 1);
        }
    }
    for (int l = 0; l < 32; l++) {
        if (!(executing >> l & 1)) continue;
        int half = l >> 4, col = l & 15;
        double acc[8] = {0};
        int64_t iacc[8] = {0};
        /* D element v: row 2v + half (RDNA3: A of lane row + 16*half, all 16 k; B of this lane) or 8*half + v
         * (RDNA4: k 0-7 from lanes row and col, k 8-15 from lanes row + 16 and col + 16); k in order, the 8
         * elements' sums side by side */
        for (int k = 0; k < 16; k++) {
            int lb = layout == 3 ? l : col + 16 * (k / 8), j = layout == 3 ? k : k % 8;
            for (int v = 0; v < 8; v++) {
                int la = layout == 3 ? 2 * v + 17 * half : 8 * half + v + 16 * (k / 8);
                if (integer) iacc[v] += (int64_t)ai[la][j] * bi[lb][j];
                else acc[v] += (double)av[la][j] * bv[lb][j];
            }
        }
        for (int v = 0; v < 8; v++) {
            if (integer) {
                blocks[l][24 + v] = (uint32_t)(iacc[v] + (int32_t)blocks[l][16 + v]);
            } else {
                float cf; memcpy(&cf, &blocks[l][16 + v], 4);
                float d = (float)(acc[v] + cf);
                memcpy(&blocks[l][24 + v], &d, 4);
            }
        }
    }
}

static void compute(group_t *g, int warp_base, int nlanes) {
    uint32_t m = g->mask, executing = g->arrived;
    for (int l = 0; l < 32; l++) {
        if (!(executing >> l & 1)) continue;
        uint64_t v = g->in[l], r = v;
        switch (g->kind) {
            case W_SHFL_UP: case W_SHFL_DOWN: case W_SHFL_BFLY: case W_SHFL_IDX: {
                /* PTX ISA shfl.sync: c packs the clamp value (bits 0-4) and the segment mask (bits 8-12) */
                int bval = (int)(g->lane_b[l] & 0x1f), cval = (int)(g->lane_c[l] & 0x1f), segmask = (int)((g->lane_c[l] >> 8) & 0x1f);
                int maxLane = (l & segmask) | (cval & ~segmask), minLane = l & segmask;
                int j, valid;
                if (g->kind == W_SHFL_UP) { j = l - bval; valid = j >= maxLane; }
                else if (g->kind == W_SHFL_DOWN) { j = l + bval; valid = j <= maxLane; }
                else if (g->kind == W_SHFL_BFLY) { j = l ^ bval; valid = j <= maxLane; }
                else { j = minLane | (bval & ~segmask); valid = j <= maxLane; }
                if (!valid) j = l;
                /* a source lane that does not execute the instruction is undefined: own value */
                uint64_t src = (executing >> j & 1) ? g->in[j] : v;
                r = (src & 0xffffffffu) | ((uint64_t)(valid != 0) << 32);
                break;
            }
            case W_VOTE_ALL: case W_VOTE_ANY: case W_VOTE_UNI: case W_BALLOT: {
                uint32_t ballot = 0;
                for (int k = 0; k < 32; k++) if (m >> k & 1 && g->in[k]) ballot |= 1u << k;
                if (g->kind == W_BALLOT) r = ballot;
                else if (g->kind == W_VOTE_ALL) r = ballot == m;
                else if (g->kind == W_VOTE_ANY) r = ballot != 0;
                else r = ballot == 0 || ballot == m;
                break;
            }
            case W_MATCH_ANY: case W_MATCH_ALL: {
                uint32_t same = 0;
                for (int k = 0; k < 32; k++) if (m >> k & 1 && g->in[k] == v) same |= 1u << k;
                if (g->kind == W_MATCH_ANY) r = same;
                else r = same == m ? (uint64_t)m | (1ull << 32) : 0;
                break;
            }
            case W_SYNC: r = 0; break;
            case W_WMMA: {
                if (l == __builtin_ctz(executing)) {  /* once for the wave */
                    uint32_t *blocks[32];
                    for (int k = 0; k < 32; k++) blocks[k] = executing >> k & 1 ? (uint32_t *)(uintptr_t)g->in[k] : NULL;
                    wmma(blocks, executing, (int)g->b, (int)g->c);
                }
                r = 0;
                break;
            }
            case W_GATHER: {
                /* in[k] points at lane k's buffer: its b words, then room for every lane's (matrix instructions) */
                uint32_t n = g->b, *dst = (uint32_t *)(uintptr_t)v + n;
                for (int k = 0; k < 32; k++) {
                    if (executing >> k & 1) memcpy(dst + (size_t)k * n, (const uint32_t *)(uintptr_t)g->in[k], n * 4u);
                    else memset(dst + (size_t)k * n, 0, n * 4u);
                }
                r = 0;
                break;
            }
            case W_PERMUTES: {
                /* in[k] points at lane k's buffer: b values, the b lanes to read them from, room for the b results */
                uint32_t n = g->b, *mine = (uint32_t *)(uintptr_t)v;
                for (uint32_t x = 0; x < n; x++) {
                    uint32_t j = mine[n + x] & 31;  /* a lane that does not execute it: own value (as shfl.idx) */
                    mine[2 * n + x] = executing >> j & 1 ? ((const uint32_t *)(uintptr_t)g->in[j])[x] : mine[x];
                }
                r = 0;
                break;
            }
            case W_ELECT: {
                int first = __builtin_ctz(m);
                r = (uint64_t)first | ((uint64_t)(l == first) << 32);
                break;
            }
            default: {  /* redux: 32-bit */
                uint32_t acc = g->kind == W_REDUX_AND ? 0xffffffffu : g->kind == W_REDUX_MIN ? 0x7fffffffu
                             : g->kind == W_REDUX_MAX ? 0x80000000u : g->kind == W_REDUX_UMIN ? 0xffffffffu : 0;
                for (int k = 0; k < 32; k++) {
                    if (!(m >> k & 1)) continue;
                    uint32_t x = (uint32_t)g->in[k];
                    switch (g->kind) {
                        case W_REDUX_ADD: acc += x; break;
                        case W_REDUX_MIN: if ((int32_t)x < (int32_t)acc) acc = x; break;
                        case W_REDUX_MAX: if ((int32_t)x > (int32_t)acc) acc = x; break;
                        case W_REDUX_UMIN: if (x < acc) acc = x; break;
                        case W_REDUX_UMAX: if (x > acc) acc = x; break;
                        case W_REDUX_AND: acc &= x; break;
                        case W_REDUX_OR: acc |= x; break;
                        default: acc ^= x; break;
                    }
                }
                r = acc;
            }
        }
        g->out[l] = r;
    }
    (void)warp_base; (void)nlanes;
}

/* A warp collective of this lane with the lanes of `mask`; returns this lane's result. */
uint64_t zluda_warp(zluda_thread_ctx *ctx, uint32_t kind, uint32_t mask, uint64_t value, uint32_t bv, uint32_t cv) {
    block_t *b;
    fiber_t *me = self_of(ctx, &b);
    int lane = (int)(ctx->linear & 31), warp = (int)(ctx->linear >> 5);
    int warp_lanes = b->n - warp * 32 < 32 ? b->n - warp * 32 : 32;
    uint32_t exists = warp_lanes == 32 ? 0xffffffffu : (1u << warp_lanes) - 1;
    if (kind == W_ACTIVEMASK) {
        /* the lanes executing it together (also the meeting points of pass.WarpLockstep). A lane parks at its
         * activemask instruction (`value` names it); once no lane of the warp is still running (each has parked at
         * an activemask, finished, or is blocked elsewhere: at a barrier, in another collective, polling memory),
         * the lanes parked at the first such instruction get the mask of their meeting. Lanes of the branches of
         * divergent code thus meet apart, each branch's lanes together, and meet again where the branches join. */
        uint32_t site = (uint32_t)value ? (uint32_t)value : 0xffffffffu, me_t = ctx->linear, base = (uint32_t)warp * 32;
        b->am_site[me_t] = site;
        b->am_parked[warp] |= 1u << lane;
        for (;;) {
            if (!b->am_site[me_t]) return b->am_result[me_t];  /* released by the lane that completed the meetings */
            uint32_t pending = 0;
            for (int t = 0; t < warp_lanes; t++) {
                fiber_t *f = &b->fibers[base + t];
                if (!f->finished && !b->am_site[base + t] && !f->waiting && !f->spinning) pending |= 1u << t;
            }
            if (!pending) {
                /* the meeting at the first of the instructions lanes are parked at (numbered in program order): lanes
                 * parked further on wait, as NVIDIA's warp waits where divergent paths join for the lanes still
                 * behind (the lanes of an if's other branch, of more iterations of a loop) */
                uint32_t first = 0xffffffffu, m = 0;
                for (int t = 0; t < warp_lanes; t++) {
                    uint32_t s = b->am_site[base + t];
                    if (s && s < first) first = s;
                }
                for (int t = 0; t < warp_lanes; t++) if (b->am_site[base + t] == first) m |= 1u << t;
                for (int t = 0; t < warp_lanes; t++) {
                    if (b->am_site[base + t] != first) continue;
                    b->am_result[base + t] = m;
                    b->am_site[base + t] = 0;
                    b->am_parked[warp] &= ~(1u << t);
                    b->fibers[base + t].waiting = 0;
                }
                if (!b->am_site[me_t]) return b->am_result[me_t];
                continue;  /* this lane waits for a later meeting: the released lanes run first */
            }
            me->waiting = 1;
            yield(b, me);
        }
    }
    mask &= exists;
    int member = (int)(mask >> lane & 1);
    group_t *gs = &b->groups[warp * 32], *g = NULL;
    uint32_t *active = &b->group_active[warp];
    for (uint32_t a = *active; a; a &= a - 1) {
        group_t *x = &gs[__builtin_ctz(a)];
        if (!x->done && x->mask == mask && x->kind == kind && !(x->arrived >> lane & 1)) { g = x; break; }
    }
    if (!member) {
        /* PTX leaves this undefined. A shuffle joins a pending group of its mask (NVIDIA's converged warp executes it
         * together with the members) or keeps its own value; other collectives add the lane to their mask. */
        if (kind <= W_SHFL_IDX && !g) return value & 0xffffffffu;
        if (kind > W_SHFL_IDX) {
            mask |= 1u << lane;
            g = NULL;
            for (uint32_t a = *active; a; a &= a - 1) {
                group_t *x = &gs[__builtin_ctz(a)];
                if (!x->done && x->mask == mask && x->kind == kind && !(x->arrived >> lane & 1)) { g = x; break; }
            }
        }
    }
    if (!g) {
        if (*active == 0xffffffffu) { b->deadlock = 1; return 0; }
        int k = __builtin_ctz(~*active);
        *active |= 1u << k;
        g = &gs[k];
        /* in/out/lane_b/lane_c are written for each lane that arrives before they are read */
        g->arrived = 0;
        g->done = 0;
        g->active = 1;
        g->mask = mask;
        g->kind = kind;
        g->b = bv;
        g->c = cv;
    }
    g->in[lane] = value;
    g->lane_b[lane] = bv;
    g->lane_c[lane] = cv;
    g->arrived |= 1u << lane;
    while (!g->done) {
        if ((g->arrived & g->mask) == g->mask) {
            /* complete: compute once every other lane of the warp is blocked, finished or converging too */
            int settled = 1;
            for (int t = 0; t < warp_lanes && settled && (g->arrived & exists) != exists; t++) {
                fiber_t *f = &b->fibers[warp * 32 + t];
                if (!(g->arrived >> t & 1) && !f->finished && !f->waiting && !f->converging) settled = 0;
            }
            if (settled) {
                compute(g, warp * 32, warp_lanes);
                g->done = 1;
                for (int t = warp * 32; t < warp * 32 + warp_lanes; t++) b->fibers[t].waiting = 0;
                break;
            }
            me->converging = 1;  /* runnable: resumed after the others had their turn */
            me->waiting = 0;
            yield(b, me);
        } else {
            wake_meeting(b, warp);
            me->waiting = 1;
            yield_to_lane(b, me, warp, lane, g->mask & ~g->arrived);
        }
        me->converging = 0;
    }
    me->waiting = 0;
    uint64_t r = g->out[lane];
    g->arrived &= ~(1u << lane);
    if (g->arrived == 0) {  /* the last reader frees the group */
        g->active = 0;
        *active &= ~(1u << (int)(g - gs));
    }
    return r;
}

/* The warp's lanes share `words` 32-bit values: buffer[0, words) holds this lane's; afterwards lane L's are at
 * buffer[words + L*words, ...). Copied while every lane of the warp is stopped at the collective. */
void zluda_warp_gather(zluda_thread_ctx *ctx, uint32_t *buffer, uint32_t words) {
    zluda_warp(ctx, W_GATHER, 0xffffffffu, (uint64_t)(uintptr_t)buffer, words, 0);
}

/* n independent lane permutes in one step (the host's emulation of an AMD lowering's ds_bpermute runs): buffer holds
 * this lane's n values, then the n lanes (0-31) to read them from; receives the n results after them. */
void zluda_warp_permutes(zluda_thread_ctx *ctx, uint32_t *buffer, uint32_t n) {
    zluda_warp(ctx, W_PERMUTES, 0xffffffffu, (uint64_t)(uintptr_t)buffer, n, 0);
}

/* The emulated AMD WMMA (host lowering of the matrix family for gfx11/gfx12, ZLUDA_HOST_WMMA): block holds this lane's
 * a[8] b[8] c[8] and receives d[8]; layout 3 = RDNA3, 4 = RDNA4; input as in wmma() above. */
void zluda_wmma(zluda_thread_ctx *ctx, uint32_t *block, uint32_t layout, uint32_t input) {
    zluda_warp(ctx, W_WMMA, 0xffffffffu, (uint64_t)(uintptr_t)block, layout, input);
}

/* A thread that waits for something other threads of its block will do (an mbarrier phase) lets them run. */
/* nanosleep: a thread that sleeps lets the block's other threads run (outside fibers it returns at once). */
/* A poll at `site`: the fiber lets the others run. Polling at another site than the last time is progress (it left
 * the loop it polled in); polling at the same one is not. */
static void poll_yield(zluda_thread_ctx *ctx, void *site) {
    block_t *b;
    fiber_t *me = self_of(ctx, &b);
    me->moved = site != me->poll_site;
    me->poll_site = site;
    me->spinning = 1;
    wake_meeting(b, (int)(ctx->linear >> 5));
    yield(b, me);
    me->spinning = 0;
}

__attribute__((noinline)) void zluda_nanosleep(zluda_thread_ctx *ctx) {
    if (ctx->block) poll_yield(ctx, __builtin_return_address(0));
}

__attribute__((noinline)) void zluda_fiber_yield(zluda_thread_ctx *ctx) {
    poll_yield(ctx, __builtin_return_address(0));
}
