package org.zludaj.nativ;

/**
 * AMD's code object manager (libamd_comgr), opened at run time by rt/comgr.c: links our relocatable AMD objects
 * into executables for the GPUs it knows (ZLUDA_CODEOBJECT). Lives in libzluda_rt.so beside {@link HostRuntime}.
 */
public final class Comgr {
    private Comgr() {}

    static {
        HostRuntime.threadId();  // loads libzluda_rt.so
    }

    /** Opens the library: 0 with "file major.minor" in {@code msg}, or -1 with the reason. */
    public static native int open(byte[] msg);

    /** The ISA names comgr knows, one per line (e.g. {@code amdgcn-amd-amdhsa--gfx1100}), or null if it cannot list them. */
    public static native String isas();

    /** Links a relocatable object for {@code isa}: the executable, or null with comgr's log in {@code log}. */
    public static native byte[] link(byte[] object, String isa, byte[] log);
}
