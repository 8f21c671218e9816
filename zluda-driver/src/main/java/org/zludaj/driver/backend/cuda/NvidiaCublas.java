package org.zludaj.driver.backend.cuda;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.zludaj.driver.CudaException;
import org.zludaj.driver.backend.RuntimeBlas;
import org.zludaj.nativ.NvidiaDriver;

/**
 * The cuda backend's BLAS: NVIDIA's own cuBLAS and cuBLASLt, opened in a link-map namespace of their own whose
 * libcuda.so.1 forwards to the backend's NVIDIA driver (rt/nvidia.c, libzluda_nvfwd.so), so that they share the
 * backend's context, memory and streams. Each operation is the cuBLAS call of the same meaning, in the stream's queue
 * (an NVIDIA stream), through the generic call of {@link RuntimeBlas}; cuBLAS's enums are passed as they are. This
 * proves ZLUDA-J's cuBLAS layer (handles, checks, streams, pointer modes) against NVIDIA's library on an NVIDIA GPU.
 * Found under ZLUDA_NVIDIA_CUBLAS (a folder) or the CUDA toolkit; never ZLUDA-J's own libcublas.
 */
final class NvidiaCublas extends RuntimeBlas {
    private static final int SUCCESS = 0, NOT_SUPPORTED = 15;
    private final CudaBackend backend;
    private final Map<String, Long> functions = new HashMap<>();
    private final long handle;
    private long scratch;

    private NvidiaCublas(CudaBackend backend) throws CudaException {
        this.backend = backend;
        this.handle = createHandle("cublasCreate_v2");
    }

    /** Opens NVIDIA's libraries (once per process) and creates the backend's cuBLAS handle. */
    static NvidiaCublas open(CudaBackend backend) throws CudaException {
        Path[] libs = find();
        if (libs == null)
            throw new CudaException(NOT_SUPPORTED, "NVIDIA's libcublas.so.13 and libcublasLt.so.13 not found (set ZLUDA_NVIDIA_CUBLAS to their folder)");
        String nativeDir = System.getProperty("zluda.native.dir");
        Path fwd = Path.of(nativeDir == null ? "." : nativeDir, "libzluda_nvfwd.so").toAbsolutePath();
        byte[] msg = new byte[512];
        if (NvidiaDriver.openBlas(fwd.toString(), libs[0].toString(), libs[1].toString(), msg) != 0)
            throw new CudaException(NOT_SUPPORTED, "cannot open NVIDIA's cuBLAS: " + new String(msg, StandardCharsets.UTF_8).trim());
        return new NvidiaCublas(backend);
    }

    /** libcublas.so.13 and libcublasLt.so.13 of one NVIDIA folder, or null. */
    static Path[] find() {
        List<Path> dirs = new ArrayList<>();
        String env = System.getenv("ZLUDA_NVIDIA_CUBLAS");
        if (env != null && !env.isEmpty()) dirs.add(Path.of(env));
        for (String d : List.of("/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib", "/usr/lib/x86_64-linux-gnu"))
            dirs.add(Path.of(d));
        try (var s = Files.list(Path.of("/usr/local"))) {
            s.filter(p -> p.getFileName().toString().startsWith("cuda-")).sorted().forEach(p -> dirs.add(p.resolve("targets/x86_64-linux/lib")));
        } catch (Exception ignored) {
            // no /usr/local
        }
        for (Path d : dirs) {
            Path b = d.resolve("libcublas.so.13"), l = d.resolve("libcublasLt.so.13");
            if (Files.isRegularFile(b) && Files.isRegularFile(l) && !ours(b)) return new Path[] {b.toAbsolutePath(), l.toAbsolutePath()};
        }
        return null;
    }

    /** Whether a libcublas is ZLUDA-J's (ours is small and calls libcuda.so.1; NVIDIA's is tens of megabytes). */
    private static boolean ours(Path p) {
        try {
            return Files.size(p.toRealPath()) < (4 << 20);
        } catch (Exception e) {
            return true;
        }
    }

    private synchronized long function(String name) throws CudaException {
        Long f = functions.get(name);
        if (f == null) {
            f = NvidiaDriver.blasSymbol(name);
            functions.put(name, f);
        }
        if (f == 0) throw new CudaException(NOT_SUPPORTED, "NVIDIA's cuBLAS has no " + name);
        return f;
    }

    @Override
    protected int invoke(String function, long[] args, long[] slots) throws CudaException {
        return NvidiaDriver.blasCall(function(function), args, slots);
    }

    @Override
    protected void check(int status, String what) throws CudaException {
        if (status != SUCCESS) throw new CudaException(status, what + " failed in NVIDIA's cuBLAS (status " + status + ")");
    }

    @Override
    protected String setStreamFunction() {
        return "cublasSetStream_v2";
    }

    @Override
    protected String setPointerModeFunction() {
        return "cublasSetPointerMode_v2";
    }

    @Override
    protected long handle() {
        return handle;
    }

    @Override
    public String name() {
        return "NVIDIA cuBLAS";
    }

    @Override
    protected String typed(String kind, int type) throws CudaException {
        String t = letter(type);
        return switch (kind) {
            case "gemv", "syrk", "symm", "trsm" -> "cublas" + t + kind + "_v2";
            default -> "cublas" + t + kind;  // geam, trsmBatched
        };
    }

    @Override
    protected String level1Name(int op, int type, int alphaType) throws CudaException {
        String t = letter(type);
        boolean complex = type == C_32F || type == C_64F;
        String real = complex ? (type == C_32F ? "Sc" : "Dz") : t;
        return switch (op) {
            case AXPY -> "cublas" + t + "axpy_v2";
            case SCAL -> "cublas" + (complex && alphaType != type ? t + (type == C_32F ? "s" : "d") : t) + "scal_v2";
            case COPY -> "cublas" + t + "copy_v2";
            case SWAP -> "cublas" + t + "swap_v2";
            case DOT -> "cublas" + t + (complex ? "dotu_v2" : "dot_v2");
            case DOTC -> "cublas" + t + "dotc_v2";
            case NRM2 -> "cublas" + real + "nrm2_v2";
            case ASUM -> "cublas" + real + "asum_v2";
            case IAMAX -> "cublasI" + t.toLowerCase() + "amax_v2";
            case IAMIN -> "cublasI" + t.toLowerCase() + "amin_v2";
            default -> throw new CudaException(NOT_SUPPORTED, "level-1 operation " + op);
        };
    }

    @Override
    protected synchronized long scratch() throws CudaException {
        if (scratch == 0) scratch = backend.allocate(0, 16);
        return scratch;
    }

    @Override
    protected void copy(long dst, long src, long bytes) throws CudaException {
        backend.copy(dst, src, bytes);
    }

    /**
     * The cublasComputeType_t of a checked GEMM: the application's own (its pedantic and fast forms too: {@link
     * Gemm#compute}); for typed calls and CUDA 10's cudaDataType_t compute types, the one they mean.
     */
    static int computeType(Gemm g) {
        if (g.compute() >= 64 && g.compute() <= 79) return g.compute();
        if (g.wide()) return g.atype() == R_8I ? 72 : 70;  // 32I, 64F
        return g.scalarType() == R_16F ? 64 : 68;          // 16F, 32F
    }

    /** NVIDIA's handle's math mode as last set here (NVIDIA's default, CUBLAS_DEFAULT_MATH, at its creation). */
    private int mathMode;

    @Override
    protected synchronized void mathMode(int mode) throws CudaException {
        if (mode == mathMode) return;
        stateChanging();
        mathMode = -1;  // unknown until set
        check(invoke("cublasSetMathMode", new long[] {handle, mode}, new long[4]), "cublasSetMathMode");
        mathMode = mode;
    }

    /** Whether a GEMM's sizes fit cuBLAS's 32-bit entry points (those applications call: the _64 ones cost more a call). */
    static boolean fits32(Gemm g) {
        long max = Math.max(Math.max(Math.max(g.m(), g.n()), Math.max(g.k(), g.batch())), Math.max(g.lda(), Math.max(g.ldb(), g.ldc())));
        return max <= Integer.MAX_VALUE;
    }

    /**
     * A GEMM under the application's math mode, set on NVIDIA's handle when it differs from the last (llama.cpp's
     * CUBLAS_TF32_TENSOR_OP_MATH lets NVIDIA's cuBLAS compute its f32 products on TF32 tensor cores).
     */
    @Override
    public synchronized void gemm(Gemm g, long queue) throws CudaException {
        mathMode(g.mathMode());
        String w = fits32(g) ? "" : "_64";  // the arguments are passed as 64-bit values either way (ints in registers)
        String typed = typed(g);
        if (typed != null) {  // a typed call (cublasSgemm...): NVIDIA's function of that name, which may choose otherwise than GemmEx
            if (typed.endsWith("StridedBatched"))
                call(typed + w, queue, g, handle, g.transa(), g.transb(), M, N, K, ALPHA, A, LDA, STRIDE_A, B, LDB, STRIDE_B, BETA, C, LDC,
                        STRIDE_C, BATCH);
            else if (typed.endsWith("Batched"))
                call(typed + w, queue, g, handle, g.transa(), g.transb(), M, N, K, ALPHA, A, LDA, B, LDB, BETA, C, LDC, BATCH);
            else
                call(typed + w, queue, g, handle, g.transa(), g.transb(), M, N, K, ALPHA, A, LDA, B, LDB, BETA, C, LDC);
        } else if (!g.pointerArrays() && g.batch() == 1)  // one GEMM: the entry point applications use (NVIDIA's choice of kernel differs)
            call("cublasGemmEx" + w, queue, g, handle, g.transa(), g.transb(), M, N, K, ALPHA, A, g.atype(), LDA, B, g.btype(), LDB, BETA, C,
                    g.ctype(), LDC, computeType(g), -1);
        else if (g.pointerArrays())
            call("cublasGemmBatchedEx" + w, queue, g, handle, g.transa(), g.transb(), M, N, K, ALPHA, A, g.atype(), LDA, B, g.btype(), LDB,
                    BETA, C, g.ctype(), LDC, BATCH, computeType(g), -1);
        else
            call("cublasGemmStridedBatchedEx" + w, queue, g, handle, g.transa(), g.transb(), M, N, K, ALPHA, A, g.atype(), LDA, STRIDE_A, B,
                    g.btype(), LDB, STRIDE_B, BETA, C, g.ctype(), LDC, STRIDE_C, BATCH, computeType(g), -1);
    }

    /**
     * NVIDIA's name of the typed GEMM the application called (cublasSgemm_v2, cublasHgemm, cublasDgemmStridedBatched...),
     * or null (cublasGemmEx and the other Ex forms; cuBLASLt).
     */
    static String typed(Gemm g) {
        String e = g.entry();
        if (e == null || !e.matches("cublas[SDCZH]gemm(Batched|StridedBatched)?")) return null;
        return e.length() == "cublasSgemm".length() && e.charAt(6) != 'H' ? e + "_v2" : e;
    }

    @Override
    protected long address(String function) {
        try {
            return function(function);
        } catch (CudaException e) {
            return 0;
        }
    }

    /** rt/nvidia.c's direct_blas, for the GEMMs the shim repeats without the JVM. */
    @Override
    protected long directCall() {
        return NvidiaDriver.directBlasFunction();
    }

    /** cuBLASLt's matmul with NVIDIA's own descriptors, made for the call and destroyed after it. */
    @Override
    public synchronized void matmul(Matmul mm, long queue) throws CudaException {
        Gemm g = mm.gemm();
        if (mm.biasPerColumn() && (mm.epilogue() & EPILOGUE_BIAS) != 0)
            throw new CudaException(NOT_SUPPORTED, "a bias per column (row-major D)");
        List<long[]> destroy = new ArrayList<>();  // {function index, object}
        String[] destroyers = {"cublasLtDestroy", "cublasLtMatmulDescDestroy", "cublasLtMatrixLayoutDestroy"};
        try {
            long lt = createHandle("cublasLtCreate");
            destroy.add(new long[] {0, lt});
            long[] s = new long[2];
            check(invoke("cublasLtMatmulDescCreate", new long[] {SLOT, computeType(g), g.scalarType()}, s), "cublasLtMatmulDescCreate");
            long desc = s[0];
            destroy.add(new long[] {1, desc});
            descAttribute(desc, 2, g.alpha().onDevice() ? POINTER_DEVICE : POINTER_HOST, 4);
            descAttribute(desc, 3, g.transa(), 4);
            descAttribute(desc, 4, g.transb(), 4);
            descAttribute(desc, 7, mm.epilogue(), 4);
            if ((mm.epilogue() & EPILOGUE_BIAS) != 0) {
                descAttribute(desc, 8, mm.bias(), 8);
                descAttribute(desc, 10, mm.biasStride(), 8);
                descAttribute(desc, 26, mm.biasType(), 4);
            }
            long ar = g.transa() == 0 ? g.m() : g.k(), ac = g.transa() == 0 ? g.k() : g.m();
            long br = g.transb() == 0 ? g.k() : g.n(), bc = g.transb() == 0 ? g.n() : g.k();
            long la = layout(g.atype(), ar, ac, g.lda(), g.batch(), g.strideA(), destroy);
            long lb = layout(g.btype(), br, bc, g.ldb(), g.batch(), g.strideB(), destroy);
            long lc = layout(g.ctype(), g.m(), g.n(), mm.ldc(), g.batch(), mm.strideC(), destroy);
            long ld = layout(g.ctype(), g.m(), g.n(), g.ldc(), g.batch(), g.strideC(), destroy);
            long[] slots = new long[4];
            slots[0] = g.alpha().bits0();
            slots[1] = g.alpha().bits1();
            slots[2] = g.beta().bits0();
            slots[3] = g.beta().bits1();
            long alpha = g.alpha().onDevice() ? g.alpha().device() : SLOT, beta = g.beta().onDevice() ? g.beta().device() : SLOT | 1;
            check(invoke("cublasLtMatmul", new long[] {lt, desc, alpha, g.a(), la, g.b(), lb, beta, mm.c(), lc, g.c(), ld, 0, 0, 0, queue},
                    slots), "cublasLtMatmul");
        } finally {
            for (int i = destroy.size() - 1; i >= 0; i--) {
                try {
                    invoke(destroyers[(int) destroy.get(i)[0]], new long[] {destroy.get(i)[1]}, new long[2]);
                } catch (CudaException ignored) {
                    // the first failure is what the caller hears of
                }
            }
        }
    }

    private void descAttribute(long desc, int attr, long value, int size) throws CudaException {
        long[] s = {value, 0};
        check(invoke("cublasLtMatmulDescSetAttribute", new long[] {desc, attr, SLOT, size}, s), "cublasLtMatmulDescSetAttribute " + attr);
    }

    private long layout(int type, long rows, long cols, long ld, long batch, long stride, List<long[]> destroy) throws CudaException {
        long[] s = new long[2];
        check(invoke("cublasLtMatrixLayoutCreate", new long[] {SLOT, type, rows, cols, ld}, s), "cublasLtMatrixLayoutCreate");
        long l = s[0];
        destroy.add(new long[] {2, l});
        long[] v = {batch, 0};
        check(invoke("cublasLtMatrixLayoutSetAttribute", new long[] {l, 5, SLOT, 4}, v), "batch count");
        v = new long[] {stride, 0};
        check(invoke("cublasLtMatrixLayoutSetAttribute", new long[] {l, 6, SLOT, 8}, v), "batch stride");
        return l;
    }
}
