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
    private static final org.zludaj.api.Log LOG = org.zludaj.api.Log.of(LaunchApi.class);
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
        return launch(f, gx, gy, gz, bx, by, bz, shared, hStream, kernelParams, extra, ptds, false);
    }

    /** cooperative: every block resident at once, grid-wide synchronization available (cuLaunchCooperativeKernel). */
    int launch(long f, int gx, int gy, int gz, int bx, int by, int bz, int shared, long hStream, long kernelParams,
               long extra, boolean ptds, boolean cooperative) {
        return Api.call(cooperative ? "cuLaunchCooperativeKernel" : "cuLaunchKernel", () -> {
            Context c = d.requireCurrent();
            Kernel k = d.handles.get(f, Kernel.class);
            Stream s = streams.resolve(hStream, ptds);
            if (LOG.isTraceEnabled())
                LOG.trace("launch {} grid ({},{},{}) block ({},{},{}) shared {}", k.code.name(), gx, gy, gz, bx, by, bz, shared);
            if (cooperative) {
                if (d.devices().get(c.device).attribute(95) == 0)
                    throw new CudaException(CuResult.CUDA_ERROR_NOT_SUPPORTED, "the device has no cooperative launch");
                long most = (long) activeBlocks(d, k, bx * by * bz, shared) * d.devices().get(c.device).attribute(16);
                if ((long) gx * gy * gz > most)
                    throw new CudaException(CuResult.CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, gx * gy * gz + " blocks cannot all be resident (at most " + most + ")");
            }
            // where the backend takes the arguments as it submits (NVIDIA's and AMD's drivers copy them) and the stream
            // is idle, the launch runs now on this thread from the application's own argument array: no copy of them
            if ((!cooperative || d.backend.queuesCooperative()) && !LAUNCH_BLOCKING && extra == 0 && d.backend.submitsAsynchronously()
                    && s.capture == null) {
                check(c, k, gx, gy, gz, bx, by, bz, shared, kernelParams);
                Stream.Op op = launchOp(c, k, gx, gy, gz, bx, by, bz, shared, kernelParams, cooperative, s);
                if (!cooperative && DirectLaunch.enabled() && !LOG.isTraceEnabled()) {
                    Stream.Op launch = op;  // done: the shim may make the next launches of f on this stream itself
                    op = () -> {
                        launch.run();
                        DirectLaunch.offer(d, c, k, f, hStream, ptds, s);
                    };
                }
                if (s.tryHere(k.launchLabel(), op)) return;
            }
            long snapshot = prepare(c, k, gx, gy, gz, bx, by, bz, shared, kernelParams, extra, cooperative);
            // captured: the graph keeps the arguments for every replay and frees them with its last holder (the node's
            // operation reads its parameters: a capture of ggml's makes 65,520 nodes at once, each kept small)
            if (s.capture != null) {
                var params = new Graph.KernelParams(f, gx, gy, gz, bx, by, bz, shared, snapshot, cooperative);
                if (s.captured(k.nodeKind(), nodeOp(c, k, params), () -> HostRuntime.release(snapshot), params)) return;
            }
            Stream.Op op = launchOp(c, k, gx, gy, gz, bx, by, bz, shared, snapshot, cooperative, null);
            Stream.Op once = () -> {
                try {
                    op.run();
                } finally {
                    HostRuntime.release(snapshot);
                }
            };
            if (LAUNCH_BLOCKING) s.run("cuLaunchKernel", () -> {  // CUDA_LAUNCH_BLOCKING=1: the launch reports it too
                once.run();
                s.context.fence(d.backend, s.deviceQueue());
            });
            else s.submit(k.launchLabel(), once, d.backend.submitsAsynchronously());
        });
    }

    /**
     * Checks a launch of {@code k} in context {@code c} as NVIDIA's driver does and takes its arguments (from
     * kernelParams or the extra buffer) at once, as the application may change them as soon as the call returns: the
     * copy of them (see {@link #snapshot}; the caller frees it).
     */
    long prepare(Context c, Kernel k, int gx, int gy, int gz, int bx, int by, int bz, int shared, long kernelParams,
                     long extra, boolean cooperative) throws CudaException {
        if (kernelParams != 0 && extra != 0)
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "both kernelParams and extra given");
        check(c, k, gx, gy, gz, bx, by, bz, shared, extra != 0 ? -1 : kernelParams);
        long array = kernelParams;
        boolean owned = false;
        if (extra != 0) {
            array = paramsFromBuffer(extra, k.code.ptx().params());
            owned = true;
        }
        long snapshot = snapshot(array, k.paramLayout());
        if (owned) HostRuntime.release(array);
        return snapshot;
    }

    /**
     * The checks NVIDIA's driver makes of a launch before it queues it, and the context's sticky error;
     * {@code kernelParams} -1: the arguments come from an extra buffer.
     */
    private void check(Context c, Kernel k, int gx, int gy, int gz, int bx, int by, int bz, int shared, long kernelParams)
            throws CudaException {
        var limits = d.devices().get(c.device);
        if (gx <= 0 || gy <= 0 || gz <= 0 || bx <= 0 || by <= 0 || bz <= 0)
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "zero grid or block dimension");
        if (bx > limits.attribute(2) || by > limits.attribute(3) || bz > limits.attribute(4)
                || (long) bx * by * bz > limits.attribute(1))
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "block " + bx + "x" + by + "x" + bz + " is too large");
        // NVIDIA (H100, driver 580): a block other than .reqntid's, or of more threads than .maxntid's, is refused
        int[] required = k.requiredBlock;
        if (required != null && (bx != required[0] || by != required[1] || bz != required[2]))
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "block " + bx + "x" + by + "x" + bz + " is not the "
                    + required[0] + "x" + required[1] + "x" + required[2] + " kernel " + k.code.name() + " requires (.reqntid)");
        if (k.maxBlockThreads > 0 && (long) bx * by * bz > k.maxBlockThreads)
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "block " + bx + "x" + by + "x" + bz + " has more threads than the "
                    + k.maxBlockThreads + " of kernel " + k.code.name() + " (.maxntid)");
        if (gy > limits.attribute(6) || gz > limits.attribute(7))
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "grid " + gx + "x" + gy + "x" + gz + " is too large");
        if (shared < 0 || shared > k.maxDynamicShared)
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "dynamic shared memory of " + shared + " bytes (the kernel allows "
                    + k.maxDynamicShared + "; raise it with cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES))");
        if (kernelParams == 0 && k.paramLayout().sizes().length != 0)
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "kernel takes " + k.paramLayout().sizes().length
                    + " parameters but kernelParams is NULL");
        c.checkSticky();
    }

    /**
     * The launch itself, reading its arguments from {@code args} (an array of pointers to each) when it runs, into
     * {@code stream}'s device queue (null: the queue of the stream that runs it).
     */
    private Stream.Op launchOp(Context c, Kernel k, int gx, int gy, int gz, int bx, int by, int bz, int shared, long args,
                               boolean cooperative, Stream stream) {
        long stack = c.limits[0];
        return () -> {
            if (c.sticky != null) return;  // before the stream's queue is asked for
            submit(c, k, new int[] {gx, gy, gz}, new int[] {bx, by, bz}, shared, args, cooperative, stack,
                    stream != null ? stream.queue(d.backend) : Stream.runningQueue(d.backend));
        };
    }

    /** The operation of a graph's kernel node (captured or added), from its parameters, into the running stream's queue. */
    Stream.Op nodeOp(Context c, Kernel k, Graph.KernelParams p) {
        long stack = c.limits[0];
        return () -> submit(c, k, p.grid(), p.block(), p.shared(), p.args(), p.cooperative(), stack, Stream.runningQueue(d.backend));
    }

    /** Submits a launch to the backend unless the context faulted; a fault inside the kernel becomes the context's. */
    private void submit(Context c, Kernel k, int[] grid, int[] block, int shared, long args, boolean cooperative, long stack,
                        long queue) throws CudaException {
        if (c.sticky != null) return;  // a faulted context runs nothing more
        try {
            if (cooperative) d.backend.launchCooperative(k.code, grid, block, shared, args, stack, queue);
            else d.backend.launch(k.code, grid, block, shared, args, stack, queue);
        } catch (CudaException e) {
            // a fault inside the kernel is reported by the next synchronization and every call after it
            if (isKernelFault(e.result())) c.stick(e);
            throw e;
        }
    }

    /** A copy of the launch's arguments: an array of pointers followed by each value (16-byte aligned). */
    private static long snapshot(long array, Kernel.ParamLayout layout) {
        long copy = HostRuntime.allocate(layout.bytes(), 16);
        long[] offsets = layout.offsets();
        int[] sizes = layout.sizes();
        for (int i = 0; i < sizes.length; i++) {
            HostRuntime.copy(copy + offsets[i], HostRuntime.getLong(array + 8L * i), sizes[i]);
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
            s.enqueue("host function", () -> {
                s.context.fence(d.backend, s.deviceQueue());
                HostRuntime.callHostFunction(fn, userData);
            }, null, null);
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
        long[] offsets = new long[params.size()];
        long offset = 0;
        for (int i = 0; i < params.size(); i++) {
            Variable p = params.get(i);
            long align = p.align() > 0 ? p.align() : Math.max(1, p.elementSize());
            offset = (offset + align - 1) / align * align;
            offsets[i] = offset;
            offset += p.size();
        }
        // NVIDIA (recorded on an H200): a buffer larger than the kernel's parameters is refused with
        // CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES; a smaller one is accepted, the rest of the parameters undefined (zeros here)
        if (size > offset)
            throw new CudaException(CuResult.CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "parameter buffer of " + size + " bytes, the kernel takes " + offset);
        // the pointer array, then a copy of the buffer padded to the kernel's size: one block, released by the caller
        long pointers = 8L * Math.max(1, params.size());
        long array = HostRuntime.allocate(pointers + Math.max(offset, 1), 16);
        if (array == 0) throw new CudaException(CuResult.CUDA_ERROR_OUT_OF_MEMORY, "parameter buffer copy");
        long copy = array + pointers;
        HostRuntime.fill8(copy, 0, offset);
        HostRuntime.copy(copy, buffer, size);
        for (int i = 0; i < params.size(); i++) HostRuntime.putLong(array + 8L * i, copy + offsets[i]);
        return array;
    }

    /** CUfunction_attribute values of a kernel on the backend's device. */
    static int attribute(Driver d, Kernel k, int attrib) throws CudaException {
        var dev = d.devices().get(0);
        return switch (attrib) {
            case 0 -> {                                        // MAX_THREADS_PER_BLOCK (the compiled code's registers limit it)
                int own = d.backend.compiledAttribute(k.code, 0);
                yield own > 0 ? Math.min(own, maxThreads(dev.attribute(1), k)) : maxThreads(dev.attribute(1), k);
            }
            case 1 -> (int) k.staticShared();             // SHARED_SIZE_BYTES
            case 2 -> 0;                                       // CONST_SIZE_BYTES: module variables are not per kernel
            case 3 -> (int) k.code.localBytes();               // LOCAL_SIZE_BYTES
            case 4 -> {                                        // NUM_REGS: the compiled code's where the backend knows
                int own = d.backend.compiledAttribute(k.code, 4);
                yield own > 0 ? own : 32;
            }
            case 5 -> k.library.ptx.smVersion();               // PTX_VERSION: the .target, as NVIDIA reports it
            case 6 -> dev.attribute(75) * 10 + dev.attribute(76);  // BINARY_VERSION
            case 7 -> 0;                                       // CACHE_MODE_CA
            case 8 -> k.maxDynamicShared;                      // MAX_DYNAMIC_SHARED_SIZE_BYTES
            case 9 -> k.carveout;                              // PREFERRED_SHARED_MEMORY_CARVEOUT
            case 10, 11, 12, 13, 14, 15 -> 0;                  // cluster attributes: no cluster launches here
            default -> throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "function attribute " + attrib);
        };
    }

    /** MAX_THREADS_PER_BLOCK as NVIDIA reports it: .maxntid's product where declared (.reqntid: the device's). */
    private static int maxThreads(int device, Kernel k) {
        return k.maxBlockThreads == 0 ? device : (int) Math.min(device, k.maxBlockThreads);
    }

    /** cuFuncSetAttribute/cuKernelSetAttribute: the settable attributes, with NVIDIA's limits. */
    static void setAttribute(Driver d, Kernel k, int attrib, int value) throws CudaException {
        var dev = d.devices().get(0);
        switch (attrib) {
            case 8 -> {
                long max = dev.attribute(97) - k.staticShared();
                if (value < 0 || value > max)
                    throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "MAX_DYNAMIC_SHARED_SIZE_BYTES " + value + " (at most " + max + ")");
                k.maxDynamicShared = value;
            }
            case 9 -> {
                if (value < -1 || value > 100) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "carveout " + value);
                k.carveout = value;
            }
            case 14, 15 -> { }  // cluster policy hints: accepted, nothing to change without cluster launches
            default -> throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "function attribute " + attrib + " cannot be set");
        }
        d.functionsChanged();  // the occupancy the shim keeps depends on them (a dynamic shared size above the maximum: 0)
    }

    @Override
    public int cuFuncGetAttribute(long pi, int attrib, long hfunc) {
        return Api.call("cuFuncGetAttribute", () -> Mem.putInt(pi, attribute(d, d.handles.get(hfunc, Kernel.class), attrib), "pi"));
    }

    @Override
    public int cuFuncSetAttribute(long hfunc, int attrib, int value) {
        return Api.call("cuFuncSetAttribute", () -> setAttribute(d, d.handles.get(hfunc, Kernel.class), attrib, value));
    }

    // ---- cuLaunchKernelEx: CUlaunchConfig (cuda.h) = grid xyz, block xyz, sharedMemBytes (7 x u32), hStream at 32,
    // ---- attrs at 40, numAttrs at 48; each CUlaunchAttribute is 72 bytes: id (u32) at 0, value union at 8

    private int launchEx(long config, long f, long kernelParams, long extra, boolean ptds) {
        int[] v = new int[7];
        long stream, attrs;
        int count;
        boolean cooperative = false;
        try {
            Mem.nonNull(config, "config");
            for (int i = 0; i < 7; i++) v[i] = HostRuntime.getInt(config + 4L * i);
            stream = HostRuntime.getLong(config + 32);
            attrs = HostRuntime.getLong(config + 40);
            count = HostRuntime.getInt(config + 48);
            if (count > 0) Mem.nonNull(attrs, "config->attrs");
            for (int i = 0; i < count; i++) {
                long a = attrs + 72L * i;
                int id = HostRuntime.getInt(a);
                switch (id) {
                    // hints whose guarantees hold here (work of a stream runs in order, one kernel at a time)
                    case 0, 1, 3, 5, 6, 8, 9, 10 -> { }
                    case 2 -> cooperative = HostRuntime.getInt(a + 8) != 0;  // COOPERATIVE
                    case 4 -> {  // CLUSTER_DIMENSION: only 1x1x1 (the device reports no cluster launch)
                        if (HostRuntime.getInt(a + 8) > 1 || HostRuntime.getInt(a + 12) > 1 || HostRuntime.getInt(a + 16) > 1)
                            return org.zludaj.api.Unsupported.report("cuLaunchKernelEx with thread-block clusters");
                    }
                    default -> {
                        return org.zludaj.api.Unsupported.report("cuLaunchKernelEx attribute " + id);
                    }
                }
            }
        } catch (CudaException e) {
            return e.result();
        }
        return launch(f, v[0], v[1], v[2], v[3], v[4], v[5], v[6], stream, kernelParams, extra, ptds, cooperative);
    }

    @Override
    public int cuLaunchCooperativeKernel(long f, int gx, int gy, int gz, int bx, int by, int bz, int shared, long hStream, long kernelParams) {
        return launch(f, gx, gy, gz, bx, by, bz, shared, hStream, kernelParams, 0, false, true);
    }

    @Override
    public int cuLaunchCooperativeKernel_ptsz(long f, int gx, int gy, int gz, int bx, int by, int bz, int shared, long hStream,
                                              long kernelParams) {
        return launch(f, gx, gy, gz, bx, by, bz, shared, hStream, kernelParams, 0, true, true);
    }

    @Override
    public int cuLaunchKernelEx(long config, long f, long kernelParams, long extra) {
        return launchEx(config, f, kernelParams, extra, false);
    }

    @Override
    public int cuLaunchKernelEx_ptsz(long config, long f, long kernelParams, long extra) {
        return launchEx(config, f, kernelParams, extra, true);
    }

    // ---- occupancy: how many blocks of a kernel fit on one multiprocessor of the device (threads, blocks and shared
    // ---- memory per multiprocessor, per-block shared memory as launches would ask it)

    static int activeBlocks(Driver d, Kernel k, int blockSize, long dynamicShared) {
        var dev = d.devices().get(0);
        if (blockSize <= 0 || blockSize > dev.attribute(1)) return 0;
        if (dynamicShared > k.maxDynamicShared) return 0;
        // the device driver's own count where the backend has one (registers limit it too: ggml splits its attention
        // work by this answer, and a count of threads alone made it split far finer than NVIDIA's)
        int own = d.backend.activeBlocks(k.code, blockSize, dynamicShared);
        if (own >= 0) return own;
        int warps = (blockSize + 31) / 32, maxWarps = dev.attribute(39) / 32;
        int byThreads = maxWarps / warps, byBlocks = dev.attribute(106);
        long shared = k.staticShared() + dynamicShared;
        long byShared = shared == 0 ? Integer.MAX_VALUE : dev.attribute(81) / shared;
        return (int) Math.max(0, Math.min(Math.min(byThreads, byBlocks), byShared));
    }

    private int maxActiveBlocks(long numBlocks, long func, int blockSize, long dynamicSMemSize) {
        return Api.call("cuOccupancyMaxActiveBlocksPerMultiprocessor", () -> {
            Mem.nonNull(numBlocks, "numBlocks");
            Kernel k = d.handles.get(func, Kernel.class);
            HostRuntime.putInt(numBlocks, activeBlocks(d, k, blockSize, dynamicSMemSize));
        });
    }

    @Override
    public int cuOccupancyMaxActiveBlocksPerMultiprocessor(long numBlocks, long func, int blockSize, long dynamicSMemSize) {
        return maxActiveBlocks(numBlocks, func, blockSize, dynamicSMemSize);
    }

    @Override
    public int cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(long numBlocks, long func, int blockSize, long dynamicSMemSize, int flags) {
        if ((flags & ~1) != 0) return Api.call("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", () -> {
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags " + flags);
        });
        return maxActiveBlocks(numBlocks, func, blockSize, dynamicSMemSize);
    }

    /** The block size (a multiple of 32 up to the limit) with the most threads resident per multiprocessor. */
    private int potentialBlockSize(long minGridSize, long blockSize, long func, long toShared, long dynamicSMemSize, int limit) {
        return Api.call("cuOccupancyMaxPotentialBlockSize", () -> {
            Mem.nonNull(minGridSize, "minGridSize");
            Mem.nonNull(blockSize, "blockSize");
            Kernel k = d.handles.get(func, Kernel.class);
            var dev = d.devices().get(0);
            int max = dev.attribute(1);
            if (limit > 0) max = Math.min(max, limit);
            int best = 0, bestBlocks = 0;
            long bestThreads = -1;
            for (int size = (max + 31) / 32 * 32; size > 0; size -= 32) {
                int s = Math.min(size, max);
                long dyn = toShared != 0 ? HostRuntime.callBlockSizeToSharedBytes(toShared, s) : dynamicSMemSize;
                int blocks = activeBlocks(d, k, s, dyn);
                long threads = (long) blocks * s;
                if (threads > bestThreads) {
                    bestThreads = threads;
                    best = s;
                    bestBlocks = blocks;
                }
            }
            HostRuntime.putInt(blockSize, best);
            HostRuntime.putInt(minGridSize, bestBlocks * dev.attribute(16));
        });
    }

    @Override
    public int cuOccupancyMaxPotentialBlockSize(long minGridSize, long blockSize, long func, long toShared, long dynamicSMemSize, int blockSizeLimit) {
        return potentialBlockSize(minGridSize, blockSize, func, toShared, dynamicSMemSize, blockSizeLimit);
    }

    @Override
    public int cuOccupancyMaxPotentialBlockSizeWithFlags(long minGridSize, long blockSize, long func, long toShared, long dynamicSMemSize,
                                                         int blockSizeLimit, int flags) {
        return potentialBlockSize(minGridSize, blockSize, func, toShared, dynamicSMemSize, blockSizeLimit);
    }

    /** The most dynamic shared memory a block can use while numBlocks of blockSize threads stay resident. */
    @Override
    public int cuOccupancyAvailableDynamicSMemPerBlock(long dynamicSmemSize, long func, int numBlocks, int blockSize) {
        return Api.call("cuOccupancyAvailableDynamicSMemPerBlock", () -> {
            Mem.nonNull(dynamicSmemSize, "dynamicSmemSize");
            Kernel k = d.handles.get(func, Kernel.class);
            var dev = d.devices().get(0);
            long avail = 0;
            if (numBlocks > 0 && activeBlocks(d, k, blockSize, 0) >= numBlocks) {
                avail = Math.min(dev.attribute(81) / numBlocks, dev.attribute(97)) - k.staticShared();
            }
            HostRuntime.putLong(dynamicSmemSize, Math.max(0, avail));
        });
    }

    // ---- function identity and loading

    @Override
    public int cuFuncGetName(long name, long hfunc) {
        return Api.call("cuFuncGetName", () -> Mem.putLong(name, d.handles.get(hfunc, Kernel.class).nativeName(), "name"));
    }

    @Override
    public int cuFuncGetModule(long hmod, long hfunc) {
        return Api.call("cuFuncGetModule", () -> Mem.putLong(hmod, d.handles.get(hfunc, Kernel.class).library.handle, "hmod"));
    }

    /** Kernels are compiled when their module loads: always loaded (CU_FUNCTION_LOADING_STATE_LOADED = 1). */
    @Override
    public int cuFuncIsLoaded(long state, long function) {
        return Api.call("cuFuncIsLoaded", () -> {
            d.handles.get(function, Kernel.class);
            Mem.putInt(state, 1, "state");
        });
    }

    @Override
    public int cuFuncLoad(long function) {
        return Api.call("cuFuncLoad", () -> d.handles.get(function, Kernel.class));
    }

    @Override
    public int cuFuncGetParamInfo(long func, long paramIndex, long paramOffset, long paramSize) {
        return Api.call("cuFuncGetParamInfo", () -> paramInfo(d.handles.get(func, Kernel.class), paramIndex, paramOffset, paramSize));
    }

    /** The offset and size of a kernel parameter in the parameter buffer (C layout of the PTX parameters). */
    static void paramInfo(Kernel k, long index, long offsetOut, long sizeOut) throws CudaException {
        List<Variable> params = k.code.ptx().params();
        if (index < 0 || index >= params.size())
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "parameter " + index + " of a kernel with " + params.size());
        long offset = 0;
        for (int i = 0; ; i++) {
            Variable p = params.get(i);
            long align = p.align() > 0 ? p.align() : Math.max(1, p.elementSize());
            offset = (offset + align - 1) / align * align;
            if (i == index) {
                if (offsetOut != 0) HostRuntime.putLong(offsetOut, offset);
                if (sizeOut != 0) HostRuntime.putLong(sizeOut, p.size());
                return;
            }
            offset += p.size();
        }
    }

    /** Shared memory bank size (deprecated: NVIDIA accepts it and keeps 4-byte banks). */
    @Override
    public int cuFuncSetSharedMemConfig(long hfunc, int config) {
        return Api.call("cuFuncSetSharedMemConfig", () -> {
            d.handles.get(hfunc, Kernel.class);
            if (config < 0 || config > 2) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "shared memory config " + config);
        });
    }

    /** A cache preference (CU_FUNC_CACHE_PREFER_NONE..EQUAL): recorded by NVIDIA, without effect here. */
    @Override
    public int cuFuncSetCacheConfig(long hfunc, int config) {
        return Api.call("cuFuncSetCacheConfig", () -> {
            d.handles.get(hfunc, Kernel.class);
            if (config < 0 || config > 3) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "cache config " + config);
        });
    }

    // ---- the first launch API (CUDA 1-3, deprecated): the function keeps a block shape, shared bytes and a
    // parameter buffer; cuLaunch/cuLaunchGrid launch it as cuLaunchKernel with that buffer (CU_LAUNCH_PARAM_BUFFER_*)

    @Override
    public int cuFuncSetBlockShape(long hfunc, int x, int y, int z) {
        return Api.call("cuFuncSetBlockShape", () -> {
            Kernel k = d.handles.get(hfunc, Kernel.class);
            if (x <= 0 || y <= 0 || z <= 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "block " + x + "x" + y + "x" + z);
            synchronized (k.legacyBlock) {
                k.legacyBlock[0] = x;
                k.legacyBlock[1] = y;
                k.legacyBlock[2] = z;
            }
        });
    }

    @Override
    public int cuFuncSetSharedSize(long hfunc, int bytes) {
        return Api.call("cuFuncSetSharedSize", () -> d.handles.get(hfunc, Kernel.class).legacyShared = bytes);
    }

    @Override
    public int cuParamSetSize(long hfunc, int numbytes) {
        return Api.call("cuParamSetSize", () -> {
            Kernel k = d.handles.get(hfunc, Kernel.class);
            if (numbytes < 0 || numbytes > k.legacyParams.length) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "parameter size " + numbytes);
            k.legacyParamSize = numbytes;
        });
    }

    private void paramBytes(long hfunc, int offset, byte[] b) throws CudaException {
        Kernel k = d.handles.get(hfunc, Kernel.class);
        synchronized (k.legacyBlock) {
            byte[] p = k.legacyParams;
            if (offset < 0 || offset + b.length > p.length)
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "[" + offset + ", +" + b.length + ") outside the " + p.length + " bytes of parameter space");
            System.arraycopy(b, 0, p, offset, b.length);
        }
    }

    private static byte[] le(int v) {
        return java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(v).array();
    }

    @Override
    public int cuParamSeti(long hfunc, int offset, int value) {
        return Api.call("cuParamSeti", () -> paramBytes(hfunc, offset, le(value)));
    }

    @Override
    public int cuParamSetf(long hfunc, int offset, float value) {
        return Api.call("cuParamSetf", () -> paramBytes(hfunc, offset, le(Float.floatToRawIntBits(value))));
    }

    @Override
    public int cuParamSetv(long hfunc, int offset, long ptr, int numbytes) {
        return Api.call("cuParamSetv", () -> {
            if (numbytes < 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "numbytes " + numbytes);
            if (numbytes > 0) Mem.nonNull(ptr, "ptr");
            paramBytes(hfunc, offset, HostRuntime.bytes(ptr, numbytes));
        });
    }

    private int legacyLaunch(String name, long f, int gw, int gh, long stream) {
        Kernel k;
        int[] block;
        byte[] params;
        try {
            k = d.handles.get(f, Kernel.class);
        } catch (CudaException e) {
            return Api.call(name, () -> {
                throw e;
            });
        }
        synchronized (k.legacyBlock) {
            block = k.legacyBlock.clone();
            params = java.util.Arrays.copyOf(k.legacyParams, k.legacyParamSize);
        }
        // {BUFFER_POINTER, buffer, BUFFER_SIZE, &size, END}, then the size and the buffer
        long extra = HostRuntime.allocate(40 + 8 + Math.max(params.length, 1), 16);
        if (extra == 0) return CuResult.CUDA_ERROR_OUT_OF_MEMORY;
        try {
            long size = extra + 40, buffer = extra + 48;
            HostRuntime.write(buffer, params, 0, params.length);
            HostRuntime.putLong(size, params.length);
            HostRuntime.putLong(extra, PARAM_BUFFER_POINTER);
            HostRuntime.putLong(extra + 8, buffer);
            HostRuntime.putLong(extra + 16, PARAM_BUFFER_SIZE);
            HostRuntime.putLong(extra + 24, size);
            HostRuntime.putLong(extra + 32, PARAM_END);
            return launch(f, gw, gh, 1, block[0], block[1], block[2], k.legacyShared, stream, 0, params.length == 0 ? 0 : extra, false);
        } finally {
            HostRuntime.release(extra);
        }
    }

    @Override public int cuLaunch(long f) { return legacyLaunch("cuLaunch", f, 1, 1, 0); }
    @Override public int cuLaunchGrid(long f, int w, int h) { return legacyLaunch("cuLaunchGrid", f, w, h, 0); }
    @Override public int cuLaunchGridAsync(long f, int w, int h, long s) { return legacyLaunch("cuLaunchGridAsync", f, w, h, s); }
}
