package org.zludaj.nativ;

import java.io.File;

/**
 * The host runtime of zluda-native (libzluda_rt.so): raw memory access for the driver, and the grid launcher of
 * the host backend. Addresses are plain {@code long}s. The library is found in {@code zluda.native.dir} (set by
 * the shim to the distribution's lib/, and by the build for tests). Single values and small copies are read and
 * written in Java (sun.misc.Unsafe, compiled to plain loads and stores), the driver's most frequent memory accesses
 * (results written through the application's pointers, launch arguments): a JNI call each cost 10-20 ns more.
 */
public final class HostRuntime {
    private HostRuntime() {}

    public static final String LIBRARY = "libzluda_rt.so";

    static {
        String dir = System.getProperty("zluda.native.dir");
        if (dir == null) throw new UnsatisfiedLinkError("system property zluda.native.dir is not set");
        System.load(new File(dir, LIBRARY).getAbsolutePath());
    }

    /** Aligned allocation; 0 when out of memory. */
    public static native long allocate(long size, long alignment);

    /**
     * Moves the backend BLAS's state epoch before the JVM changes what a GEMM the shim repeats without it depends on
     * (rt/blascall.c, shim/blas.c): direct calls offered under an older epoch are refused from then on. The new epoch.
     */
    public static native long blasStateChanged();

    /** The backend BLAS's state epoch now (what an offer of a direct GEMM carries). */
    public static native long blasEpoch();

    public static native void release(long address);

    private static final sun.misc.Unsafe U = unsafe();

    private static sun.misc.Unsafe unsafe() {
        try {
            java.lang.reflect.Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            return (sun.misc.Unsafe) f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Copies up to this many bytes in Java; larger copies are the C library's memmove. */
    private static final long SMALL_COPY = 256;

    /** memmove. */
    public static void copy(long dst, long src, long bytes) {
        if (bytes <= SMALL_COPY) U.copyMemory(src, dst, bytes);  // overlapping ranges too (conjoint copy)
        else memmove(dst, src, bytes);
    }

    private static native void memmove(long dst, long src, long bytes);

    public static native void fill8(long dst, int value, long count);

    public static native void fill16(long dst, int value, long count);

    public static native void fill32(long dst, int value, long count);

    public static long getLong(long address) {
        return U.getLong(address);
    }

    public static int getInt(long address) {
        return U.getInt(address);
    }

    /** Whether {@code bytes} bytes at {@code address} can be read (no fault where they cannot). */
    public static native boolean readable(long address, long bytes);

    public static void putLong(long address, long value) {
        U.putLong(address, value);
    }

    /** A store other threads see in order (a pointer the shim reads with acquire semantics). */
    public static void putLongVolatile(long address, long value) {
        U.putLongVolatile(null, address, value);
    }

    public static void putInt(long address, int value) {
        U.putInt(address, value);
    }

    public static native void read(long address, byte[] dst, int offset, int length);

    public static native void write(long address, byte[] src, int offset, int length);

    public static native long strlen(long address);

    /** The calling thread's kernel thread id. */
    /** Virtual memory (rt/vmm.c): a reserved, inaccessible range aligned to {@code alignment}; -errno on failure. */
    public static native long vaReserve(long size, long alignment, long hint);

    /** Returns a reserved range to the system; 0 or errno. */
    public static native int vaFree(long address, long size);

    /** A physical allocation (a memfd) of {@code size} bytes; -errno on failure. */
    public static native int physicalCreate(long size);

    /** Drops the allocation's own reference; its pages live while mapped. */
    public static native void physicalClose(int fd);

    /** Maps {@code size} bytes of a physical allocation from {@code offset} at {@code address}, inaccessible; 0 or errno. */
    public static native int vaMap(long address, long size, int fd, long offset);

    /** Puts the reservation back over a mapped range; 0 or errno. */
    public static native int vaUnmap(long address, long size);

    /** Page protection from CUmemAccess_flags (0 none, 1 read, 3 read-write); 0 or errno. */
    public static native int vaProtect(long address, long size, int flags);

    public static native int threadId();

    /**
     * Runs a host-compiled kernel {@code void k(void **params, zluda_thread_ctx *ctx)} over the grid, to completion,
     * on the worker pool; with {@code fibers} every thread of a block is a fiber with a stack of {@code stack} bytes.
     * Returns 0, -1 when memory for the threads is lacking, -2 when a block deadlocked, -3 an assert, -4 a trap, -5 a
     * memory fault, -6 an arithmetic fault, -7 when a block's threads only polled memory for the kernel timeout, -8
     * when a block ran past the block time limit ({@link #blockTimeLimit}).
     */
    public static native int launch(long kernel, long params, int gridX, int gridY, int gridZ,
                                    int blockX, int blockY, int blockZ, long sharedBytes, int fibers, long stack);

    /**
     * A cooperative launch: every block on a thread of its own, all resident; {@code workspace} (zeroed) is what the
     * kernel reads from %envreg1:%envreg2. Same results as {@link #launch}.
     */
    public static native int launchCooperative(long kernel, long params, int gridX, int gridY, int gridZ,
                                               int blockX, int blockY, int blockZ, long sharedBytes, int fibers, long stack, long workspace);

    /** CPU seconds one block may run before its launch fails (ZLUDA_BLOCK_TIME_LIMIT, default 300); 0: no limit. */
    public static native double blockTimeLimit();

    /** Calls an application's {@code void cb(CUstream, CUresult, void *userData)}. */
    public static native void callStreamCallback(long callback, long stream, int status, long userData);

    /** Calls an application's {@code void fn(void *userData)}. */
    public static native void callHostFunction(long function, long userData);

    /**
     * Calls {@code void function(const int64_t *words)} with a copy of {@code words} (at most 128) on the C stack: the
     * shim's offers (shim/launch.c, copy.c, blas.c), with no native allocation; more words are not passed (no call).
     */
    public static native void callWithWords(long function, long[] words);

    /** Calls a CUlogsCallback(userData, level, message, length) with a NUL-terminated copy of {@code message}. */
    public static native void callLogCallback(long function, long userData, int level, byte[] message);

    /** Calls a CUoccupancyB2DSize function: {@code size_t fn(int blockSize)}. */
    public static native long callBlockSizeToSharedBytes(long function, int blockSize);

    /** Reads the NUL-terminated string at {@code address} (UTF-8). */
    public static String string(long address) {
        int n = (int) strlen(address);
        byte[] b = new byte[n];
        read(address, b, 0, n);
        return new String(b, java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Copies {@code length} bytes at {@code address} into a new array. */
    public static byte[] bytes(long address, int length) {
        byte[] b = new byte[length];
        read(address, b, 0, length);
        return b;
    }

    /** The AMD lowering's buffered device printf run on the host: prints and empties a buffer; failed asserts << 32 | lines. */
    public static native long printfDrain(long buffer);
}
