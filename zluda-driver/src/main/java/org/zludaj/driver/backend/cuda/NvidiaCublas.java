package org.zludaj.driver.backend.cuda;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.zludaj.api.CuResult;
import org.zludaj.driver.CudaException;
import org.zludaj.driver.backend.Blas;
import org.zludaj.nativ.NvidiaDriver;

/**
 * The cuda backend's BLAS: NVIDIA's own cuBLAS and cuBLASLt, opened in a link-map namespace of their own whose
 * libcuda.so.1 forwards to the backend's NVIDIA driver (rt/nvidia.c, libzluda_nvfwd.so), so that they share the
 * backend's context, memory and streams. Each operation is the
 * cuBLAS call of the same meaning, in the stream's queue (an NVIDIA stream), through one generic call: every cuBLAS
 * parameter is an integer or a pointer. This proves ZLUDA-J's cuBLAS layer (handles, checks, streams, pointer modes)
 * against NVIDIA's library on an NVIDIA GPU. Found under ZLUDA_NVIDIA_CUBLAS (a folder), the CUDA toolkit or NVIDIA's
 * Python wheel; never ZLUDA-J's own libcublas.
 */
final class NvidiaCublas implements Blas {
    private static final int SUCCESS = 0, NOT_SUPPORTED = 15, POINTER_HOST = 0, POINTER_DEVICE = 1;
    private final CudaBackend backend;
    private final Map<String, Long> functions = new HashMap<>();
    private final long handle;
    private long scratch;  // 16 device bytes: level-1 results, copied to wherever the caller wants them
    private long stream;   // the handle's stream and pointer mode as last set
    private int pointerMode;

    private NvidiaCublas(CudaBackend backend) throws CudaException {
        this.backend = backend;
        long[] slots = new long[2];
        check(NvidiaDriver.blasCall(function("cublasCreate_v2"), new long[] {NvidiaDriver.SLOT}, slots), "cublasCreate");
        this.handle = slots[0];
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

    /** Whether a libcublas is ZLUDA-J's (ours needs libcuda.so.1 and is small; NVIDIA's is tens of megabytes). */
    private static boolean ours(Path p) {
        try {
            return Files.size(p.toRealPath()) < (4 << 20);
        } catch (Exception e) {
            return true;
        }
    }

    private long function(String name) throws CudaException {
        Long f = functions.get(name);
        if (f == null) {
            f = NvidiaDriver.blasSymbol(name);
            functions.put(name, f);
        }
        if (f == 0) throw new CudaException(NOT_SUPPORTED, "NVIDIA's cuBLAS has no " + name);
        return f;
    }

    private static void check(int status, String what) throws CudaException {
        if (status != SUCCESS) throw new CudaException(CuResult.CUDA_ERROR_LAUNCH_FAILED, what + " failed in NVIDIA's cuBLAS (status " + status + ")");
    }

    /** One cuBLAS call in {@code queue}; alpha and beta (when given) as host slots 0 and 1 or device addresses. */
    private synchronized void call(String name, long queue, Scalar alpha, Scalar beta, long... args) throws CudaException {
        long[] slots = new long[4];
        int mode = alpha != null && alpha.onDevice() || beta != null && beta.onDevice() ? POINTER_DEVICE : POINTER_HOST;
        if (queue != stream) {  // the handle's state changes only when the operation asks for another
            check(NvidiaDriver.blasCall(function("cublasSetStream_v2"), new long[] {handle, queue}, slots), "cublasSetStream");
            stream = queue;
        }
        if (mode != pointerMode) {
            check(NvidiaDriver.blasCall(function("cublasSetPointerMode_v2"), new long[] {handle, mode}, slots), "cublasSetPointerMode");
            pointerMode = mode;
        }
        long[] a = args.clone();
        for (int i = 0; i < a.length; i++) {
            if (a[i] == ALPHA) a[i] = scalar(alpha, 0, slots);
            else if (a[i] == BETA) a[i] = scalar(beta, 1, slots);
        }
        check(NvidiaDriver.blasCall(function(name), a, slots), name);
    }

    /** Markers for where alpha and beta go in an argument list. */
    private static final long ALPHA = NvidiaDriver.SLOT | 0x80, BETA = NvidiaDriver.SLOT | 0x81;

    private static long scalar(Scalar s, int slot, long[] slots) {
        if (s.onDevice()) return s.device();
        slots[2 * slot] = s.bits0();
        slots[2 * slot + 1] = s.bits1();
        return NvidiaDriver.SLOT | slot;
    }

    private static String letter(int type) throws CudaException {
        return switch (type) {
            case R_32F -> "S";
            case R_64F -> "D";
            case C_32F -> "C";
            case C_64F -> "Z";
            default -> throw new CudaException(NOT_SUPPORTED, "type " + type);
        };
    }

    @Override
    public String name() {
        return "NVIDIA cuBLAS";
    }

    /** The cublasComputeType_t of a checked GEMM. */
    static int computeType(Gemm g) {
        if (g.wide()) return g.atype() == R_8I ? 72 : 70;  // 32I, 64F
        return g.scalarType() == R_16F ? 64 : 68;         // 16F, 32F
    }

    @Override
    public void gemm(Gemm g, long queue) throws CudaException {
        if (g.pointerArrays())
            call("cublasGemmBatchedEx_64", queue, g.alpha(), g.beta(), handle, g.transa(), g.transb(), g.m(), g.n(), g.k(), ALPHA, g.a(),
                    g.atype(), g.lda(), g.b(), g.btype(), g.ldb(), BETA, g.c(), g.ctype(), g.ldc(), g.batch(), computeType(g), -1);
        else
            call("cublasGemmStridedBatchedEx_64", queue, g.alpha(), g.beta(), handle, g.transa(), g.transb(), g.m(), g.n(), g.k(), ALPHA,
                    g.a(), g.atype(), g.lda(), g.strideA(), g.b(), g.btype(), g.ldb(), g.strideB(), BETA, g.c(), g.ctype(), g.ldc(),
                    g.strideC(), g.batch(), computeType(g), -1);
    }

    @Override
    public synchronized void matmul(Matmul mm, long queue) throws CudaException {
        Gemm g = mm.gemm();
        if (mm.biasPerColumn() && (mm.epilogue() & EPILOGUE_BIAS) != 0)
            throw new CudaException(NOT_SUPPORTED, "a bias per column (row-major D)");
        long[] s = new long[16];
        List<Runnable> destroy = new ArrayList<>();
        try {
            check(NvidiaDriver.blasCall(function("cublasLtCreate"), new long[] {NvidiaDriver.SLOT}, s), "cublasLtCreate");
            long lt = s[0];
            destroy.add(() -> NvidiaDriver.blasCall(fn("cublasLtDestroy"), new long[] {lt}, new long[2]));
            check(NvidiaDriver.blasCall(function("cublasLtMatmulDescCreate"), new long[] {NvidiaDriver.SLOT, computeType(g), g.scalarType()}, s),
                    "cublasLtMatmulDescCreate");
            long desc = s[0];
            destroy.add(() -> NvidiaDriver.blasCall(fn("cublasLtMatmulDescDestroy"), new long[] {desc}, new long[2]));
            boolean device = g.alpha().onDevice();
            descAttribute(desc, 2, device ? POINTER_DEVICE : POINTER_HOST, 4);
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
            long[] args = {lt, desc, scalar(g.alpha(), 0, slots), g.a(), la, g.b(), lb, scalar(g.beta(), 1, slots), mm.c(), lc, g.c(), ld, 0, 0, 0, queue};
            check(NvidiaDriver.blasCall(function("cublasLtMatmul"), args, slots), "cublasLtMatmul");
        } finally {
            for (int i = destroy.size() - 1; i >= 0; i--) destroy.get(i).run();
        }
    }

    private long fn(String name) {
        return functions.getOrDefault(name, 0L) != 0 ? functions.get(name) : NvidiaDriver.blasSymbol(name);
    }

    private void descAttribute(long desc, int attr, long value, int size) throws CudaException {
        long[] s = {value, 0};
        check(NvidiaDriver.blasCall(function("cublasLtMatmulDescSetAttribute"), new long[] {desc, attr, NvidiaDriver.SLOT, size}, s),
                "cublasLtMatmulDescSetAttribute " + attr);
    }

    private long layout(int type, long rows, long cols, long ld, long batch, long stride, List<Runnable> destroy) throws CudaException {
        long[] s = new long[2];
        check(NvidiaDriver.blasCall(function("cublasLtMatrixLayoutCreate"), new long[] {NvidiaDriver.SLOT, type, rows, cols, ld}, s),
                "cublasLtMatrixLayoutCreate");
        long l = s[0];
        destroy.add(() -> NvidiaDriver.blasCall(fn("cublasLtMatrixLayoutDestroy"), new long[] {l}, new long[2]));
        long[] v = {batch, 0};
        check(NvidiaDriver.blasCall(function("cublasLtMatrixLayoutSetAttribute"), new long[] {l, 5, NvidiaDriver.SLOT, 4}, v), "batch count");
        v = new long[] {stride, 0};
        check(NvidiaDriver.blasCall(function("cublasLtMatrixLayoutSetAttribute"), new long[] {l, 6, NvidiaDriver.SLOT, 8}, v), "batch stride");
        return l;
    }

    @Override
    public void trsm(int type, int side, int uplo, int trans, int diag, int m, int n, Scalar alpha, long a, int lda, long b, int ldb,
                     int batch, boolean pointerArrays, long queue) throws CudaException {
        String t = letter(type);
        if (pointerArrays) call("cublas" + t + "trsmBatched", queue, alpha, null, handle, side, uplo, trans, diag, m, n, ALPHA, a, lda, b, ldb, batch);
        else call("cublas" + t + "trsm_v2", queue, alpha, null, handle, side, uplo, trans, diag, m, n, ALPHA, a, lda, b, ldb);
    }

    @Override
    public void gemv(int type, int trans, int m, int n, Scalar alpha, long a, int lda, long x, int incx, Scalar beta, long y, int incy,
                     long queue) throws CudaException {
        call("cublas" + letter(type) + "gemv_v2", queue, alpha, beta, handle, trans, m, n, ALPHA, a, lda, x, incx, BETA, y, incy);
    }

    @Override
    public void syrk(int type, int uplo, int trans, int n, int k, Scalar alpha, long a, int lda, Scalar beta, long c, int ldc, long queue)
            throws CudaException {
        call("cublas" + letter(type) + "syrk_v2", queue, alpha, beta, handle, uplo, trans, n, k, ALPHA, a, lda, BETA, c, ldc);
    }

    @Override
    public void symm(int type, int side, int uplo, int m, int n, Scalar alpha, long a, int lda, long b, int ldb, Scalar beta, long c,
                     int ldc, long queue) throws CudaException {
        call("cublas" + letter(type) + "symm_v2", queue, alpha, beta, handle, side, uplo, m, n, ALPHA, a, lda, b, ldb, BETA, c, ldc);
    }

    @Override
    public void geam(int type, int transa, int transb, int m, int n, Scalar alpha, long a, int lda, Scalar beta, long b, int ldb, long c,
                     int ldc, long queue) throws CudaException {
        call("cublas" + letter(type) + "geam", queue, alpha, beta, handle, transa, transb, m, n, ALPHA, a, lda, BETA, b, ldb, c, ldc);
    }

    @Override
    public void level1(int op, int type, int n, Scalar alpha, int alphaType, long x, int incx, long y, int incy, long result, long queue)
            throws CudaException {
        String t = letter(type);
        boolean complex = type == C_32F || type == C_64F;
        int realBytes = type == R_32F || type == C_32F ? 4 : 8;
        switch (op) {
            case AXPY -> call("cublas" + t + "axpy_v2", queue, alpha, null, handle, n, ALPHA, x, incx, y, incy);
            case SCAL -> call("cublas" + (complex && alphaType != type ? t + (type == C_32F ? "s" : "d") : t) + "scal_v2", queue, alpha, null,
                    handle, n, ALPHA, x, incx);
            case COPY -> call("cublas" + t + "copy_v2", queue, null, null, handle, n, x, incx, y, incy);
            case SWAP -> call("cublas" + t + "swap_v2", queue, null, null, handle, n, x, incx, y, incy);
            default -> {  // a scalar result: computed into device scratch, then copied where the caller wants it
                String name = switch (op) {
                    case DOT -> "cublas" + t + (complex ? "dotu_v2" : "dot_v2");
                    case DOTC -> "cublas" + t + "dotc_v2";
                    case NRM2 -> "cublas" + (complex ? (type == C_32F ? "Sc" : "Dz") : t) + "nrm2_v2";
                    case ASUM -> "cublas" + (complex ? (type == C_32F ? "Sc" : "Dz") : t) + "asum_v2";
                    case IAMAX -> "cublasI" + t.toLowerCase() + "amax_v2";
                    case IAMIN -> "cublasI" + t.toLowerCase() + "amin_v2";
                    default -> throw new CudaException(NOT_SUPPORTED, "level-1 operation " + op);
                };
                int bytes = op == IAMAX || op == IAMIN ? 4 : op == DOT || op == DOTC ? Blas.size(type) : realBytes;
                long out = scratch();
                // the result pointer in device memory: pointer mode device (a device "alpha" sets it; no argument uses it)
                call(name, queue, Scalar.device(out), null, op == DOT || op == DOTC ? new long[] {handle, n, x, incx, y, incy, out}
                        : new long[] {handle, n, x, incx, out});
                backend.copy(result, out, bytes);  // unified addresses: host or device result alike, after the call
            }
        }
    }

    private synchronized long scratch() throws CudaException {
        if (scratch == 0) scratch = backend.allocate(0, 16);
        return scratch;
    }
}
