package org.zludaj.driver.backend.hip;

/**
 * rocBLAS as the hip backend's BLAS uses it, as a table: {@link NativeRocblas} calls AMD's library (opened at run time,
 * rt/hip.c), tests put a recording fake in its place. {@link #call} takes the function's name and its arguments as
 * integers or pointers, an argument {@code RuntimeBlas.SLOT | i} standing for the address of slots[2i] (16 bytes the
 * call reads and writes); it returns the rocblas_status.
 */
public interface Rocblas {
    /** Opens the library: null when it is there, else the reason. */
    String open();

    int call(String function, long[] args, long[] slots);

    /** The address of {@code function} for calls the shim makes without the JVM (shim/blas.c); 0: none (fakes). */
    default long address(String function) {
        return 0;
    }

    /** The backend's C function that makes such a call (rt/hip.c direct_rocblas); 0: none. */
    default long directCall() {
        return 0;
    }
}
