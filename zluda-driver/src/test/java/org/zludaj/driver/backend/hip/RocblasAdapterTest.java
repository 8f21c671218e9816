package org.zludaj.driver.backend.hip;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.zludaj.driver.CudaException;
import org.zludaj.driver.backend.Blas;
import org.zludaj.driver.backend.Blas.Gemm;
import org.zludaj.driver.backend.Blas.Scalar;
import org.zludaj.driver.backend.RuntimeBlas;

/**
 * The hip backend's rocBLAS adapter against a recording fake of the rocBLAS table: every enum and type mapping, and
 * the exact rocBLAS calls (names, arguments in order, scalars by address) that each cuBLAS-level operation makes. Our
 * side of the contract; AMD's library behind it is checked on AMD hardware (docs/amd.md).
 */
class RocblasAdapterTest {
    /** Writes down each call: the function, then its arguments (a slot argument as &{its 16 bytes' first word}). */
    static class RecordingRocblas implements Rocblas {
        final List<String> calls = new ArrayList<>();
        String openFailure;
        int status;  // what every call after create answers

        @Override
        public String open() {
            calls.add("open");
            return openFailure;
        }

        @Override
        public int call(String function, long[] args, long[] slots) {
            StringBuilder b = new StringBuilder(function);
            for (long a : args) {
                if ((a & ~0xffL) == RuntimeBlas.SLOT) b.append(" &").append(Long.toHexString(slots[(int) (a & 0xff) * 2]));
                else b.append(' ').append(Math.abs(a) < 1_000_000 ? Long.toString(a) : "0x" + Long.toHexString(a));
            }
            calls.add(b.toString());
            if (function.equals("rocblas_create_handle")) {
                slots[0] = 0xabc000L;
                return 0;
            }
            return status;
        }
    }

    static final long HANDLE = 0xabc000L, STREAM = 0x3000L;
    static final Scalar ONE_F32 = Scalar.host(Float.floatToRawIntBits(1f) & 0xffffffffL, 0);
    static final Scalar ZERO_F32 = Scalar.host(0, 0);

    private final RecordingRocblas rocblas = new RecordingRocblas();
    private final HipBackendTest.RecordingHip hip = new HipBackendTest.RecordingHip();

    private RocblasAdapter open() throws CudaException {
        RocblasAdapter b = RocblasAdapter.open(rocblas, hip);
        assertEquals(List.of("open", "rocblas_create_handle &0"), rocblas.calls);
        rocblas.calls.clear();
        return b;
    }

    @Test
    void everyEnumMapsToRocblasNumbers() {
        assertArrayEquals(new long[] {111, 112, 113}, RocblasAdapter.OPERATION, "N, T, C");
        assertArrayEquals(new long[] {122, 121, 123}, RocblasAdapter.FILL, "cuBLAS LOWER 0, UPPER 1, FULL 2");
        assertArrayEquals(new long[] {131, 132}, RocblasAdapter.DIAGONAL, "NON_UNIT, UNIT");
        assertArrayEquals(new long[] {141, 142}, RocblasAdapter.SIDE, "LEFT, RIGHT");
        // cudaDataType_t 0..15 -> rocblas_datatype
        long[][] types = {{Blas.R_32F, 151}, {Blas.R_64F, 152}, {Blas.R_16F, 150}, {Blas.R_8I, 160}, {Blas.C_32F, 154}, {Blas.C_64F, 155},
                {6, 153}, {7, 164}, {Blas.R_8U, 161}, {9, 165}, {Blas.R_32I, 162}, {11, 166}, {12, 163}, {13, 167}, {Blas.R_16BF, 168},
                {15, 169}};
        for (long[] t : types) assertDoesNotThrow(() -> assertEquals(t[1], RocblasAdapter.datatype((int) t[0]), "cudaDataType " + t[0]));
        assertEquals(15, assertThrows(CudaException.class, () -> RocblasAdapter.datatype(16)).result(), "no rocBLAS type: NOT_SUPPORTED");
        // rocblas_status -> cublasStatus_t
        int[] want = {0, 1, 15, 7, 7, 3, 14, 0, 14, 14, 14, 7, 14, 13, 15, 8};
        for (int s = 0; s < want.length; s++) assertEquals(want[s], RocblasAdapter.status(s), "rocblas_status " + s);
        assertEquals(14, RocblasAdapter.status(99), "an unknown status is an internal error");
    }

    @Test
    void aGemmIsOneGemmStridedBatchedExWithTheStreamAndPointerModeSetOnce() throws Exception {
        RocblasAdapter b = open();
        Gemm g = new Gemm(0, 1, 64, 32, 16, ONE_F32, 0x10000, Blas.R_16F, 64, 1024, 0x20000, Blas.R_16F, 32, 512, ZERO_F32, 0x30000,
                Blas.R_32F, 64, 2048, 3, false, Blas.R_32F, false);
        b.gemm(g, STREAM);
        b.gemm(g, STREAM);
        String gemm = "rocblas_gemm_strided_batched_ex 0xabc000 111 112 64 32 16 &3f800000 65536 150 64 1024 131072 150 32 512 &0"
                + " 196608 151 64 2048 196608 151 64 2048 3 151 0 0 0";
        assertEquals(List.of("rocblas_set_stream 0xabc000 12288", "rocblas_set_pointer_mode 0xabc000 0", gemm, gemm), rocblas.calls);
    }

    @Test
    void deviceScalarsPointerArraysAndAnotherStream() throws Exception {
        RocblasAdapter b = open();
        Gemm g = new Gemm(2, 0, 8, 8, 8, Scalar.device(0x9000), 0x1000, Blas.C_64F, 8, 0, 0x2000, Blas.C_64F, 8, 0, Scalar.device(0x9010),
                0x3000, Blas.C_64F, 8, 0, 5, true, Blas.C_64F, true);
        b.gemm(g, 0x4000);
        assertEquals(List.of("rocblas_set_stream 0xabc000 16384", "rocblas_set_pointer_mode 0xabc000 1",
                "rocblas_gemm_batched_ex 0xabc000 113 111 8 8 8 36864 4096 155 8 8192 155 8 36880 12288 155 8 12288 155 8 5 155 0 0 0"),
                rocblas.calls);
    }

    @Test
    void theTypedFunctionsMapTheirEnums() throws Exception {
        RocblasAdapter b = open();
        b.trsm(Blas.R_32F, 0, 0, 1, 1, 4, 5, ONE_F32, 0x100, 4, 0x200, 4, 3, true, STREAM);
        b.trsm(Blas.R_64F, 1, 1, 0, 0, 4, 5, Scalar.host(Double.doubleToRawLongBits(2.0), 0), 0x100, 5, 0x200, 4, 1, false, STREAM);
        b.gemv(Blas.C_32F, 2, 6, 7, ONE_F32, 0x100, 6, 0x200, 1, ZERO_F32, 0x300, 2, STREAM);
        b.syrk(Blas.R_32F, 1, 1, 9, 3, ONE_F32, 0x100, 3, ZERO_F32, 0x200, 9, STREAM);
        b.symm(Blas.C_64F, 1, 0, 4, 6, ONE_F32, 0x100, 6, 0x200, 4, ZERO_F32, 0x300, 4, STREAM);
        b.geam(Blas.R_32F, 1, 0, 5, 6, ONE_F32, 0x100, 6, ZERO_F32, 0x200, 5, 0x300, 5, STREAM);
        assertEquals(List.of("rocblas_set_stream 0xabc000 12288", "rocblas_set_pointer_mode 0xabc000 0",
                "rocblas_strsm_batched 0xabc000 141 122 112 132 4 5 &3f800000 256 4 512 4 3",
                "rocblas_dtrsm 0xabc000 142 121 111 131 4 5 &4000000000000000 256 5 512 4",
                "rocblas_cgemv 0xabc000 113 6 7 &3f800000 256 6 512 1 &0 768 2",
                "rocblas_ssyrk 0xabc000 121 112 9 3 &3f800000 256 3 &0 512 9",
                "rocblas_zsymm 0xabc000 142 122 4 6 &3f800000 256 6 512 4 &0 768 4",
                "rocblas_sgeam 0xabc000 112 111 5 6 &3f800000 256 6 &0 512 5 768 5"), rocblas.calls);
    }

    @Test
    void levelOneResultsGoThroughDeviceScratchToWhereverTheCallerAsked() throws Exception {
        RocblasAdapter b = open();
        b.level1(Blas.DOT, Blas.R_32F, 100, null, Blas.R_32F, 0x100, 1, 0x200, 2, 0x7f00_0000_0000L, STREAM);
        b.level1(Blas.NRM2, Blas.C_32F, 10, null, Blas.C_32F, 0x100, 1, 0, 1, 0x7f00_0000_0010L, STREAM);
        b.level1(Blas.IAMAX, Blas.R_64F, 10, null, Blas.R_64F, 0x100, 3, 0, 1, 0x7f00_0000_0020L, STREAM);
        b.level1(Blas.SCAL, Blas.C_64F, 10, ONE_F32, Blas.R_64F, 0x100, 1, 0, 1, 0, STREAM);
        b.level1(Blas.AXPY, Blas.R_32F, 10, ONE_F32, Blas.R_32F, 0x100, 1, 0x200, 1, 0, STREAM);
        assertEquals(List.of("rocblas_set_stream 0xabc000 12288", "rocblas_set_pointer_mode 0xabc000 1",
                "rocblas_sdot 0xabc000 100 256 1 512 2 0x70000000",
                "rocblas_scnrm2 0xabc000 10 256 1 0x70000000",
                "rocblas_idamax 0xabc000 10 256 3 0x70000000",
                "rocblas_set_pointer_mode 0xabc000 0", "rocblas_zdscal 0xabc000 10 &3f800000 256 1",
                "rocblas_saxpy 0xabc000 10 &3f800000 256 1 512 1"), rocblas.calls);
        // the scratch allocated once, each result copied out with its size: f32 dot 4, c32 norm 4, index 4
        assertEquals(1, hip.calls.stream().filter(c -> c.startsWith("alloc 0 16")).count(), hip.calls.toString());
        assertEquals(List.of("copy 7f0000000000 4", "copy 7f0000000010 4", "copy 7f0000000020 4"),
                hip.calls.stream().filter(c -> c.startsWith("copy ")).toList());
    }

    @Test
    void aMatmulWithCApartFromDAndWhatRocblasCannotDo() throws Exception {
        RocblasAdapter b = open();
        Gemm g = new Gemm(1, 0, 16, 8, 32, ONE_F32, 0x1000, Blas.R_16F, 32, 512, 0x2000, Blas.R_16F, 32, 256, ONE_F32, 0x5000, Blas.R_16F,
                20, 160, 2, false, Blas.R_32F, false);
        b.matmul(new Blas.Matmul(g, 0x4000, 16, 128, Blas.EPILOGUE_DEFAULT, 0, 0, 0, false), STREAM);
        assertEquals("rocblas_gemm_strided_batched_ex 0xabc000 112 111 16 8 32 &3f800000 4096 150 32 512 8192 150 32 256 &3f800000"
                + " 16384 150 16 128 20480 150 20 160 2 151 0 0 0", rocblas.calls.get(2));
        CudaException e = assertThrows(CudaException.class,
                () -> b.matmul(new Blas.Matmul(g, 0x4000, 16, 128, Blas.EPILOGUE_RELU_BIAS, 0x6000, Blas.R_16F, 16, false), STREAM));
        assertEquals(15, e.result(), "epilogues: NOT_SUPPORTED");
    }

    @Test
    void rocblasFailuresComeBackAsCublasStatuses() throws Exception {
        RocblasAdapter b = open();
        rocblas.status = 4;  // invalid_size
        Gemm g = new Gemm(0, 0, 4, 4, 4, ONE_F32, 0x1000, Blas.R_32F, 4, 0, 0x2000, Blas.R_32F, 4, 0, ZERO_F32, 0x3000, Blas.R_32F, 4, 0, 1,
                false, Blas.R_32F, false);
        CudaException e = assertThrows(CudaException.class, () -> b.gemm(g, STREAM));
        assertEquals(7, e.result(), e.getMessage());
        rocblas.status = 7;  // perf_degraded: done
        assertDoesNotThrow(() -> b.gemm(g, STREAM));
        rocblas.status = 2;  // not implemented (or absent from this rocBLAS)
        assertEquals(15, assertThrows(CudaException.class, () -> b.gemm(g, STREAM)).result());
    }

    @Test
    void withoutRocblasTheBackendHasNoBlas() {
        rocblas.openFailure = "librocblas.so.5: cannot open shared object file";
        CudaException e = assertThrows(CudaException.class, () -> RocblasAdapter.open(rocblas, hip));
        assertEquals(15, e.result());
        assertTrue(e.getMessage().contains("librocblas.so.5"), e.getMessage());
        assertEquals(List.of("open"), rocblas.calls, "nothing called after a failed open");
    }

    /**
     * AMD's rocBLAS where it is installed (ZLUDA_ROCBLAS_LIB, librocblas.so.5/.4 of ROCm, Debian's librocblas.so.0):
     * it loads, and has every function the adapter may call. No GPU is needed for this.
     */
    @Test
    void amdsRocblasHasEveryFunctionTheAdapterCalls() throws Exception {
        NativeRocblas real = new NativeRocblas();
        String why;
        try {
            why = real.open();
        } catch (UnsatisfiedLinkError e) {
            why = "libzluda_rt.so is not loaded here: " + e.getMessage();
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(why == null, "skipped: no rocBLAS on this machine (" + why + ")");
        List<String> missing = new ArrayList<>();
        for (String f : RocblasAdapter.functions()) if (org.zludaj.nativ.HipRuntime.rocblasSymbol(f) == 0) missing.add(f);
        assertEquals(List.of(), missing);
    }

    @Test
    void theAdapterNamesEachFunctionOnce() throws Exception {
        List<String> names = RocblasAdapter.functions();
        assertEquals(names.size(), new java.util.HashSet<>(names).size(), names.toString());
        assertTrue(names.containsAll(List.of("rocblas_csscal", "rocblas_zdscal", "rocblas_cdotc", "rocblas_izamin", "rocblas_ztrsm",
                "rocblas_ctrsm_batched", "rocblas_dznrm2", "rocblas_scasum")), names.toString());
    }
}
