package org.zludaj.driver.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.zludaj.driver.backend.Blas;
import org.zludaj.driver.backend.Blas.Gemm;
import org.zludaj.driver.backend.Blas.Scalar;

/** The cublasComputeType_t NVIDIA's cuBLAS is asked for, per checked GEMM. */
class NvidiaCublasTest {
    private static final Scalar ONE = Scalar.host(Float.floatToRawIntBits(1f) & 0xffffffffL, 0);

    private static Gemm gemm(int type, int scalarType, boolean wide, boolean tf32) {
        return new Gemm(1, 0, 64, 64, 64, ONE, 0x1000, type, 64, 0, 0x2000, type, 64, 0, ONE, 0x3000, type == Blas.R_8I ? Blas.R_32I : type,
                64, 0, 1, false, scalarType, wide, tf32);
    }

    @Test
    void tf32GemmsAskForTf32AndTheOthersForTheirPrecision() {
        assertEquals(77, NvidiaCublas.computeType(gemm(Blas.R_32F, Blas.R_32F, false, true)), "CUBLAS_COMPUTE_32F_FAST_TF32");
        assertEquals(68, NvidiaCublas.computeType(gemm(Blas.R_32F, Blas.R_32F, false, false)), "CUBLAS_COMPUTE_32F");
        assertEquals(68, NvidiaCublas.computeType(gemm(Blas.R_16F, Blas.R_32F, false, false)), "f16 inputs in 32F");
        assertEquals(64, NvidiaCublas.computeType(gemm(Blas.R_16F, Blas.R_16F, false, false)), "CUBLAS_COMPUTE_16F");
        assertEquals(70, NvidiaCublas.computeType(gemm(Blas.R_64F, Blas.R_64F, true, false)), "CUBLAS_COMPUTE_64F");
        assertEquals(72, NvidiaCublas.computeType(gemm(Blas.R_8I, Blas.R_32I, true, false)), "CUBLAS_COMPUTE_32I");
        // the constructor without tf32 (the host's and AMD's callers) means full precision
        assertEquals(false, new Gemm(0, 0, 1, 1, 1, ONE, 0, Blas.R_32F, 1, 0, 0, Blas.R_32F, 1, 0, ONE, 0, Blas.R_32F, 1, 0, 1, false,
                Blas.R_32F, false).tf32());
    }
}
