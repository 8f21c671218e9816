/* ZLUDA-J: libzluda_nvfwd.so, the "libcuda.so.1" of the private link-map namespace where the cuda backend opens
 * NVIDIA's cuBLAS and cuBLASLt (rt/nvidia.c). The CUDA runtime linked into NVIDIA's libraries opens libcuda.so.1 and
 * looks up driver functions by name (cuGetProcAddress, cuGetExportTable and a few hundred others). This library
 * exports every function NVIDIA's driver 580 exports (src/main/api/exports-580.txt; native.sh makes the names list
 * nvfwd_names.h and one jump per name, nvfwd_jumps.S), each a jump through a table that zluda_nvfwd_init fills with
 * the addresses in NVIDIA's driver that the cuda backend already has open in the application's namespace: cuBLAS then
 * runs on the backend's own driver instance (its context, memory and streams), every argument passed on untouched. */
#include <dlfcn.h>
#include <stddef.h>

static const char *const names[] = {
#define NAME(n) #n,
#include "nvfwd_names.h"
#undef NAME
};
#define COUNT (sizeof names / sizeof names[0])

__attribute__((visibility("hidden"))) void *zluda_nvfwd_table[COUNT];

/* CUDA_ERROR_NOT_FOUND, for a name NVIDIA's driver at hand does not have */
static int missing(void) { return 500; }

/* driver: dlopen's handle of NVIDIA's libcuda.so.1 (in another namespace: dlsym takes any handle). Returns how many
 * names it has. */
__attribute__((visibility("default"))) int zluda_nvfwd_init(void *driver) {
    int found = 0;
    for (size_t i = 0; i < COUNT; i++) {
        void *f = dlsym(driver, names[i]);
        zluda_nvfwd_table[i] = f ? f : (void *)missing;
        found += f != NULL;
    }
    return found;
}
