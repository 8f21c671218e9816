package org.zludaj.driver;

import java.util.concurrent.ConcurrentHashMap;
import org.zludaj.driver.backend.Backend;
import org.zludaj.ptx.model.PtxModule;

/** A loaded CUlibrary or CUmodule: its PTX and the backend's compiled program. */
public final class Library {
    final PtxModule ptx;
    final Backend.Program program;
    final boolean module;
    /** Kernel name -> handle, so a name always yields the same CUkernel. */
    final ConcurrentHashMap<String, Long> kernels = new ConcurrentHashMap<>();

    Library(PtxModule ptx, Backend.Program program, boolean module) {
        this.ptx = ptx;
        this.program = program;
        this.module = module;
    }
}
