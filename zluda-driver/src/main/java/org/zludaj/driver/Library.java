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
    /** Its handle (cuFuncGetModule), set when the application receives it. */
    volatile long handle;

    /** The names of its kernels (.entry functions with a body), in module order. */
    java.util.List<String> kernelNames() {
        return ptx.functions().stream().filter(f -> f.entry() && f.isDefined()).map(org.zludaj.ptx.model.Function::name).toList();
    }

    Library(PtxModule ptx, Backend.Program program, boolean module) {
        this.ptx = ptx;
        this.program = program;
        this.module = module;
    }
}
