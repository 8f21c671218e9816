package org.zludaj.api;

/**
 * The arguments of a call from the shim, read from the shim's array in native memory (the generated Dispatch classes'
 * {@code callRaw}). One JNI call with two arguments and these reads cost a third of a JNI call passing sixteen or more
 * arguments (67 against 160-170 ns on the development machine, JDK 17: the JVM pushes each argument of a call from
 * native code one by one).
 */
public final class RawArgs {
    private RawArgs() {}

    /** Argument {@code i} of the shim's array at {@code args}. */
    public static long get(long args, int i) {
        return org.zludaj.nativ.HostRuntime.getLong(args + 8L * i);
    }
}
