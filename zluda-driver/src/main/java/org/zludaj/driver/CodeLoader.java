package org.zludaj.driver;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zludaj.api.CuResult;
import org.zludaj.driver.fatbin.Fatbin;
import org.zludaj.nativ.HostRuntime;
import org.zludaj.ptx.Ptx;

/**
 * What cuModuleLoadData / cuLibraryLoadData receive: a fatbin wrapper, a fatbin container, a cubin ELF or PTX text.
 * Fatbins give PTX entries; the one for the highest SM that parses is compiled (ZLUDA-J never runs NVIDIA's SASS).
 */
final class CodeLoader {
    private CodeLoader() {}

    private static final Logger LOG = LoggerFactory.getLogger(CodeLoader.class);

    static Library load(Driver d, long image, boolean module) throws CudaException {
        Mem.nonNull(image, "image");
        int magic = ByteBuffer.wrap(HostRuntime.bytes(image, 4)).order(ByteOrder.LITTLE_ENDIAN).getInt();
        List<Fatbin.Entry> entries;
        String origin;
        try {
            if (magic == Fatbin.WRAPPER_MAGIC) {
                entries = Fatbin.fromWrapper(HostRuntime::bytes, image);
                origin = "fatbin@0x" + Long.toHexString(image);
            } else if (magic == Fatbin.CONTAINER_MAGIC) {
                entries = Fatbin.fromContainer(HostRuntime::bytes, image);
                origin = "fatbin@0x" + Long.toHexString(image);
            } else if (magic == Fatbin.ELF_MAGIC) {
                throw new CudaException(CuResult.CUDA_ERROR_NO_BINARY_FOR_GPU,
                        "a cubin (NVIDIA machine code) cannot run here: ZLUDA-J needs PTX");
            } else {
                String text = HostRuntime.string(image);
                // NVIDIA: text without a .version directive is no image at all (INVALID_IMAGE), not bad PTX
                if (!text.contains(".version"))
                    throw new CudaException(CuResult.CUDA_ERROR_INVALID_IMAGE, "neither a fatbin, a cubin nor PTX text (no .version directive)");
                return compile(d, List.of(text), "ptx@0x" + Long.toHexString(image), module);
            }
        } catch (Fatbin.FatbinException e) {
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_IMAGE, e.getMessage());
        }
        List<Fatbin.Entry> ptx = new ArrayList<>(entries.stream().filter(Fatbin.Entry::isPtx).toList());
        if (ptx.isEmpty()) throw new CudaException(CuResult.CUDA_ERROR_NO_BINARY_FOR_GPU, origin + " holds no PTX");
        ptx.sort(Comparator.comparingInt(Fatbin.Entry::smVersion).reversed());
        return compile(d, ptx.stream().map(Fatbin.Entry::text).toList(), origin, module);
    }

    /** Compiles the first candidate PTX that reads without error; otherwise INVALID_PTX with every diagnostic. */
    private static Library compile(Driver d, List<String> candidates, String origin, boolean module) throws CudaException {
        Ptx.Parsed first = null;
        for (String text : candidates) {
            Ptx.Parsed p = Ptx.parseLenient(origin, text);
            if (p.ok()) return new Library(p.module(), d.backend.load(0, p.module()), module);
            if (first == null) first = p;
        }
        LOG.error("PTX of {} has errors (functions {}):\n{}", origin, first.failedFunctions(), first.log());
        throw new CudaException(CuResult.CUDA_ERROR_INVALID_PTX, first.log());
    }

    /** Gives a loaded library its handle. */
    static long register(Driver d, Library lib) {
        lib.handle = d.handles.add(lib);
        return lib.handle;
    }

    /** The kernel {@code name} of a library, with a stable handle. */
    static long kernel(Driver d, Library lib, String name) throws CudaException {
        Long h = lib.kernels.get(name);
        if (h != null) return h;
        var code = lib.program.kernel(name);
        if (code == null) throw new CudaException(CuResult.CUDA_ERROR_NOT_FOUND, "no kernel named " + name);
        synchronized (lib) {
            return lib.kernels.computeIfAbsent(name, n -> d.handles.add(new Kernel(lib, code)));
        }
    }

    /** cuModuleGetGlobal / cuLibraryGetGlobal: the variable's address and size; either output may be NULL. */
    static void global(Library lib, String name, long dptr, long bytes) throws CudaException {
        var g = lib.program.global(name);
        if (g == null) throw new CudaException(CuResult.CUDA_ERROR_NOT_FOUND, "no module-scope variable named " + name);
        if (dptr != 0) HostRuntime.putLong(dptr, g.address());
        if (bytes != 0) HostRuntime.putLong(bytes, g.bytes());
    }

    /** cuModuleUnload / cuLibraryUnload: the handle and those of its kernels become invalid. */
    static void unload(Driver d, long handle) throws CudaException {
        Library lib = d.handles.get(handle, Library.class);
        Context c = d.current();
        if (c != null) c.drain();  // launches still queued may use its code
        lib.kernels.values().forEach(d.handles::remove);
        d.handles.remove(handle);
    }
}
