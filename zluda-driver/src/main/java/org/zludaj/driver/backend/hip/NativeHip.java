package org.zludaj.driver.backend.hip;

import java.nio.charset.StandardCharsets;
import org.zludaj.nativ.HipRuntime;

/** The real HIP runtime, through rt/hip.c. */
public final class NativeHip implements Hip {
    private String library;

    /** The library that was opened (after {@link #open}). */
    public String library() {
        return library;
    }

    @Override
    public String open() {
        byte[] msg = new byte[512];
        int r = HipRuntime.open(msg);
        String text = new String(msg, StandardCharsets.UTF_8).trim();
        if (r != 0) return text;
        library = text;
        return null;
    }

    @Override public int init(int[] count) { return HipRuntime.init(count); }
    @Override public int setDevice(int device) { return HipRuntime.setDevice(device); }
    @Override public int attribute(int device, int hipAttribute, int[] out) { return HipRuntime.attribute(device, hipAttribute, out); }
    @Override public String name(int device) { return HipRuntime.name(device); }
    @Override public long totalMemory(int device) { return HipRuntime.totalMemory(device); }
    @Override public String archName(int device) { return HipRuntime.archName(device); }
    @Override public int alloc(int kind, long size, long[] out) { return HipRuntime.alloc(kind, size, out); }
    @Override public int free(int kind, long address) { return HipRuntime.free(kind, address); }
    @Override public int copy(long dst, long src, long bytes) { return HipRuntime.copy(dst, src, bytes); }
    @Override public int copy2D(long dst, long dpitch, long src, long spitch, long width, long height) {
        return HipRuntime.copy2D(dst, dpitch, src, spitch, width, height);
    }
    @Override public int fill(long dst, int elementBytes, int value, long count) { return HipRuntime.fill(dst, elementBytes, value, count); }
    @Override public int copyAsync(long dst, long src, long bytes, long stream) { return HipRuntime.copyAsync(dst, src, bytes, stream); }
    @Override public int fillAsync(long dst, int elementBytes, int value, long count, long stream) {
        return HipRuntime.fillAsync(dst, elementBytes, value, count, stream);
    }
    @Override public int moduleLoad(byte[] codeObject, long[] out) { return HipRuntime.moduleLoad(codeObject, out); }
    @Override public int function(long module, String name, long[] out) { return HipRuntime.function(module, name, out); }
    @Override public int global(long module, String name, long[] out) { return HipRuntime.global(module, name, out); }
    @Override public int launch(long f, int gx, int gy, int gz, int bx, int by, int bz, int shared, long params, long stream) {
        return HipRuntime.launch(f, gx, gy, gz, bx, by, bz, shared, params, stream);
    }
    @Override public long directLaunchFunction() { return HipRuntime.directLaunchFunction(); }
    @Override public boolean launchesSequences() { return true; }
    @Override public int launchSequence(long records, int count, long stream) { return HipRuntime.launchSequence(records, count, stream); }
    @Override public long directCopyFunction() { return HipRuntime.directCopyFunction(); }
    @Override public int launchCooperative(long f, int gx, int gy, int gz, int bx, int by, int bz, int shared, long params) {
        return HipRuntime.launchCooperative(f, gx, gy, gz, bx, by, bz, shared, params);
    }
    @Override public boolean hasCooperativeLaunch() { return HipRuntime.hasCooperativeLaunch(); }
    @Override public int occupancy(long f, int blockSize, long shared) { return HipRuntime.occupancy(f, blockSize, shared); }
    @Override public int functionAttribute(long f, int attribute) { return HipRuntime.functionAttribute(f, attribute); }
    @Override public int streamCreate(long[] out) { return HipRuntime.streamCreate(out); }
    @Override public int streamDestroy(long stream) { return HipRuntime.streamDestroy(stream); }
    @Override public int streamSynchronize(long stream) { return HipRuntime.streamSynchronize(stream); }
    @Override public int synchronize() { return HipRuntime.synchronize(); }
    @Override public int printfInit(long global, long buffer, long capacity) { return HipRuntime.printfInit(global, buffer, capacity); }
    @Override public long printfDrain(long buffer) { return HipRuntime.printfDrain(buffer); }
    @Override public boolean hasVirtualMemory() { return HipRuntime.hasVirtualMemory(); }
    @Override public int vmm(int op, int device, long a, long b, long c, long d, long[] out) { return HipRuntime.vmm(op, device, a, b, c, d, out); }
    @Override public int peer(int op, int device, int peer, int[] out) { return HipRuntime.peer(op, device, peer, out); }
}
