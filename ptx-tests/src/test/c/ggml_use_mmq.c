/*
 * LD_PRELOAD for ggml's FORCE_CUBLAS build (../shared/ggml/host): makes it choose its matrix kernels as llama.cpp's
 * default build does. The two builds' device code is the same; only mmq.cu's host function ggml_cuda_should_use_mmq
 * differs (it returns false under GGML_CUDA_FORCE_CUBLAS), and libggml-cuda calls it through its PLT. On a device
 * with Turing's int8 mma (ZLUDA-J reports compute capability 8.6) and 48 KiB of opt-in shared memory the default
 * build answers true for every type MMQ has kernels for: these are the types of mmq.cu's switch, by ggml_type number.
 */
#include <stdbool.h>
#include <stdint.h>

bool _Z24ggml_cuda_should_use_mmq9ggml_typeill(int type, int cc, int64_t ne11, int64_t n_experts);

bool _Z24ggml_cuda_should_use_mmq9ggml_typeill(int type, int cc, int64_t ne11, int64_t n_experts) {
    (void) cc;
    (void) ne11;
    (void) n_experts;
    switch (type) {
    case 2: case 3: case 6: case 7: case 8:                 /* Q4_0 Q4_1 Q5_0 Q5_1 Q8_0 */
    case 10: case 11: case 12: case 13: case 14:            /* Q2_K .. Q6_K */
    case 16: case 17: case 18: case 19: case 20: case 21: case 22: case 23:  /* IQ2_XXS .. IQ4_XS */
    case 39: case 40: case 41: case 42:                     /* MXFP4, NVFP4, Q1_0, Q2_0 */
        return true;
    default:
        return false;
    }
}
