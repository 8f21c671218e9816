package org.zludaj.driver.cublas;

import java.util.Map;
import org.zludaj.driver.backend.Blas;
import org.zludaj.driver.backend.Blas.Field;
import org.zludaj.nativ.HostRuntime;

/**
 * cuBLAS GEMMs the shim repeats without the JVM (shim/blas.c; cublas.api's {@code @direct} functions), as the driver
 * does for launches and device-to-device copies (DirectLaunch, DirectCopy). After one of them ran at once on the
 * calling thread (its handle's stream and those it implicitly waits for idle, no capture, a backend BLAS that hands it
 * to a library function: NVIDIA's cuBLAS, rocBLAS), the JVM offers the shim that function and its arguments
 * ({@link Blas.Direct}), each either fixed by the call or one of the application's arguments, which this class's table
 * finds per entry point. The shim repeats it for the next calls of the same function on the same handle whose other
 * arguments (operations, types, compute type, algorithm) are the same, after the checks {@link CublasLevel3#gemm}
 * makes, while the BLAS state epoch (rt/blascall.c) and the shim's own epochs stay those read before the offer's call:
 * {@link #changed} moves the BLAS epoch whenever an application handle's settings change, the backend BLAS whenever its
 * handle's do. ZLUDA_DIRECT_LAUNCH=0 and ZLUDA_LOG=trace turn it off (every call through the JVM).
 */
final class DirectBlas {
    private DirectBlas() {}

    /** The shim's zluda_blas_offer, 0 outside the shim or with ZLUDA_DIRECT_LAUNCH=0. */
    private static final long OFFER = "0".equals(System.getenv("ZLUDA_DIRECT_LAUNCH")) ? 0 : Long.getLong("zluda.blasOffer", 0L);
    private static final org.zludaj.api.Log LOG = org.zludaj.api.Log.of(DirectBlas.class);

    /** Where an entry point's arguments are: the index of each field's argument (-1: none), and of transa and transb. */
    record Entry(int arguments, int[] fields) {
        int at(Field f) {
            return fields[f.ordinal()];
        }
    }

    /** Field order: M, N, K, A, LDA, STRIDE_A, B, LDB, STRIDE_B, C, LDC, STRIDE_C, BATCH, ALPHA, BETA (Blas.Field). */
    static final Map<String, Entry> ENTRIES = Map.of(
            // (handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)
            "cublasSgemm", new Entry(14, new int[] {3, 4, 5, 7, 8, -1, 9, 10, -1, 12, 13, -1, -1, 6, 11}),
            // (handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc, computeType, algo)
            "cublasGemmEx", new Entry(19, new int[] {3, 4, 5, 7, 9, -1, 10, 12, -1, 14, 16, -1, -1, 6, 13}),
            // (handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB, beta, C, Ctype, ldc,
            //  strideC, batchCount, computeType, algo)
            "cublasGemmStridedBatchedEx", new Entry(23, new int[] {3, 4, 5, 7, 9, 10, 11, 13, 14, 16, 18, 19, 20, 6, 15}),
            // (handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, Barray, Btype, ldb, beta, Carray, Ctype, ldc,
            //  batchCount, computeType, algo)
            "cublasGemmBatchedEx", new Entry(20, new int[] {3, 4, 5, 7, 9, -1, 10, 12, -1, 14, 16, -1, 17, 6, 13}));

    /** Words of shim/blas.c's offer (B_HANDLE .. B_STATUS), then the application's and the library's arguments. */
    private static final int HEAD = 21, STATUSES = 20, APP_ARGS = 24, BLAS_ARGS = 32;

    /** Whether GEMMs may be offered: inside the shim, and not while each call is traced. */
    static boolean enabled() {
        return OFFER != 0 && !LOG.isTraceEnabled();
    }

    /** The BLAS epoch, read before a call reads its handle's settings (an offer carries it); 0 where none is offered. */
    static long epoch() {
        return enabled() ? HostRuntime.blasEpoch() : 0;
    }

    /** After an application handle's settings changed (or it went): GEMMs offered before are made through the JVM again. */
    static void changed() {
        if (enabled()) HostRuntime.blasStateChanged();
    }

    /**
     * Offers GEMM {@code g}, just made through {@code direct} by entry point {@code function} with the application's
     * arguments {@code app}, to the shim; {@code epoch}: the BLAS epoch read before the call.
     */
    static void offer(String function, long[] app, Blas.Gemm g, Blas.Direct direct, long epoch) {
        try {
            make(function, app, g, direct, epoch);
        } catch (RuntimeException e) {  // nothing offered: the GEMM, done, stays the JVM's
            LOG.debug("no direct GEMM for {}: {}", function, e.toString());
        }
    }

    private static void make(String function, long[] app, Blas.Gemm g, Blas.Direct direct, long epoch) {
        Entry e = ENTRIES.get(function);
        if (e == null || direct == null || app.length != e.arguments || app.length > APP_ARGS || direct.args().length > BLAS_ARGS) return;
        // the library call was chosen for this batch count: repeated only for batches of more than one (NVIDIA's
        // cuBLAS gets cublasGemmEx for a batch of one)
        if (e.at(Field.BATCH) >= 0 && g.batch() < 2) return;
        // int8 GEMMs: CublasLevel3 checks their leading dimensions (multiples of 4), which the shim does not
        if (g.atype() == Blas.R_8I) return;
        long[] v = new long[HEAD + STATUSES + APP_ARGS + BLAS_ARGS];
        long keys = (1L << e.arguments) - 1;
        for (int f : e.fields) if (f >= 0) keys &= ~(1L << f);
        long fromApp = 0;
        int arg = HEAD + STATUSES + APP_ARGS;
        for (int i = 0; i < direct.args().length; i++) {
            long a = direct.args()[i];
            if ((a & ~0xffL) != Blas.FIELD) {
                v[arg + i] = a;
                continue;
            }
            Field f = Field.values()[(int) (a & 0xff)];
            if (e.at(f) >= 0) {
                v[arg + i] = e.at(f);
                fromApp |= 1L << i;
            } else if (f == Field.ALPHA || f == Field.BETA) {
                return;  // every entry point here has both
            } else {
                v[arg + i] = g.value(f);  // fixed by the entry point (a stride of a single GEMM, its batch of one)
            }
        }
        int w = 0;
        v[w++] = app[0];                    // B_HANDLE
        v[w++] = direct.call();             // B_CALL
        v[w++] = direct.function();         // B_FN
        v[w++] = epoch;                     // B_EPOCH
        v[w++] = direct.args().length;      // B_NARGS
        v[w++] = keys;                      // B_KEYS
        v[w++] = fromApp;                   // B_FROM_APP
        v[w++] = 1;                         // B_TRANSA
        v[w++] = 2;                         // B_TRANSB
        v[w++] = e.at(Field.M);
        v[w++] = e.at(Field.N);
        v[w++] = e.at(Field.K);
        v[w++] = e.at(Field.LDA);
        v[w++] = e.at(Field.LDB);
        v[w++] = e.at(Field.LDC);
        v[w++] = e.at(Field.BATCH);         // B_BATCH
        v[w++] = 2;                         // B_MIN_BATCH
        v[w++] = e.at(Field.ALPHA);
        v[w++] = e.at(Field.BETA);
        v[w++] = app.length;                // B_NAPP
        v[w++] = direct.otherStatus();      // B_STATUS_OTHER
        for (int i = 0; i < STATUSES; i++) v[w++] = direct.statuses()[i];
        System.arraycopy(app, 0, v, w, app.length);
        HostRuntime.callWithWords(OFFER, v);
    }
}
