/* ZLUDA-J shim: libcuda.so.1. Every CUDA driver export forwards to the JVM through zluda_call. */
#pragma once
#include <stddef.h>
#include <stdint.h>

typedef int CUresult;
#define ZLUDA_EXPORT __attribute__((visibility("default")))

#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_NOT_INITIALIZED 3
#define CUDA_ERROR_DEINITIALIZED 4
#define CUDA_ERROR_OPERATING_SYSTEM 304
#define CUDA_ERROR_NOT_SUPPORTED 801
#define CUDA_ERROR_UNKNOWN 999

/* Calls driver function `id` (zluda_ids.h) in the JVM with its raw arguments; starts the JVM on first use. */
CUresult zluda_call(int id, const int64_t *args);

/* 1 when ZLUDA_LOG=trace. */
extern int zluda_trace;

static inline int64_t zluda_f32_bits(float f) { union { float f; uint32_t u; } c = {f}; return c.u; }
static inline int64_t zluda_f64_bits(double d) { union { double d; int64_t u; } c = {d}; return c.u; }

/* cuGetProcAddress: NVIDIA driver 580's answer for (name, flag) from `version` on (generated table). */
typedef struct {
    const char *name;
    int flag;
    int version;
    void *fn;
    int rc;
    int status;
} zluda_procaddr_entry;
extern const zluda_procaddr_entry zluda_procaddr_table[];
extern const int zluda_procaddr_count;
extern const char *const zluda_function_names[];
