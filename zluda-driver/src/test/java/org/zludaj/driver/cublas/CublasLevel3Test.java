package org.zludaj.driver.cublas;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.zludaj.driver.backend.Blas;

/** Which GEMMs an application let NVIDIA's cuBLAS compute on TF32 tensor cores (cuBLAS's documented rules). */
class CublasLevel3Test {
    private static final int DEFAULT_MATH = 0, TENSOR_OP = 1, PEDANTIC = 2, TF32 = CublasLevel3.TF32_TENSOR_OP_MATH,
            DISALLOW_REDUCED = 16;

    @Test
    void tf32WhereTheMathModeOrTheComputeTypeAllowsIt() {
        // llama.cpp: cublasSetMathMode(TF32_TENSOR_OP_MATH), then cublasSgemm (compute 32F) and GemmEx with 32F
        assertTrue(CublasLevel3.tf32(CublasLevel3.COMPUTE_32F, Blas.R_32F, TF32));
        assertTrue(CublasLevel3.tf32(CublasLevel3.COMPUTE_32F, Blas.C_32F, TF32));
        assertTrue(CublasLevel3.tf32(Blas.R_32F, Blas.R_32F, TF32 | DISALLOW_REDUCED), "the legacy cudaDataType compute type");
        // the compute type asks for it, whatever the math mode
        assertTrue(CublasLevel3.tf32(CublasLevel3.COMPUTE_32F_FAST_TF32, Blas.R_32F, DEFAULT_MATH));
        // not: the default and pedantic modes, the pedantic compute type, other input types
        assertFalse(CublasLevel3.tf32(CublasLevel3.COMPUTE_32F, Blas.R_32F, DEFAULT_MATH));
        assertFalse(CublasLevel3.tf32(CublasLevel3.COMPUTE_32F, Blas.R_32F, TENSOR_OP));
        assertFalse(CublasLevel3.tf32(CublasLevel3.COMPUTE_32F, Blas.R_32F, PEDANTIC));
        assertFalse(CublasLevel3.tf32(CublasLevel3.COMPUTE_32F_PEDANTIC, Blas.R_32F, TF32));
        assertFalse(CublasLevel3.tf32(CublasLevel3.COMPUTE_32F, Blas.R_16F, TF32), "f16 inputs (ggml's f16 product in 32F)");
        assertFalse(CublasLevel3.tf32(CublasLevel3.COMPUTE_64F, Blas.R_64F, TF32));
    }
}
