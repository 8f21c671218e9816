package org.zludaj.driver;

import org.zludaj.driver.backend.Backend;

/** A CUkernel, and also the CUfunction of it: cudart passes CUkernel handles where CUfunction is expected. */
public final class Kernel {
    final Library library;
    final Backend.Program.Kernel code;

    Kernel(Library library, Backend.Program.Kernel code) {
        this.library = library;
        this.code = code;
    }
}
