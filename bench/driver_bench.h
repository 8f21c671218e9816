/* What the driver benchmarks (driver_overhead.c, graph_once.c) share: a monotonic clock in ns, a check that ends the
 * program at the first failing call, and the driver's functions looked up by name in the libcuda.so.1 the loader found
 * (the handle `h` in scope). Each benchmark is built alone: gcc -O2 NAME.c -ldl, this header next to it. */
#ifndef DRIVER_BENCH_H
#define DRIVER_BENCH_H
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

#define CHECK(x) do { int r_ = (x); if (r_) { fprintf(stderr, "%s = %d\n", #x, r_); exit(1); } } while (0)
/* the names of the ABI the declarations follow (cuCtxGetDevice_v2, for one, takes a context too) */
#define SYMN(f, name) do { *(void **)&f = dlsym(h, name); if (!f) { fprintf(stderr, "no %s\n", name); exit(1); } } while (0)
#define SYM(f) SYMN(f, #f)
#endif
