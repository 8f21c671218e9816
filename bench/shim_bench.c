/* ZLUDA-J benchmark: the cost of the shim. Prints a table:
 *   first driver call (JVM start + driver boot), ms
 *   a trivial driver call through the shim and JNI (cuDriverGetVersion, cuCtxGetCurrent), ns
 *   the same loop calling an empty C function, ns (the baseline), and the difference: the cost the shim adds
 *   first call on a new thread (attaching it to the JVM), us
 * Build and run: bench/shim-bench.sh (after mvn package). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int CUresult;
CUresult cuDriverGetVersion(int *v);
CUresult cuInit(unsigned flags);
CUresult cuCtxGetCurrent(void **ctx);

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

__attribute__((noinline)) static CUresult empty_call(int *v) { __asm__ volatile("" ::: "memory"); *v = 13000; return 0; }
static CUresult (*volatile baseline)(int *) = empty_call;

static double per_call(CUresult (*fn)(int *), long n) {
    int v;
    for (long i = 0; i < n / 10; i++) fn(&v);
    double t = now_ns();
    for (long i = 0; i < n; i++) fn(&v);
    return (now_ns() - t) / n;
}

static CUresult ctx_current(int *v) { void *c; (void)v; return cuCtxGetCurrent(&c); }

static void *attach(void *out) {
    int v;
    double t = now_ns();
    cuDriverGetVersion(&v);
    *(double *)out = now_ns() - t;
    return NULL;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    int v = 0;
    double t = now_ns();
    CUresult r = cuDriverGetVersion(&v);
    double start_ms = (now_ns() - t) / 1e6;
    if (r != 0 || v != 13000) { fprintf(stderr, "cuDriverGetVersion failed: %d\n", r); return 1; }
    cuInit(0);
    double base = per_call(baseline, n);
    double version = per_call(cuDriverGetVersion, n);
    double current = per_call(ctx_current, n);
    double attach_ns;
    pthread_t th;
    pthread_create(&th, NULL, attach, &attach_ns);
    pthread_join(th, NULL);
    printf("| measurement                                        | value        |\n");
    printf("|----------------------------------------------------|--------------|\n");
    printf("| first driver call: JVM start + driver boot         | %9.1f ms |\n", start_ms);
    printf("| empty C function call (baseline)                   | %9.1f ns |\n", base);
    printf("| cuDriverGetVersion through the shim                | %9.1f ns |\n", version);
    printf("| cuCtxGetCurrent through the shim                   | %9.1f ns |\n", current);
    printf("| added cost of a trivial call (cuDriverGetVersion)  | %9.1f ns |\n", version - base);
    printf("| first call on a new thread (attach to the JVM)     | %9.1f us |\n", attach_ns / 1e3);
    printf("(%ld calls per row, after %ld warm-up calls)\n", n, n / 10);
    return 0;
}
