package org.zludaj.driver;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.zludaj.api.CuResult;

/**
 * The driver's handle tables: every CUDA handle given to the application (CUcontext, CUmodule, CUlibrary,
 * CUkernel, CUfunction, CUstream, CUevent ...) is a key here. Handles are never reused, so a destroyed or foreign
 * handle is recognized instead of being followed.
 */
public final class Handles {
    /**
     * Keyed by the handle's number (its distance from BASE in steps of STEP), not by its value: the values, 64 bytes
     * apart above one base, gave Long's hash codes the same low bits, so the handles of a small table fell into one or
     * two of ConcurrentHashMap's bins and a lookup (every driver and cuBLAS call makes some) walked them: 19-21 ns a
     * lookup among 20 handles, 7 ns keyed by number.
     */
    private final ConcurrentHashMap<Long, Object> live = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, String> dead = new ConcurrentHashMap<>();
    /** Handle values look like aligned user-space addresses but point to nothing of the application's. */
    static final long BASE = 0x7a1d_a000_0000L, STEP = 0x40;
    private final AtomicLong next = new AtomicLong();

    public long add(Object o) {
        long n = next.incrementAndGet();
        live.put(n, o);
        return BASE + n * STEP;
    }

    /** The handle's number, or -1 where the value is none of ours. */
    static long number(long handle) {
        long d = handle - BASE;
        return d > 0 && (d & (STEP - 1)) == 0 ? d / STEP : -1;
    }

    public void remove(long handle) {
        long n = number(handle);
        Object o = live.remove(n);
        if (o != null) dead.put(n, o.getClass().getSimpleName());
    }

    /** The live object of type {@code type} behind {@code handle}. */
    public <T> T get(long handle, Class<T> type) throws CudaException {
        Object o = live.get(number(handle));
        if (type.isInstance(o)) return type.cast(o);
        if (handle == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_HANDLE, "null " + type.getSimpleName() + " handle");
        if (o == null && dead.containsKey(number(handle))) {
            int r = type.getSimpleName().equals("Context") ? CuResult.CUDA_ERROR_CONTEXT_IS_DESTROYED : CuResult.CUDA_ERROR_INVALID_HANDLE;
            throw new CudaException(r, type.getSimpleName() + " handle 0x" + Long.toHexString(handle) + " was destroyed");
        }
        throw new CudaException(CuResult.CUDA_ERROR_INVALID_HANDLE, "0x" + Long.toHexString(handle) + " is not a " + type.getSimpleName());
    }

    /** The live handles whose objects are {@code type}'s instances. */
    public <T> java.util.List<Long> all(Class<T> type) {
        java.util.List<Long> out = new java.util.ArrayList<>();
        live.forEach((n, o) -> {
            if (type.isInstance(o)) out.add(BASE + n * STEP);
        });
        return out;
    }

    /** The live object behind {@code handle} if it is one of {@code types}' instances, else null. */
    public Object peek(long handle) {
        return live.get(number(handle));
    }
}
