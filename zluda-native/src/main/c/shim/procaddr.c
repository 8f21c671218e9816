/* ZLUDA-J shim: cuGetProcAddress and cuGetProcAddress_v2, answered in C from NVIDIA driver 580's recorded table
 * (zluda_procaddr.c, generated from src/main/api/procaddr-580.txt), so cudart's 440 requests before cuInit need no
 * JVM. Semantics measured on the real driver: an unknown name or a version below the first breakpoint answers
 * CUDA_SUCCESS with *pfn = NULL and status SYMBOL_NOT_FOUND (1) or VERSION_NOT_SUFFICIENT (2); a flag other than
 * 0/1/2, or a version newer than the driver's 13000, answers CUDA_ERROR_INVALID_VALUE and writes nothing. */
#include "shim.h"
#include <stdio.h>
#include <string.h>

#define DRIVER_VERSION 13000
#define STATUS_SUCCESS 0
#define STATUS_SYMBOL_NOT_FOUND 1
#define STATUS_VERSION_NOT_SUFFICIENT 2

static CUresult lookup(const char *symbol, void **pfn, int version, uint64_t flags, int *status) {
    if (!symbol || !pfn) return CUDA_ERROR_INVALID_VALUE;  /* NVIDIA crashes here; we answer */
    if (flags > 2 || version > DRIVER_VERSION) return CUDA_ERROR_INVALID_VALUE;
    int lo = 0, hi = zluda_procaddr_count - 1, first = -1;
    while (lo <= hi) {  /* first entry of `symbol` */
        int mid = (lo + hi) / 2, c = strcmp(zluda_procaddr_table[mid].name, symbol);
        if (c < 0) lo = mid + 1;
        else { if (c == 0) first = mid; hi = mid - 1; }
    }
    const zluda_procaddr_entry *best = NULL;
    for (int i = first; i >= 0 && i < zluda_procaddr_count && !strcmp(zluda_procaddr_table[i].name, symbol); i++) {
        const zluda_procaddr_entry *e = &zluda_procaddr_table[i];
        if (e->flag == (int)flags && e->version <= version) best = e;
    }
    *pfn = NULL;
    CUresult rc = CUDA_SUCCESS;
    int st;
    if (first < 0) st = STATUS_SYMBOL_NOT_FOUND;
    else if (!best) st = STATUS_VERSION_NOT_SUFFICIENT;
    else if (best->fn) { *pfn = best->fn; st = STATUS_SUCCESS; }
    else { rc = best->rc; st = best->status; }
    if (status) *status = st;
    if (zluda_trace) fprintf(stderr, "ZLUDA-J trace: cuGetProcAddress(%s, %d, %lu) -> %d status %d %p\n", symbol, version,
                             (unsigned long)flags, rc, st, *pfn);
    return rc;
}

ZLUDA_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, uint64_t flags, int *symbolStatus) {
    return lookup(symbol, pfn, cudaVersion, flags, symbolStatus);
}

ZLUDA_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, uint64_t flags) {
    return lookup(symbol, pfn, cudaVersion, flags, NULL);
}
