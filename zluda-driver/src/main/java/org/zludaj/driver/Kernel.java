package org.zludaj.driver;

import org.zludaj.driver.backend.Backend;
/** A CUkernel, and also the CUfunction of it: cudart passes CUkernel handles where CUfunction is expected. */
public final class Kernel {
    /** What a block may use without opting in (cuFuncSetAttribute), as on NVIDIA. */
    static final int DEFAULT_SHARED = 48 * 1024;

    final Library library;
    final Backend.Program.Kernel code;
    /** CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: the dynamic shared memory a launch may ask for. */
    volatile int maxDynamicShared;
    /** CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT (-1: no preference). */
    volatile int carveout = -1;
    /** The launch state of the first launch API (cuFuncSetBlockShape, cuFuncSetSharedSize, cuParamSet*): block, shared bytes, parameters. */
    final int[] legacyBlock = {1, 1, 1};
    volatile int legacyShared;
    /** The parameter space cuParamSet* write into (4 KiB, as NVIDIA's: writes past cuParamSetSize are accepted) and its launch size. */
    final byte[] legacyParams = new byte[4096];
    volatile int legacyParamSize;
    private final long staticShared;
    /** The block shape .reqntid requires and the threads .maxntid allows (null, 0: not declared), read once. */
    final int[] requiredBlock;
    final long maxBlockThreads;
    private long nativeName;
    private volatile ParamLayout paramLayout;
    private volatile String launchLabel;

    /** Where each argument goes in a launch's copy of them (LaunchApi.snapshot): pointers first, then the values. */
    record ParamLayout(long[] offsets, int[] sizes, long bytes) {}

    /** The parameters' layout, computed at the first launch. */
    ParamLayout paramLayout() {
        ParamLayout l = paramLayout;
        if (l == null) {
            var params = code.ptx().params();
            int n = params.size();
            long bytes = 8L * Math.max(1, n);
            long[] offsets = new long[n];
            int[] sizes = new int[n];
            for (int i = 0; i < n; i++) {
                bytes = (bytes + 15) & ~15L;
                offsets[i] = bytes;
                sizes[i] = (int) params.get(i).size();
                bytes += Math.max(1, sizes[i]);
            }
            paramLayout = l = new ParamLayout(offsets, sizes, bytes);
        }
        return l;
    }

    /** "cuLaunchKernel NAME", what a launch's stream work is called in messages. */
    /** The kind of a graph node that launches this kernel ("kernel NAME"), made once. */
    String nodeKind() {
        String s = nodeKind;
        if (s == null) nodeKind = s = "kernel " + code.name();
        return s;
    }

    private volatile String nodeKind;

    String launchLabel() {
        String s = launchLabel;
        if (s == null) launchLabel = s = "cuLaunchKernel " + code.name();
        return s;
    }

    /** The kernel's name as a C string owned by the driver (cuFuncGetName, cuKernelGetName). */
    synchronized long nativeName() {
        if (nativeName == 0) {
            byte[] b = (code.name() + "\0").getBytes(java.nio.charset.StandardCharsets.UTF_8);
            nativeName = org.zludaj.nativ.HostRuntime.allocate(b.length, 16);
            org.zludaj.nativ.HostRuntime.write(nativeName, b, 0, b.length);
        }
        return nativeName;
    }

    Kernel(Library library, Backend.Program.Kernel code) {
        this.library = library;
        this.code = code;
        this.staticShared = computeStaticShared();
        int[] most = code.ptx() == null ? null : code.ptx().threads(".maxntid");
        this.requiredBlock = code.ptx() == null ? null : code.ptx().threads(".reqntid");
        this.maxBlockThreads = most == null ? 0 : (long) most[0] * most[1] * most[2];
        this.maxDynamicShared = (int) Math.max(0, DEFAULT_SHARED - staticShared);
    }

    long staticShared() {
        return staticShared;
    }

    /**
     * The static shared memory of this kernel as NVIDIA counts it: its own {@code .shared} variables and the module's
     * (not those of the module's other kernels, which the host backend's shared window also holds).
     */
    private long computeStaticShared() {
        long bytes = 0;
        if (library != null && library.ptx != null)
            for (var v : library.ptx.globals()) bytes = shared(v, bytes);
        if (code.ptx() != null && code.ptx().body() != null) bytes = shared(code.ptx().body(), bytes);
        return bytes;
    }

    private static long shared(java.util.List<org.zludaj.ptx.model.Statement> body, long bytes) {
        for (var s : body) {
            if (s instanceof org.zludaj.ptx.model.Statement.Declaration dcl) for (var v : dcl.variables()) bytes = shared(v, bytes);
            else if (s instanceof org.zludaj.ptx.model.Statement.Block b) bytes = shared(b.statements(), bytes);
        }
        return bytes;
    }

    private static long shared(org.zludaj.ptx.model.Variable v, long bytes) {
        if (v.space() != org.zludaj.ptx.model.StateSpace.SHARED || v.size() == 0) return bytes;
        long align = Math.max(1, v.align() > 0 ? v.align() : v.elementSize());
        return (bytes + align - 1) / align * align + v.size();
    }
}
