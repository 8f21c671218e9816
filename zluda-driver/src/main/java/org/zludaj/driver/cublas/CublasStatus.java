package org.zludaj.driver.cublas;

import java.util.concurrent.ConcurrentHashMap;
import org.zludaj.nativ.HostRuntime;

/** cublasStatus_t: codes, and NVIDIA's names and strings (read from NVIDIA's libcublas.so.13, 13.1). */
public final class CublasStatus {
    private CublasStatus() {}

    public static final int SUCCESS = 0, NOT_INITIALIZED = 1, ALLOC_FAILED = 3, INVALID_VALUE = 7, ARCH_MISMATCH = 8,
            MAPPING_ERROR = 11, EXECUTION_FAILED = 13, INTERNAL_ERROR = 14, NOT_SUPPORTED = 15, LICENSE_ERROR = 16;

    public static String name(int status) {
        return switch (status) {
            case SUCCESS -> "CUBLAS_STATUS_SUCCESS";
            case NOT_INITIALIZED -> "CUBLAS_STATUS_NOT_INITIALIZED";
            case ALLOC_FAILED -> "CUBLAS_STATUS_ALLOC_FAILED";
            case INVALID_VALUE -> "CUBLAS_STATUS_INVALID_VALUE";
            case ARCH_MISMATCH -> "CUBLAS_STATUS_ARCH_MISMATCH";
            case MAPPING_ERROR -> "CUBLAS_STATUS_MAPPING_ERROR";
            case EXECUTION_FAILED -> "CUBLAS_STATUS_EXECUTION_FAILED";
            case INTERNAL_ERROR -> "CUBLAS_STATUS_INTERNAL_ERROR";
            case NOT_SUPPORTED -> "CUBLAS_STATUS_NOT_SUPPORTED";
            case LICENSE_ERROR -> "CUBLAS_STATUS_LICENSE_ERROR";
            default -> "unrecognized status";
        };
    }

    public static String string(int status) {
        return switch (status) {
            case SUCCESS -> "success";
            case NOT_INITIALIZED -> "the library was not initialized";
            case ALLOC_FAILED -> "the resource allocation failed";
            case INVALID_VALUE -> "an unsupported value or parameter was passed to the function";
            case ARCH_MISMATCH -> "the function requires an architectural feature absent from the device";
            case MAPPING_ERROR -> "an access to GPU memory space failed";
            case EXECUTION_FAILED -> "the function failed to launch on the GPU";
            case INTERNAL_ERROR -> "an internal operation failed";
            case NOT_SUPPORTED -> "the requested functionality is not supported";
            case LICENSE_ERROR -> "the license check failed";
            default -> "unrecognized status";
        };
    }

    private static final ConcurrentHashMap<String, Long> C_STRINGS = new ConcurrentHashMap<>();

    /** A NUL-terminated copy of {@code s} in native memory that lives as long as the process (returned to C callers). */
    static long cString(String s) {
        return C_STRINGS.computeIfAbsent(s, k -> {
            byte[] b = (k + "\0").getBytes(java.nio.charset.StandardCharsets.UTF_8);
            long p = HostRuntime.allocate(b.length, 16);
            HostRuntime.write(p, b, 0, b.length);
            return p;
        });
    }
}
