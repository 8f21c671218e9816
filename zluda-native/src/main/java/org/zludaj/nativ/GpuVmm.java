package org.zludaj.nativ;

/**
 * The operations of virtual memory management forwarded to a GPU runtime (rt/gpuvmm.h), as {@link NvidiaDriver#vmm}
 * and {@link HipRuntime#vmm} take them. The arguments a, b, c of each are named in rt/gpuvmm.h.
 */
public final class GpuVmm {
    private GpuVmm() {}

    /** a: option (0 minimum, 1 recommended) -> granularity. */
    public static final int GRANULARITY = 0;
    /** a: size -> allocation handle. */
    public static final int CREATE = 1;
    /** a: handle. */
    public static final int RELEASE = 2;
    /** a: size, b: alignment, c: address hint -> address. */
    public static final int RESERVE = 3;
    /** a: address, b: size. */
    public static final int ADDRESS_FREE = 4;
    /** a: address, b: size, c: offset, d: handle. */
    public static final int MAP = 5;
    /** a: address, b: size. */
    public static final int UNMAP = 6;
    /** a: address, b: size, c: CUmemAccess_flags (for the device given). */
    public static final int SET_ACCESS = 7;

    /** The names, for messages and logs. */
    public static String name(int op) {
        return switch (op) {
            case GRANULARITY -> "GetAllocationGranularity";
            case CREATE -> "Create";
            case RELEASE -> "Release";
            case RESERVE -> "AddressReserve";
            case ADDRESS_FREE -> "AddressFree";
            case MAP -> "Map";
            case UNMAP -> "Unmap";
            case SET_ACCESS -> "SetAccess";
            default -> "op " + op;
        };
    }
}
