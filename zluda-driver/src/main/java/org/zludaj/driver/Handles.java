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
    private final ConcurrentHashMap<Long, Object> live = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, String> dead = new ConcurrentHashMap<>();
    /** Handle values look like aligned user-space addresses but point to nothing of the application's. */
    private final AtomicLong next = new AtomicLong(0x7a1d_a000_0000L);

    public long add(Object o) {
        long h = next.addAndGet(0x40);
        live.put(h, o);
        return h;
    }

    public void remove(long handle) {
        Object o = live.remove(handle);
        if (o != null) dead.put(handle, o.getClass().getSimpleName());
    }

    /** The live object of type {@code type} behind {@code handle}. */
    public <T> T get(long handle, Class<T> type) throws CudaException {
        Object o = live.get(handle);
        if (type.isInstance(o)) return type.cast(o);
        if (handle == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_HANDLE, "null " + type.getSimpleName() + " handle");
        if (o == null && dead.containsKey(handle)) {
            int r = type.getSimpleName().equals("Context") ? CuResult.CUDA_ERROR_CONTEXT_IS_DESTROYED : CuResult.CUDA_ERROR_INVALID_HANDLE;
            throw new CudaException(r, type.getSimpleName() + " handle 0x" + Long.toHexString(handle) + " was destroyed");
        }
        throw new CudaException(CuResult.CUDA_ERROR_INVALID_HANDLE, "0x" + Long.toHexString(handle) + " is not a " + type.getSimpleName());
    }

    /** The live object behind {@code handle} if it is one of {@code types}' instances, else null. */
    public Object peek(long handle) {
        return live.get(handle);
    }
}
