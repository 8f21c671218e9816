/* LD_AUDIT probe: linked with -lcuda (DT_NEEDED libcuda.so.1, and a DT_RPATH the test points at a folder of fake
 * libraries). Prints the driver version of the libcuda it was linked to, then for each argument loads that library by
 * bare name (dlopen, or dlmopen into a new namespace with an "ns:" prefix) and prints whose copy it got. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int cuDriverGetVersion(int *version);

int main(int argc, char **argv) {
    int v = -1;
    cuDriverGetVersion(&v);
    printf("linked libcuda: %d\n", v);
    for (int i = 1; i < argc; i++) {
        const char *name = argv[i];
        int ns = !strncmp(name, "ns:", 3);
        if (ns) name += 3;
        void *h = ns ? dlmopen(LM_ID_NEWLM, name, RTLD_NOW | RTLD_LOCAL) : dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            printf("%s: not found\n", argv[i]);
            continue;
        }
        const char *(*who)(void) = (const char *(*)(void))dlsym(h, "zluda_test_who");
        int (*get_version)(int *) = (int (*)(int *))dlsym(h, "cuDriverGetVersion");
        if (get_version && !who) {
            int hv = -1;
            get_version(&hv);
            printf("%s: version %d\n", argv[i], hv);
        } else {
            printf("%s: %s\n", argv[i], who ? who() : "no probe symbol");
        }
    }
    return 0;
}
