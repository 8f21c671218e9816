package org.zludaj.driver.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;
import org.zludaj.driver.backend.Blas;
import org.zludaj.driver.backend.Blas.Gemm;
import org.zludaj.driver.backend.Blas.Scalar;

/** The cublasComputeType_t NVIDIA's cuBLAS is asked for, per checked GEMM, and the typed entry point of a typed call. */
class NvidiaCublasTest {
    private static final Scalar ONE = Scalar.host(Float.floatToRawIntBits(1f) & 0xffffffffL, 0);

    private static Gemm gemm(int type, int scalarType, boolean wide, int compute) {
        return new Gemm(1, 0, 64, 64, 64, ONE, 0x1000, type, 64, 0, 0x2000, type, 64, 0, ONE, 0x3000, type == Blas.R_8I ? Blas.R_32I : type,
                64, 0, 1, false, scalarType, wide, compute, 0);
    }

    @Test
    void theApplicationsComputeTypeOrTheOneItsCallMeans() {
        // the application's cublasComputeType_t as it is: the fast and pedantic forms too
        assertEquals(77, NvidiaCublas.computeType(gemm(Blas.R_32F, Blas.R_32F, false, 77)), "CUBLAS_COMPUTE_32F_FAST_TF32");
        assertEquals(69, NvidiaCublas.computeType(gemm(Blas.R_32F, Blas.R_32F, false, 69)), "CUBLAS_COMPUTE_32F_PEDANTIC");
        assertEquals(74, NvidiaCublas.computeType(gemm(Blas.R_32F, Blas.R_32F, false, 74)), "CUBLAS_COMPUTE_32F_FAST_16F");
        assertEquals(68, NvidiaCublas.computeType(gemm(Blas.R_16F, Blas.R_32F, false, 68)), "f16 inputs in 32F");
        // CUDA 10's cudaDataType_t compute types, and calls that name none (0): what they mean
        assertEquals(68, NvidiaCublas.computeType(gemm(Blas.R_32F, Blas.R_32F, false, Blas.R_32F)), "CUDA_R_32F: 32F");
        assertEquals(64, NvidiaCublas.computeType(gemm(Blas.R_16F, Blas.R_16F, false, Blas.R_16F)), "CUDA_R_16F: 16F");
        assertEquals(70, NvidiaCublas.computeType(gemm(Blas.R_64F, Blas.R_64F, true, 0)), "64F");
        assertEquals(72, NvidiaCublas.computeType(gemm(Blas.R_8I, Blas.R_32I, true, 0)), "32I");
        // the constructor without them (the host's and AMD's callers): no compute type, the default math mode
        Gemm plain = new Gemm(0, 0, 1, 1, 1, ONE, 0, Blas.R_32F, 1, 0, 0, Blas.R_32F, 1, 0, ONE, 0, Blas.R_32F, 1, 0, 1, false, Blas.R_32F, false);
        assertEquals(0, plain.compute());
        assertEquals(0, plain.mathMode());
        assertEquals(68, NvidiaCublas.computeType(plain));
    }

    private static Gemm called(String entry) {
        return new Gemm(1, 0, 64, 64, 64, ONE, 0x1000, Blas.R_32F, 64, 0, 0x2000, Blas.R_32F, 64, 0, ONE, 0x3000, Blas.R_32F, 64, 0, 1,
                false, Blas.R_32F, false, 68, 0, entry);
    }

    @Test
    void aTypedCallIsNvidiasTypedFunction() {
        assertEquals("cublasSgemm_v2", NvidiaCublas.typed(called("cublasSgemm")));
        assertEquals("cublasZgemm_v2", NvidiaCublas.typed(called("cublasZgemm")));
        assertEquals("cublasHgemm", NvidiaCublas.typed(called("cublasHgemm")));  // NVIDIA's has no _v2 form
        assertEquals("cublasDgemmStridedBatched", NvidiaCublas.typed(called("cublasDgemmStridedBatched")));
        assertEquals("cublasCgemmBatched", NvidiaCublas.typed(called("cublasCgemmBatched")));
        // the Ex forms and cuBLASLt (no entry) keep cublasGemmEx and its batched forms
        assertNull(NvidiaCublas.typed(called("cublasGemmEx")));
        assertNull(NvidiaCublas.typed(called("cublasSgemmEx")));
        assertNull(NvidiaCublas.typed(called("cublasGemmStridedBatchedEx")));
        assertNull(NvidiaCublas.typed(called(null)));
    }
}
