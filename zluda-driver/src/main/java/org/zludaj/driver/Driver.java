package org.zludaj.driver;

import java.util.ArrayDeque;
import java.util.List;
import org.zludaj.api.ApiSet;
import org.zludaj.api.CuGraphApi;
import org.zludaj.api.CuInteropApi;
import org.zludaj.api.CuResult;
import org.zludaj.driver.backend.Backend;
import org.zludaj.driver.backend.host.HostBackend;
import org.zludaj.nativ.HostRuntime;

/**
 * The driver's state: the backend, the handle tables, the primary contexts, and each thread's context stack.
 * The API group classes ({@link DeviceApi}, {@link MemoryApi} ...) implement the CUDA functions over it.
 */
public final class Driver {
    private static final org.zludaj.api.Log LOG = org.zludaj.api.Log.of(Driver.class);
    public static final int VERSION = 13000;

    final Backend backend;
    final Handles handles = new Handles();
    /**
     * Parsed variables units by their PTX text: every translation unit of a library like ggml declares the same
     * tables (96 KB of PTX in each of ggml's 141 modules), parsed once per process instead of once per module.
     */
    final CodeLoader.ParsedTexts variableUnits = new CodeLoader.ParsedTexts(64);
    /** The module texts parsed without error before, in the compile cache (opened at the first module load). */
    final CodeLoader.ParseMarks parseMarks = new CodeLoader.ParseMarks(org.zludaj.ptx.cache.CompileCache::fromEnvironment);
    /** Memory the application got from the driver: device allocations, and page-locked host allocations (base -> size). */
    final java.util.concurrent.ConcurrentSkipListMap<Long, Long> deviceMemory = new java.util.concurrent.ConcurrentSkipListMap<>(),
            pinnedMemory = new java.util.concurrent.ConcurrentSkipListMap<>();

    /** Flags of page-locked host memory (cuMemHostAlloc's, cuMemHostRegister's), by base; managed allocations. */
    final java.util.concurrent.ConcurrentHashMap<Long, Integer> hostFlags = new java.util.concurrent.ConcurrentHashMap<>();
    final java.util.Set<Long> managedMemory = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Memory of graph allocation nodes still allocated (base -> size), and the most there was (per driver). */
    final java.util.concurrent.ConcurrentHashMap<Long, Long> graphMemory = new java.util.concurrent.ConcurrentHashMap<>();
    final java.util.concurrent.atomic.AtomicLong graphMemoryHigh = new java.util.concurrent.atomic.AtomicLong();

    /** Bases of cuMemHostRegister ranges (page-locked, but not allocated by the driver). */
    final java.util.Set<Long> registeredMemory = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** The allocation of {@code map} containing {@code address} as (base, size), or null. */
    static java.util.Map.Entry<Long, Long> allocationOf(java.util.NavigableMap<Long, Long> map, long address) {
        var e = map.floorEntry(address);
        return e != null && address < e.getKey() + Math.max(1, e.getValue()) ? e : null;
    }

    /** Whether {@code address} lies in an allocation of {@code map}. */
    static boolean within(java.util.NavigableMap<Long, Long> map, long address) {
        var e = map.floorEntry(address);
        return e != null && address < e.getKey() + Math.max(1, e.getValue());
    }
    /** Virtual memory: reserved ranges by base (cuMemAddressReserve), with their mappings. */
    final java.util.concurrent.ConcurrentSkipListMap<Long, VirtualMemoryApi.Reservation> reservations = new java.util.concurrent.ConcurrentSkipListMap<>();
    /** Live cuMemAllocAsync allocations by base, with their pool. */
    final java.util.concurrent.ConcurrentHashMap<Long, MemoryPool> poolAllocations = new java.util.concurrent.ConcurrentHashMap<>();
    /** Each device's default memory pool (made on first use) and current pool (cuDeviceSetMemPool). */
    private final MemoryPool[] defaultPools, currentPools;

    synchronized MemoryPool defaultPool(int device) {
        if (defaultPools[device] == null) {
            defaultPools[device] = new MemoryPool(this, device, true);
            defaultPools[device].handle = handles.add(defaultPools[device]);
        }
        return defaultPools[device];
    }

    synchronized MemoryPool currentPool(int device) {
        return currentPools[device] != null ? currentPools[device] : defaultPool(device);
    }

    synchronized void setCurrentPool(int device, MemoryPool pool) {
        currentPools[device] = pool;
    }

    /** A destroyed pool stops being its device's current pool. */
    synchronized void resetCurrentPool(MemoryPool pool) {
        if (currentPools[pool.device] == pool) currentPools[pool.device] = null;
    }

    final Context[] primary;
    private volatile boolean initialized;
    private final ThreadLocal<ArrayDeque<Context>> stack = ThreadLocal.withInitial(ArrayDeque::new);

    /** The error log of the process's driver (cuLogs*): failing calls write to it through {@link Api}. */
    final ErrorLog errorLog = new ErrorLog();

    public Driver(Backend backend) {
        this.backend = backend;
        Api.errorLog = errorLog;
        int n = backend.devices().size();
        primary = new Context[n];
        defaultPools = new MemoryPool[n];
        currentPools = new MemoryPool[n];
        for (int i = 0; i < n; i++) {
            primary[i] = new Context(i, true, 0);
            primary[i].handle = handles.add(primary[i]);
        }
    }

    /** The backend named by ZLUDA_BACKEND (default: host, the only one in this build). */
    public static Backend selectBackend() {
        String asked = System.getenv("ZLUDA_BACKEND");
        String name = asked == null || asked.isBlank() ? "default" : asked;
        String[] cc = System.getenv().getOrDefault("ZLUDA_CC", "8.6").split("\\.");
        int major = 8, minor = 6;
        try {
            major = Integer.parseInt(cc[0]);
            minor = cc.length > 1 ? Integer.parseInt(cc[1]) : 0;
        } catch (NumberFormatException e) {
            LOG.warn("ZLUDA_CC={} is not a compute capability like 8.6; using 8.6", System.getenv("ZLUDA_CC"));
        }
        if (name.equals("cuda")) {
            try {
                return org.zludaj.driver.backend.cuda.CudaBackend.open();
            } catch (CudaException | LinkageError e) {
                LOG.warn("cuda backend unavailable ({}); using host", e.getMessage());
            }
        } else if (name.equals("hip") || name.equals("default")) {
            // with a working HIP and a GPU we can target, hip is the default; otherwise the host, said once
            try {
                return org.zludaj.driver.backend.hip.HipBackend.open(new org.zludaj.driver.backend.hip.NativeHip(), major, minor, null);
            } catch (CudaException | LinkageError e) {
                if (name.equals("hip")) LOG.warn("hip backend unavailable ({}); using host", e.getMessage());
                else LOG.info("no AMD GPU through HIP ({}); using the host backend", e.getMessage());
            }
        } else if (!name.equals("host")) {
            LOG.warn("backend '{}' is not available in this build; using host", name);
        }
        LOG.info("backend host (compute capability {}.{})", major, minor);
        return new HostBackend(major, minor);
    }

    /** The ApiSet to install in Dispatch: one object per API group. */
    public ApiSet apis() {
        // groups in alphabetical order, as GenApi declares them
        return new ApiSet(new ContextApi(this), new DarkApi(this), new DeviceApi(this), new ErrorApi(), new EventApi(this),
                new GraphApi(this), new InitApi(this), new CuInteropApi() {}, new LaunchApi(this), new LibraryApi(this),
                new MemoryApi(this), new MemoryPoolApi(this), new MiscApi(this), new ModuleApi(this), new StreamApi(this),
                new TextureApi(this), new VirtualMemoryApi(this));
    }

    void initialize() {
        initialized = true;
    }

    boolean initialized() {
        return initialized;
    }

    /** What the CUDA libraries (cuBLAS, cuBLASLt) use of the driver. */
    public LibrarySupport librarySupport() {
        return new LibrarySupport(this);
    }

    void requireInit() throws CudaException {
        if (!initialized) throw new CudaException(CuResult.CUDA_ERROR_NOT_INITIALIZED, "cuInit has not been called");
    }

    int deviceCount() {
        return primary.length;
    }

    int checkDevice(int device) throws CudaException {
        requireInit();
        if (device < 0 || device >= primary.length)
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_DEVICE, "no device " + device);
        return device;
    }

    /** The calling thread's current context, or null. */
    Context current() {
        return stack.get().peekLast();
    }

    /**
     * The current context for a call that uses it (memory, modules, streams, events): after a kernel fault the
     * context is unusable, and every such call answers the fault's error (CUDA_ERROR_LAUNCH_FAILED,
     * CUDA_ERROR_ILLEGAL_ADDRESS ...) until the primary context is reset, as NVIDIA's driver does.
     */
    Context requireUsable() throws CudaException {
        Context c = requireCurrent();
        c.checkSticky();
        return c;
    }

    Context requireCurrent() throws CudaException {
        requireInit();
        Context c = current();
        if (c == null) throw new CudaException(CuResult.CUDA_ERROR_INVALID_CONTEXT, "no current context");
        if (c.destroyed) throw new CudaException(CuResult.CUDA_ERROR_CONTEXT_IS_DESTROYED, "the current context was destroyed");
        return c;
    }

    /** Contexts destroyed by cuCtxDestroy, by handle: a thread may still make one current (NVIDIA allows it). */
    final java.util.concurrent.ConcurrentHashMap<Long, Context> destroyedContexts = new java.util.concurrent.ConcurrentHashMap<>();

    /** A live context, or a destroyed one (for cuCtxSetCurrent/cuCtxPushCurrent, which accept those as NVIDIA does). */
    Context contextOrDestroyed(long handle) throws CudaException {
        Context dead = destroyedContexts.get(handle);
        return dead != null ? dead : handles.get(handle, Context.class);
    }

    /** The calling thread's context stack, to change it (the shim's kept answers are asked again). */
    ArrayDeque<Context> stack() {
        contextsChanged();
        return stack.get();
    }

    /**
     * A thread's context stack changed or a context was destroyed: the answers the shim keeps per thread
     * (cuCtxGetCurrent, cuCtxGetDevice, the launches it repeats) hold only while its epoch stays the same, so it changes.
     */
    void contextsChanged() {
        org.zludaj.nativ.ShimEpochs.contexts();
    }

    /**
     * A function's attributes changed or a module or library was unloaded: the occupancies and launches the shim keeps
     * (shim/memo.c, shim/launch.c) hold only while the same epoch does.
     */
    void functionsChanged() {
        org.zludaj.nativ.ShimEpochs.contexts();
    }

    /** A context argument: 0 means the current one. */
    Context context(long handle) throws CudaException {
        requireInit();
        return handle == 0 ? requireCurrent() : handles.get(handle, Context.class);
    }

    List<org.zludaj.driver.backend.Device> devices() {
        return backend.devices();
    }
}
