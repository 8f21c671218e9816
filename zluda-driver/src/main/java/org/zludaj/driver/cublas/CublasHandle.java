package org.zludaj.driver.cublas;

import org.zludaj.driver.Context;
import org.zludaj.driver.backend.Blas;

/** A cublasHandle_t: the context it was created in, its stream, modes and workspace, and the backend's BLAS. */
final class CublasHandle {
    static final int POINTER_MODE_HOST = 0, POINTER_MODE_DEVICE = 1;

    final Context context;
    final Blas blas;
    volatile long stream;
    volatile int pointerMode = POINTER_MODE_HOST;
    volatile int mathMode;
    volatile int atomicsMode;
    volatile int emulationStrategy;
    volatile int smCountTarget;
    volatile long workspace, workspaceBytes;

    CublasHandle(Context context, Blas blas) {
        this.context = context;
        this.blas = blas;
    }
}
