/* ZLUDA-J host runtime: faults of kernel code. While a thread runs kernel code, a SIGSEGV or SIGBUS (an access to
 * an address no mapping backs, a fiber stack overflowing into its guard page) or a SIGFPE ends the thread's block and
 * fails the launch, as NVIDIA reports CUDA_ERROR_ILLEGAL_ADDRESS; the application keeps running. Every other signal,
 * and these signals outside kernel code, go to the handler installed before ours: the JVM's, which relies on SIGSEGV
 * for its own purposes (implicit null checks, safepoint polls). Kernel threads handle the signal on an alternate
 * stack, because a fiber stack overflow leaves no room on the fiber's own stack.
 * Not caught: an out-of-bounds access that lands in memory the process has mapped (another allocation, the JVM's
 * heap) reads or corrupts that memory, as it would on a GPU whose page is mapped. */
#define _GNU_SOURCE
#include "hostrt.h"
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <link.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

__thread sigjmp_buf *zluda_fault_escape;  /* the innermost recovery point while kernel code runs on this thread */
__thread int zluda_fault_code;            /* why the last escape happened: -5 memory, -6 arithmetic */
__thread void *zluda_fault_address;
__thread void *zluda_fault_pc;            /* the faulting instruction (reported with ZLUDA_LOG=debug) */

static struct sigaction prev_segv, prev_bus, prev_fpe;

static struct sigaction *previous(int sig) {
    return sig == SIGSEGV ? &prev_segv : sig == SIGBUS ? &prev_bus : &prev_fpe;
}

static void on_fault(int sig, siginfo_t *info, void *uc) {
    sigjmp_buf *escape = zluda_fault_escape;
    if (escape) {
        zluda_fault_escape = NULL;
        zluda_fault_code = sig == SIGFPE ? -6 : -5;
        zluda_fault_address = info ? info->si_addr : NULL;
        zluda_fault_pc = uc ? (void *)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP] : NULL;
        siglongjmp(*escape, 1);
    }
    struct sigaction *p = previous(sig);
    if (p->sa_flags & SA_SIGINFO) {
        if (p->sa_sigaction) p->sa_sigaction(sig, info, uc);
        return;
    }
    if (p->sa_handler == SIG_IGN) return;
    if (p->sa_handler == SIG_DFL) {  /* the default action: let the signal kill the process as it would have */
        sigaction(sig, p, NULL);
        raise(sig);
        return;
    }
    p->sa_handler(sig);
}

static void install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &prev_segv);
    sigaction(SIGBUS, &sa, &prev_bus);
    sigaction(SIGFPE, &sa, &prev_fpe);
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

void zluda_faults_install(void) {
    pthread_once(&once, install);
}

#define ALT_STACK (64 * 1024)

/* Gives the calling thread an alternate signal stack for the launch; *old receives the one it had. */
void zluda_altstack_push(stack_t *old, void **mem) {
    *mem = malloc(ALT_STACK);
    stack_t s = {.ss_sp = *mem, .ss_size = ALT_STACK, .ss_flags = 0};
    if (!*mem || sigaltstack(&s, old) != 0) {
        free(*mem);
        *mem = NULL;
    }
}

void zluda_altstack_pop(const stack_t *old, void *mem) {
    if (!mem) return;
    stack_t s = *old;
    if (!(s.ss_flags & SS_ONSTACK)) sigaltstack(s.ss_flags & SS_DISABLE ? &(stack_t){.ss_flags = SS_DISABLE} : &s, NULL);
    free(mem);
}

/* ---- The block time limit. A block that runs longer than ZLUDA_BLOCK_TIME_LIMIT seconds of its thread's CPU time
 * (default 300; 0: no limit) ends as a fault does, and the launch fails with CUDA_ERROR_LAUNCH_TIMEOUT: the bound on
 * a kernel that computes forever (a loop whose exit its own arithmetic never reaches), which no analysis can tell
 * from a long computation, and on any other way a block may fail to progress that the fiber scheduler's own checks
 * (deadlock, polling-only rounds: fibers.c) do not see. Each thread that runs blocks has a timer on its CPU-time
 * clock, armed at its first launch and stopped by the first tick outside a launch; a tick past the limit leaves the
 * block only when the thread is in
 * kernel code (JIT-compiled, in no loaded ELF object): interrupting it inside the C library or the runtime could
 * leave a lock held, so a tick there waits for the next, sooner one. */
#define WATCH_SIGNAL SIGXCPU
static const int watch_magic = 0x2a;  /* its address marks our timer's signals (si_value) */
static struct sigaction prev_watch;
static double watch_limit = -1;       /* seconds; set once (zluda_watch_limit) before any timer exists */

typedef struct { uintptr_t lo, hi; } range_t;
typedef struct { int n; range_t r[]; } ranges_t;
static _Atomic(ranges_t *) code_ranges;  /* executable segments of the loaded objects; replaced, never freed */
static unsigned long long ranges_adds = ~0ULL, ranges_subs = ~0ULL;
static pthread_mutex_t ranges_lock = PTHREAD_MUTEX_INITIALIZER;

static __thread timer_t watch_timer;
static __thread int watch_has_timer;
static __thread volatile sig_atomic_t watch_in_block, watch_hurried, watch_armed;
static __thread volatile unsigned long watch_blocks;  /* blocks started by this thread: counted, not timed */
static __thread unsigned long watch_seen;             /* the block the last tick saw, and since when (CPU s) */
static __thread double watch_seen_since;

static double thread_cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

double zluda_watch_limit(void) {
    if (watch_limit < 0) {
        const char *e = getenv("ZLUDA_BLOCK_TIME_LIMIT");
        double v = e && *e ? strtod(e, NULL) : 300.0;
        watch_limit = v > 0 ? v : 0;
    }
    return watch_limit;
}

typedef struct { ranges_t *out; int capacity, count; } walk_t;

static int add_segments(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    walk_t *w = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        if (p->p_type != PT_LOAD || !(p->p_flags & PF_X)) continue;
        if (w->out && w->out->n < w->capacity) {
            w->out->r[w->out->n].lo = info->dlpi_addr + p->p_vaddr;
            w->out->r[w->out->n].hi = info->dlpi_addr + p->p_vaddr + p->p_memsz;
            w->out->n++;
        }
        w->count++;
    }
    ranges_adds = info->dlpi_adds;
    ranges_subs = info->dlpi_subs;
    return 0;
}

/* Brings the list of loaded code up to date (at a launch's start, outside any signal handler), at most once a second
 * (walking the loaded objects costs microseconds, a launch here a few): made again only when the loader's counts of
 * loads and unloads moved. Kernel code calls only into objects loaded before it was linked (the C library, libm, this
 * runtime), so a list up to a second old holds them. */
static void refresh_ranges(void) {
    static _Atomic long long last;  /* ns */
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    long long now = (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
    if (atomic_load(&code_ranges) != NULL && now - atomic_load(&last) < 1000000000LL) return;
    pthread_mutex_lock(&ranges_lock);
    atomic_store(&last, now);
    unsigned long long adds = ranges_adds, subs = ranges_subs;
    walk_t count = {0};
    dl_iterate_phdr(add_segments, &count);
    if (atomic_load(&code_ranges) == NULL || adds != ranges_adds || subs != ranges_subs) {
        walk_t fill = {.capacity = count.count + 64};
        fill.out = malloc(sizeof(ranges_t) + (size_t)fill.capacity * sizeof(range_t));
        if (fill.out) {
            fill.out->n = 0;
            dl_iterate_phdr(add_segments, &fill);
            atomic_store(&code_ranges, fill.out);  /* the old list stays readable for a handler that holds it */
        }
    }
    pthread_mutex_unlock(&ranges_lock);
}

static int in_loaded_code(uintptr_t pc) {
    ranges_t *r = atomic_load(&code_ranges);
    if (!r) return 1;
    for (int i = 0; i < r->n; i++) if (pc >= r->r[i].lo && pc < r->r[i].hi) return 1;
    return 0;
}

static void tick_every(double seconds) {
    struct itimerspec its;
    its.it_value.tv_sec = (time_t)seconds;
    its.it_value.tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9);
    if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0) its.it_value.tv_nsec = 1;
    its.it_interval = its.it_value;
    timer_settime(watch_timer, 0, &its, NULL);
}

static void on_watch(int sig, siginfo_t *info, void *uc) {
    if (!info || info->si_code != SI_TIMER || info->si_value.sival_ptr != (void *)&watch_magic) {
        struct sigaction *p = &prev_watch;  /* not our timer's: whoever handled the signal before us */
        if (p->sa_flags & SA_SIGINFO) { if (p->sa_sigaction) p->sa_sigaction(sig, info, uc); return; }
        if (p->sa_handler == SIG_IGN) return;
        if (p->sa_handler == SIG_DFL) { sigaction(sig, p, NULL); raise(sig); return; }
        p->sa_handler(sig);
        return;
    }
    sigjmp_buf *escape = zluda_fault_escape;
    if (!watch_in_block) {  /* the thread's launches ended: no more ticks until its next (no system call per launch) */
        struct itimerspec off;
        memset(&off, 0, sizeof off);
        timer_settime(watch_timer, 0, &off, NULL);
        watch_armed = 0;
        return;
    }
    if (!escape) return;
    double now = thread_cpu_seconds();
    if (watch_blocks != watch_seen) { watch_seen = watch_blocks; watch_seen_since = now; }  /* a block since the last tick */
    if (now - watch_seen_since < watch_limit) return;
    uintptr_t pc = uc ? (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP] : 0;
    if (in_loaded_code(pc)) {  /* in the C library or the runtime: leave at a tick in kernel code, soon */
        if (!watch_hurried) { watch_hurried = 1; tick_every(0.005); }
        return;
    }
    zluda_fault_escape = NULL;
    zluda_fault_code = -8;
    zluda_fault_address = NULL;
    zluda_fault_pc = (void *)pc;
    siglongjmp(*escape, 1);
}

static pthread_key_t watch_key;

static void watch_thread_ends(void *unused) {
    (void)unused;
    if (watch_has_timer) { timer_delete(watch_timer); watch_has_timer = 0; }
}

static void install_watch(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_watch;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(WATCH_SIGNAL, &sa, &prev_watch);
    pthread_key_create(&watch_key, watch_thread_ends);
}

static pthread_once_t watch_once = PTHREAD_ONCE_INIT;

/* At a launch's start, on the launching thread: the list of loaded code the ticks consult. */
void zluda_watch_launch(void) {
    if (zluda_watch_limit() <= 0) return;
    pthread_once(&watch_once, install_watch);
    refresh_ranges();
}

/* Before the calling thread runs blocks of a launch. Its timer ticks on the thread's CPU-time clock (every second at
 * most, four times within the limit at least), so it never fires while the thread waits; it stays armed from launch to
 * launch and is stopped by the first tick after the thread's last launch. */
void zluda_watch_begin(void) {
    if (zluda_watch_limit() <= 0) return;
    pthread_once(&watch_once, install_watch);
    if (!watch_has_timer) {
        clockid_t clock;
        if (pthread_getcpuclockid(pthread_self(), &clock) != 0) return;
        struct sigevent sev;
        memset(&sev, 0, sizeof sev);
        sev.sigev_notify = SIGEV_THREAD_ID;
        sev.sigev_signo = WATCH_SIGNAL;
        sev.sigev_value.sival_ptr = (void *)&watch_magic;
        sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
        if (timer_create(clock, &sev, &watch_timer) != 0) return;
        watch_has_timer = 1;
        pthread_setspecific(watch_key, &watch_has_timer);  /* non-NULL: the destructor deletes the timer */
    }
    watch_blocks++;
    watch_in_block = 1;
    if (!watch_armed || watch_hurried) {
        watch_armed = 1;
        watch_hurried = 0;
        double tick = watch_limit / 4;
        tick_every(tick > 1 ? 1 : tick);
    }
}

/* A block starts: its time counts from the first tick that sees it (at most one tick late: no clock read per block). */
void zluda_watch_block(void) {
    if (!watch_in_block) return;
    watch_blocks++;
    if (watch_hurried) { watch_hurried = 0; double tick = watch_limit / 4; tick_every(tick > 1 ? 1 : tick); }
}

/* After the thread's last block of the launch. */
void zluda_watch_end(void) {
    watch_in_block = 0;
}
