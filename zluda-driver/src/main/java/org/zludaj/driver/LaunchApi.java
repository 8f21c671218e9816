package org.zludaj.driver;

import java.util.List;
import org.zludaj.api.CuLaunchApi;
import org.zludaj.api.CuResult;
import org.zludaj.nativ.HostRuntime;
import org.zludaj.ptx.model.Variable;

/** Kernel launch and function attributes (cuLaunchKernel, cuFuncGetAttribute). */
final class LaunchApi implements CuLaunchApi {
    /** CU_LAUNCH_PARAM_END, _BUFFER_POINTER, _BUFFER_SIZE (cuda.h). */
    static final long PARAM_END = 0, PARAM_BUFFER_POINTER = 1, PARAM_BUFFER_SIZE = 2;
    /** CUDA_LAUNCH_BLOCKING=1: launch errors from inside the kernel are returned by the launch itself. */
    static final boolean LAUNCH_BLOCKING = "1".equals(System.getenv("CUDA_LAUNCH_BLOCKING"));
    private final Driver d;
    private final StreamApi streams;

    LaunchApi(Driver d) {
        this.d = d;
        this.streams = new StreamApi(d);
    }

    @Override
    public int cuLaunchKernel(long f, int gx, int gy, int gz, int bx, int by, int bz, int shared, long hStream,
                              long kernelParams, long extra) {
        return launch(f, gx, gy, gz, bx, by, bz, shared, hStream, kernelParams, extra, false);
    }

    /** ptds: the _ptsz variant, whose stream 0 is the calling thread's default stream. */
    int launch(long f, int gx, int gy, int gz, int bx, int by, int bz, int shared, long hStream, long kernelParams,
               long extra, boolean ptds) {
        return Api.call("cuLaunchKernel", () -> {
            Context c = d.requireCurrent();
            Kernel k = d.handles.get(f, Kernel.class);
            streams.resolve(hStream, ptds);
            var limits = d.devices().get(c.device);
            if (gx <= 0 || gy <= 0 || gz <= 0 || bx <= 0 || by <= 0 || bz <= 0)
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "zero grid or block dimension");
            if (bx > limits.attribute(2) || by > limits.attribute(3) || bz > limits.attribute(4)
                    || (long) bx * by * bz > limits.attribute(1))
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "block " + bx + "x" + by + "x" + bz + " is too large");
            if (gy > limits.attribute(6) || gz > limits.attribute(7))
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "grid " + gx + "x" + gy + "x" + gz + " is too large");
            if (shared < 0 || shared > limits.attribute(97))
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "dynamic shared memory of " + shared + " bytes");
            List<Variable> params = k.code.ptx().params();
            if (kernelParams != 0 && extra != 0)
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "both kernelParams and extra given");
            long array = kernelParams;
            boolean owned = false;
            if (extra != 0) {
                array = paramsFromBuffer(extra, params);
                owned = true;
            } else if (kernelParams == 0 && !params.isEmpty()) {
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "kernel takes " + params.size() + " parameters but kernelParams is NULL");
            }
            c.checkSticky();
            // the argument values are taken now, as NVIDIA's launch does: the application may change them at once
            long snapshot = snapshot(array, params);
            if (owned) HostRuntime.release(array);
            Stream s = streams.resolve(hStream, ptds);
            long stack = c.limits[0];
            Stream.Op op = () -> {
                try {
                    if (c.sticky != null) return;  // a faulted context runs nothing more
                    d.backend.launch(k.code, new int[] {gx, gy, gz}, new int[] {bx, by, bz}, shared, snapshot, stack);
                } catch (CudaException e) {
                    if (!isKernelFault(e.result())) throw e;
                    // a fault inside the kernel is reported by the next synchronization and every call after it
                    c.sticky = e;
                    throw e;
                } finally {
                    HostRuntime.release(snapshot);
                }
            };
            if (LAUNCH_BLOCKING) s.run("cuLaunchKernel", op);  // CUDA_LAUNCH_BLOCKING=1: the launch reports it too
            else s.enqueue("cuLaunchKernel " + k.code.name(), op, null, null);
        });
    }

    /** A copy of the launch's arguments: an array of pointers followed by each value (16-byte aligned). */
    private static long snapshot(long array, List<Variable> params) {
        int n = params.size();
        long bytes = 8L * Math.max(1, n);
        long[] offsets = new long[n];
        for (int i = 0; i < n; i++) {
            bytes = (bytes + 15) & ~15L;
            offsets[i] = bytes;
            bytes += Math.max(1, params.get(i).size());
        }
        long copy = HostRuntime.allocate(bytes, 16);
        for (int i = 0; i < n; i++) {
            long value = HostRuntime.getLong(array + 8L * i);
            HostRuntime.copy(copy + offsets[i], value, params.get(i).size());
            HostRuntime.putLong(copy + 8L * i, copy + offsets[i]);
        }
        return copy;
    }

    /** Errors raised while a kernel runs, which make its context unusable (sticky), as opposed to launch checks. */
    static boolean isKernelFault(int result) {
        return result == CuResult.CUDA_ERROR_ASSERT || result == CuResult.CUDA_ERROR_LAUNCH_FAILED
                || result == CuResult.CUDA_ERROR_ILLEGAL_ADDRESS || result == CuResult.CUDA_ERROR_LAUNCH_TIMEOUT
                || result == CuResult.CUDA_ERROR_ILLEGAL_INSTRUCTION;
    }

    @Override
    public int cuLaunchKernel_ptsz(long f, int gx, int gy, int gz, int bx, int by, int bz, int shared, long hStream,
                                   long kernelParams, long extra) {
        return launch(f, gx, gy, gz, bx, by, bz, shared, hStream, kernelParams, extra, true);
    }

    /** cuLaunchHostFunc: the function runs on a stream thread once the stream's earlier work is done. */
    private int hostFunc(long hStream, long fn, long userData, boolean ptds) {
        return Api.call("cuLaunchHostFunc", () -> {
            Stream s = streams.resolve(hStream, ptds);
            Mem.nonNull(fn, "fn");
            s.enqueue("host function", () -> HostRuntime.callHostFunction(fn, userData), null, null);
        });
    }

    @Override
    public int cuLaunchHostFunc(long hStream, long fn, long userData) {
        return hostFunc(hStream, fn, userData, false);
    }

    @Override
    public int cuLaunchHostFunc_ptsz(long hStream, long fn, long userData) {
        return hostFunc(hStream, fn, userData, true);
    }

    /** kernelParams for a CU_LAUNCH_PARAM_BUFFER_POINTER buffer: pointers to each parameter at its C-layout offset. */
    private long paramsFromBuffer(long extra, List<Variable> params) throws CudaException {
        long buffer = 0, size = -1;
        for (int i = 0; i < 64; i += 2) {
            long key = HostRuntime.getLong(extra + 8L * i);
            if (key == PARAM_END) break;
            long value = HostRuntime.getLong(extra + 8L * (i + 1));
            if (key == PARAM_BUFFER_POINTER) buffer = value;
            else if (key == PARAM_BUFFER_SIZE) size = HostRuntime.getLong(value);
            else throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "unknown launch parameter key " + key);
        }
        if (buffer == 0 || size < 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "extra lacks buffer pointer or size");
        long array = HostRuntime.allocate(8L * Math.max(1, params.size()), 8);
        long offset = 0;
        for (int i = 0; i < params.size(); i++) {
            Variable p = params.get(i);
            long align = p.align() > 0 ? p.align() : Math.max(1, p.elementSize());
            offset = (offset + align - 1) / align * align;
            HostRuntime.putLong(array + 8L * i, buffer + offset);
            offset += p.size();
        }
        if (offset > size) {
            HostRuntime.release(array);
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "parameter buffer of " + size + " bytes, kernel needs " + offset);
        }
        return array;
    }

    /** CUfunction_attribute values of a kernel on the backend's device. */
    static int attribute(Driver d, Kernel k, int attrib) throws CudaException {
        var dev = d.devices().get(0);
        return switch (attrib) {
            case 0 -> dev.attribute(1);            // MAX_THREADS_PER_BLOCK
            case 1, 2, 3 -> 0;                     // SHARED/CONST/LOCAL_SIZE_BYTES: none in this slice
            case 4 -> 32;                          // NUM_REGS
            case 5 -> k.library.ptx.smVersion();   // PTX_VERSION: the .target, as NVIDIA reports it
            case 6 -> dev.attribute(75) * 10 + dev.attribute(76);  // BINARY_VERSION
            case 7 -> 0;                           // CACHE_MODE_CA
            case 8 -> dev.attribute(97);           // MAX_DYNAMIC_SHARED_SIZE_BYTES
            case 9 -> -1;                          // PREFERRED_SHARED_MEMORY_CARVEOUT
            default -> throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "function attribute " + attrib);
        };
    }

    @Override
    public int cuFuncGetAttribute(long pi, int attrib, long hfunc) {
        return Api.call("cuFuncGetAttribute", () -> Mem.putInt(pi, attribute(d, d.handles.get(hfunc, Kernel.class), attrib), "pi"));
    }
}
