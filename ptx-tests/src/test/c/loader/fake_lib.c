/* A stand-in for a vendor library in the LD_AUDIT tests: says whose copy it is (WHO), and optionally which copy of
 * another library it gets when it asks the loader for NESTED by bare name itself. Built as a fake libcuda.so.1 too
 * (VERSION: the version its cuDriverGetVersion reports). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

#ifndef VERSION
const char *zluda_test_who(void) {
#ifdef NESTED
    static char buf[256];
    void *h = dlopen(NESTED, RTLD_NOW | RTLD_LOCAL);
    const char *(*who)(void) = h ? (const char *(*)(void))dlsym(h, "zluda_test_who") : NULL;
    snprintf(buf, sizeof buf, "%s>%s", WHO, who ? who() : "not found");
    return buf;
#else
    return WHO;
#endif
}
#endif

#ifdef VERSION
int cuDriverGetVersion(int *v) { *v = VERSION; return 0; }
int cuInit(unsigned flags) { (void)flags; return 0; }
#endif
