package org.zludaj.driver.cublas;

import java.util.HashMap;
import java.util.Map;
import org.zludaj.driver.CudaException;
import org.zludaj.driver.backend.Blas;
import org.zludaj.driver.backend.Blas.Scalar;
import org.zludaj.nativ.HostRuntime;

/**
 * cuBLASLt's matmul: the matmul, matrix-layout and preference descriptors with their attributes (sizes and defaults
 * as cublasLt.h gives them), the heuristic (one algorithm, no workspace) and {@code cublasLtMatmul}, which runs as
 * the backend's {@link Blas#matmul}: column- and row-major layouts (a row-major operand is the transpose of a
 * column-major one; a row-major D is computed as its transpose), strided batches, C apart from D, host and device
 * scalars, and the epilogues DEFAULT, RELU, BIAS, RELU_BIAS, GELU, GELU_BIAS. Other orders, AUX and gradient
 * epilogues and FP8 scaling answer CUBLAS_STATUS_NOT_SUPPORTED.
 */
final class CublasLtMatmul {
    /** Descriptor attributes: id -> size in bytes (cublasLt.h). */
    static final Map<Integer, Integer> DESC_SIZES = sizes(0, 4, 1, 4, 2, 4, 3, 4, 4, 4, 5, 4, 6, 4, 7, 4, 8, 8, 10, 8, 11, 8, 12, 8, 13, 8,
            14, 8, 15, 4, 17, 8, 18, 8, 19, 8, 20, 8, 21, 8, 22, 4, 23, 8, 24, 8, 25, 1, 26, 4, 31, 4, 32, 4, 33, 4, 34, 4, 35, 4, 36, 8,
            37, 4, 38, 8);
    static final Map<Integer, Integer> LAYOUT_SIZES = sizes(0, 4, 1, 4, 2, 8, 3, 8, 4, 8, 5, 4, 6, 8, 7, 8, 8, 4);
    static final Map<Integer, Integer> PREF_SIZES = sizes(0, 4, 1, 8, 3, 4, 5, 4, 6, 4, 7, 4, 8, 4, 9, 4, 12, 8);
    static final int D_COMPUTE = 0, D_SCALE = 1, D_POINTER_MODE = 2, D_TRANSA = 3, D_TRANSB = 4, D_TRANSC = 5, D_FILL = 6,
            D_EPILOGUE = 7, D_BIAS = 8, D_BIAS_STRIDE = 10, D_AUX = 11, D_A_SCALE = 17, D_D_SCALE = 20, D_AMAX_D = 21,
            D_BIAS_TYPE = 26;
    static final int L_TYPE = 0, L_ORDER = 1, L_ROWS = 2, L_COLS = 3, L_LD = 4, L_BATCH = 5, L_STRIDE = 6, L_PLANE = 7;
    static final int ORDER_COL = 0, ORDER_ROW = 1;
    /** sizeof(cublasLtMatmulHeuristicResult_t): algo (64), workspaceSize, state, wavesCount, reserved[4]. */
    static final int HEURISTIC_RESULT_BYTES = 96;
    /** What our one algorithm's data starts with ("ZLUDA-J"), so that a foreign one is recognizable in a trace. */
    static final long ALGO_ID = 0x4a2d4144554c5aL;

    private static Map<Integer, Integer> sizes(int... pairs) {
        Map<Integer, Integer> m = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) m.put(pairs[i], pairs[i + 1]);
        return Map.copyOf(m);
    }

    /** A descriptor's attribute values (each at most 8 bytes, kept as a long). */
    static class Attributes {
        final String kind;
        final Map<Integer, Integer> sizes;
        final Map<Integer, Long> values = new HashMap<>();

        Attributes(String kind, Map<Integer, Integer> sizes) {
            this.kind = kind;
            this.sizes = sizes;
        }

        long get(int attr) {
            return values.getOrDefault(attr, 0L);
        }

        synchronized void set(int attr, long buf, long size) throws CudaException {
            Integer want = sizes.get(attr);
            if (want == null) throw Cublas.invalid(kind + " attribute " + attr + " is not one cuBLASLt has");
            Cublas.nonNull(buf, "buf");
            if (size != want) throw Cublas.invalid(kind + " attribute " + attr + " takes " + want + " bytes, not " + size);
            byte[] b = new byte[want];
            HostRuntime.read(buf, b, 0, want);
            long v = 0;
            for (int i = want - 1; i >= 0; i--) v = v << 8 | (b[i] & 0xff);
            values.put(attr, v);
        }

        synchronized void read(int attr, long buf, long size, long sizeWritten) throws CudaException {
            Integer want = sizes.get(attr);
            if (want == null) throw Cublas.invalid(kind + " attribute " + attr + " is not one cuBLASLt has");
            if (size == 0 && sizeWritten != 0) {  // the size query
                HostRuntime.putLong(sizeWritten, want);
                return;
            }
            Cublas.nonNull(buf, "buf");
            if (size < want) throw Cublas.invalid(kind + " attribute " + attr + " needs " + want + " bytes, " + size + " given");
            long v = get(attr);
            byte[] b = new byte[want];
            for (int i = 0; i < want; i++) b[i] = (byte) (v >>> (8 * i));
            HostRuntime.write(buf, b, 0, want);
            if (sizeWritten != 0) HostRuntime.putLong(sizeWritten, want);
        }
    }

    static final class Desc extends Attributes {
        Desc(int compute, int scale) {
            super("matmul descriptor", DESC_SIZES);
            values.put(D_COMPUTE, (long) compute);
            values.put(D_SCALE, (long) scale);
            values.put(D_FILL, 2L);  // CUBLAS_FILL_MODE_FULL
            values.put(D_EPILOGUE, (long) Blas.EPILOGUE_DEFAULT);
            values.put(D_BIAS_TYPE, -1L);
            values.put(22, -1L);  // EPILOGUE_AUX_DATA_TYPE
        }
    }

    static final class Layout extends Attributes {
        Layout(int type, long rows, long cols, long ld) {
            super("matrix layout", LAYOUT_SIZES);
            values.put(L_TYPE, (long) type);
            values.put(L_ROWS, rows);
            values.put(L_COLS, cols);
            values.put(L_LD, ld);
            values.put(L_BATCH, 1L);
        }

        int type() {
            return (int) get(L_TYPE);
        }

        int order() {
            return (int) get(L_ORDER);
        }

        long rows() {
            return get(L_ROWS);
        }

        long cols() {
            return get(L_COLS);
        }

        long ld() {
            return get(L_LD);
        }

        int batch() {
            return (int) get(L_BATCH);
        }

        long stride() {
            return get(L_STRIDE);
        }
    }

    static final class Preference extends Attributes {
        Preference() {
            super("matmul preference", PREF_SIZES);
            values.put(12, -1L);  // IMPL_MASK: every implementation
        }
    }

    private final Cublas c;

    CublasLtMatmul(Cublas c) {
        this.c = c;
    }

    <T> T get(long h, Class<T> type, String what) throws CudaException {
        if (h != 0 && type.isInstance(c.handles.peek(h))) return type.cast(c.handles.peek(h));
        throw Cublas.invalid(h == 0 ? what + " is NULL" : what + " 0x" + Long.toHexString(h) + " is not a live one");
    }

    long add(Object descriptor, long out) throws CudaException {
        Cublas.nonNull(out, "the descriptor's address");
        long h = c.handles.add(descriptor);
        HostRuntime.putLong(out, h);
        return h;
    }

    void destroy(long h, Class<?> type, String what) throws CudaException {
        if (h == 0) return;  // as NVIDIA's: destroying NULL succeeds
        get(h, type, what);
        c.handles.remove(h);
    }

    /** A checked matmul, in column-major terms, without its pointers (the heuristic checks the same). */
    record Plan(int transa, int transb, long m, long n, long k, boolean swap, int atype, int ctype, int scaleType, boolean wide,
                int batch, int epilogue, int biasType) {}

    Plan plan(Desc desc, Layout a, Layout b, Layout cl, Layout d) throws CudaException {
        int compute = (int) desc.get(D_COMPUTE), scale = (int) desc.get(D_SCALE);
        int f = CublasLevel3.family(compute);
        if (cl.type() != d.type()) throw Cublas.invalid("C of type " + cl.type() + ", D of type " + d.type());  // as NVIDIA's
        if (a.type() != b.type() || !CublasLevel3.supported(f, a.type(), d.type()))
            throw Cublas.unsupported("types A " + a.type() + ", B " + b.type() + ", C " + cl.type() + ", D " + d.type() + " with compute type " + compute);
        for (Layout l : new Layout[] {a, b, cl, d})
            if (l.order() != ORDER_COL && l.order() != ORDER_ROW || l.get(L_PLANE) != 0)
                throw Cublas.unsupported("matrix order " + l.order() + " (only CUBLASLT_ORDER_COL and ROW)");
        if (cl.order() != d.order()) throw Cublas.unsupported("C and D in different orders");
        int pm = (int) desc.get(D_POINTER_MODE);
        if (pm != 0 && pm != 1) throw Cublas.unsupported("pointer mode " + pm + " (vector scaling)");
        int ep = (int) desc.get(D_EPILOGUE);
        // NVIDIA's cuBLASLt 13.1 has no bias epilogue for a row-major D (NOT_SUPPORTED, recorded on an H100)
        if ((ep & Blas.EPILOGUE_BIAS) != 0 && d.order() == ORDER_ROW) throw Cublas.unsupported("a bias epilogue with a row-major D");
        if (ep != Blas.EPILOGUE_DEFAULT && ep != Blas.EPILOGUE_RELU && ep != Blas.EPILOGUE_BIAS && ep != Blas.EPILOGUE_RELU_BIAS
                && ep != Blas.EPILOGUE_GELU && ep != Blas.EPILOGUE_GELU_BIAS)
            throw Cublas.unsupported("epilogue " + ep + " (AUX and gradient epilogues)");
        for (int p = D_A_SCALE; p <= D_AMAX_D; p++)
            if (desc.get(p) != 0) throw Cublas.unsupported("FP8 scaling pointers");
        if (desc.get(D_TRANSC) != 0) throw Cublas.unsupported("transc");
        int ta = (int) desc.get(D_TRANSA), tb = (int) desc.get(D_TRANSB);
        if (ta < 0 || ta > 2 || tb < 0 || tb > 2) throw Cublas.invalid("transa " + ta + ", transb " + tb);
        long m = d.rows(), n = d.cols();
        long am = ta == 0 ? a.rows() : a.cols(), ak = ta == 0 ? a.cols() : a.rows();
        long bk = tb == 0 ? b.rows() : b.cols(), bn = tb == 0 ? b.cols() : b.rows();
        if (am != m || bn != n || ak != bk || cl.rows() != m || cl.cols() != n)
            throw Cublas.invalid("shapes: op(A) " + am + "x" + ak + ", op(B) " + bk + "x" + bn + ", C " + cl.rows() + "x" + cl.cols() + ", D " + m + "x" + n);
        for (Layout l : new Layout[] {a, b, cl, d}) {
            long storedRows = l.order() == ORDER_COL ? l.rows() : l.cols();
            if (l.ld() < Math.max(1, storedRows)) throw Cublas.invalid("leading dimension " + l.ld() + " < " + storedRows);
        }
        int batch = d.batch();
        if (a.batch() != batch || b.batch() != batch || cl.batch() != batch)
            throw Cublas.invalid("batch counts A " + a.batch() + ", B " + b.batch() + ", C " + cl.batch() + ", D " + batch);
        // column-major views: a row-major operand is the transpose of the column-major matrix it is
        int eta = effective(ta, a.order()), etb = effective(tb, b.order());
        boolean swap = d.order() == ORDER_ROW;  // D^T = op(B)^T op(A)^T, computed column-major
        int scaleType = scale;
        if (Blas.size(scaleType) == 0) throw Cublas.unsupported("scale type " + scale);
        int biasType = (int) desc.get(D_BIAS_TYPE);
        if (biasType == -1) biasType = d.type();
        if ((ep & Blas.EPILOGUE_BIAS) != 0 && Blas.size(biasType) == 0) throw Cublas.unsupported("bias type " + biasType);
        Cublas.narrow(m, "m");
        Cublas.narrow(n, "n");
        Cublas.narrow(ak, "k");
        return swap ? new Plan(etb ^ 1, eta ^ 1, n, m, ak, true, a.type(), d.type(), scaleType,
                        f == CublasLevel3.COMPUTE_64F || f == CublasLevel3.COMPUTE_32I, batch, ep, biasType)
                : new Plan(eta, etb, m, n, ak, false, a.type(), d.type(), scaleType,
                        f == CublasLevel3.COMPUTE_64F || f == CublasLevel3.COMPUTE_32I, batch, ep, biasType);
    }

    private static int effective(int trans, int order) throws CudaException {
        if (order == ORDER_COL) return trans;
        if (trans == 2) throw Cublas.unsupported("a conjugate (not transposed) row-major operand");
        return trans ^ 1;
    }

    int matmul(long handle, long descH, long alpha, long A, long aH, long B, long bH, long beta, long C, long cH, long D, long dH,
               long stream) {
        return Cublas.call("cublasLtMatmul", () -> {
            CublasHandle h = c.handle(handle);
            Desc desc = get(descH, Desc.class, "computeDesc");
            Layout a = get(aH, Layout.class, "Adesc"), b = get(bH, Layout.class, "Bdesc"), cl = get(cH, Layout.class, "Cdesc"),
                    d = get(dH, Layout.class, "Ddesc");
            Plan p = plan(desc, a, b, cl, d);
            Cublas.nonNull(D, "D");
            boolean device = desc.get(D_POINTER_MODE) == 1;
            Cublas.nonNull(alpha, "alpha");
            Cublas.nonNull(beta, "beta");
            Scalar al = device ? Scalar.device(alpha) : Scalar.read(alpha, p.scaleType());
            Scalar be = device ? Scalar.device(beta) : Scalar.read(beta, p.scaleType());
            if (p.m() == 0 || p.n() == 0 || p.batch() == 0) return;
            if (p.k() > 0) {
                Cublas.nonNull(A, "A");
                Cublas.nonNull(B, "B");
            }
            if (!be.isZero(p.scaleType())) Cublas.nonNull(C, "C");
            long bias = desc.get(D_BIAS);
            if ((p.epilogue() & Blas.EPILOGUE_BIAS) != 0) Cublas.nonNull(bias, "the bias pointer");
            int compute = (int) desc.get(D_COMPUTE);  // cuBLASLt has no math mode: its compute type says all
            Blas.Gemm g = p.swap()
                    ? new Blas.Gemm(p.transa(), p.transb(), p.m(), p.n(), p.k(), al, B, p.atype(), b.ld(), b.stride(), A, p.atype(), a.ld(),
                            a.stride(), be, D, p.ctype(), d.ld(), d.stride(), p.batch(), false, p.scaleType(), p.wide(), compute, 0)
                    : new Blas.Gemm(p.transa(), p.transb(), p.m(), p.n(), p.k(), al, A, p.atype(), a.ld(), a.stride(), B, p.atype(), b.ld(),
                            b.stride(), be, D, p.ctype(), d.ld(), d.stride(), p.batch(), false, p.scaleType(), p.wide(), compute, 0);
            Blas.Matmul mm = new Blas.Matmul(g, C == 0 ? D : C, cl.ld(), cl.stride(), p.epilogue(), bias, p.biasType(),
                    desc.get(D_BIAS_STRIDE), p.swap());
            c.enqueue(h, stream, "cublasLtMatmul", q -> h.blas.matmul(mm, q));
        });
    }

    int heuristic(long handle, long descH, long aH, long bH, long cH, long dH, long prefH, int requested, long results, long count) {
        return Cublas.call("cublasLtMatmulAlgoGetHeuristic", () -> {
            c.handle(handle);
            Cublas.nonNull(count, "returnAlgoCount");
            if (requested <= 0) throw Cublas.invalid("requestedAlgoCount " + requested);
            Cublas.nonNull(results, "heuristicResultsArray");
            get(prefH, Preference.class, "preference");
            try {
                plan(get(descH, Desc.class, "operationDesc"), get(aH, Layout.class, "Adesc"), get(bH, Layout.class, "Bdesc"),
                        get(cH, Layout.class, "Cdesc"), get(dH, Layout.class, "Ddesc"));
            } catch (CudaException e) {
                if (e.result() == CublasStatus.INVALID_VALUE) throw e;  // the count untouched, as NVIDIA's
                HostRuntime.putInt(count, 0);
                throw Cublas.unsupported(e.getMessage());
            }
            byte[] r = new byte[HEURISTIC_RESULT_BYTES];
            java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(r).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            bb.putLong(0, ALGO_ID);      // algo.data[0]
            bb.putLong(64, 0);           // workspaceSize: none needed
            bb.putInt(72, CublasStatus.SUCCESS);
            bb.putFloat(76, 1.0f);       // wavesCount
            HostRuntime.write(results, r, 0, r.length);
            HostRuntime.putInt(count, 1);
        });
    }
}
