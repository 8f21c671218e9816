package org.zludaj.api;


/** Trace of driver calls ({@code ZLUDA_LOG=trace}) and the last line of defence against exceptions. */
public final class CallLog {
    private CallLog() {}

    private static final Log LOG = Log.named("org.zludaj.trace");
    public static final boolean TRACE = LOG.isTraceEnabled();

    static void enter(int id, long... a) {
        enterLibrary(Dispatch.name(id), Dispatch.arity(id), a);
    }

    /** A library call (cuBLAS...), traced like a driver call: its {@code arity} arguments (the other slots are unset). */
    public static void enterLibrary(String name, int arity, long... a) {
        StringBuilder s = new StringBuilder(name).append('(');
        for (int i = 0; i < Math.min(arity, a.length); i++) s.append(i > 0 ? ", " : "").append("0x").append(Long.toHexString(a[i]));
        LOG.trace("{})", s);
    }

    public static void exitLibrary(String name, long result) {
        LOG.trace("{} -> {}", name, result);
    }

    /** An exception escaped a library function: logged, and answered with the library's {@code status}. */
    public static long failedLibrary(String name, Throwable t, int status) {
        LOG.error("internal error in {}", name, t);
        return status;
    }

    static void exit(int id, int result) {
        LOG.trace("{} -> {}", Dispatch.name(id), CuResult.name(result) != null ? CuResult.name(result) : result);
    }

    /** An exception escaped a driver function: logged, and turned into CUDA_ERROR_UNKNOWN (never into a crash). */
    static int failed(int id, Throwable t) {
        LOG.error("internal error in {}", Dispatch.name(id), t);
        return t instanceof OutOfMemoryError ? CuResult.CUDA_ERROR_OUT_OF_MEMORY : CuResult.CUDA_ERROR_UNKNOWN;
    }
}
