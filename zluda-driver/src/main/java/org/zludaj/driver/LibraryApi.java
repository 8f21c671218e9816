package org.zludaj.driver;

import org.zludaj.api.CuLibraryApi;
import org.zludaj.api.CuResult;
import org.zludaj.nativ.HostRuntime;

/** Libraries and kernels (cuLibrary*, cuKernel*): what cudart 12/13 loads every fatbin through. */
final class LibraryApi implements CuLibraryApi {
    private final Driver d;

    LibraryApi(Driver d) {
        this.d = d;
    }

    @Override
    public int cuLibraryLoadData(long library, long code, long jitOptions, long jitOptionsValues, int numJitOptions,
                                 long libraryOptions, long libraryOptionValues, int numLibraryOptions) {
        return Api.call("cuLibraryLoadData", () -> {
            Mem.nonNull(library, "library");
            d.requireInit();
            if (numJitOptions < 0 || numLibraryOptions < 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "negative option count");
            JitOptions jit = JitOptions.read(numJitOptions, jitOptions, jitOptionsValues);
            Library lib;
            try {
                lib = CodeLoader.load(d, code, false);
            } catch (CudaException e) {
                jit.error(e.getMessage());
                throw e;
            }
            HostRuntime.putLong(library, CodeLoader.register(d, lib));
        });
    }

    @Override
    public int cuLibraryLoadFromFile(long library, long fileName, long jitOptions, long jitOptionsValues, int numJitOptions,
                                     long libraryOptions, long libraryOptionValues, int numLibraryOptions) {
        return Api.call("cuLibraryLoadFromFile", () -> {
            Mem.nonNull(library, "library");
            String path = Mem.string(fileName, "fileName");
            d.requireInit();
            if (numJitOptions < 0 || numLibraryOptions < 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "negative option count");
            JitOptions jit = JitOptions.read(numJitOptions, jitOptions, jitOptionsValues);
            Library lib;
            try {
                lib = CodeLoader.loadFile(d, path, false);
            } catch (CudaException e) {
                jit.error(e.getMessage());
                throw e;
            }
            HostRuntime.putLong(library, CodeLoader.register(d, lib));
        });
    }

    @Override
    public int cuKernelGetParamInfo(long kernel, long paramIndex, long paramOffset, long paramSize) {
        return Api.call("cuKernelGetParamInfo", () -> LaunchApi.paramInfo(d.handles.get(kernel, Kernel.class), paramIndex, paramOffset, paramSize));
    }

    /** A preference only (as cuFuncSetCacheConfig): checked and accepted. */
    @Override
    public int cuKernelSetCacheConfig(long kernel, int config, int dev) {
        return Api.call("cuKernelSetCacheConfig", () -> {
            d.checkDevice(dev);
            d.handles.get(kernel, Kernel.class);
            if (config < 0 || config > 3) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "cache config " + config);
        });
    }

    /** A {@code .global} variable of a library by name (managed variables are ordinary device-visible memory here). */
    @Override
    public int cuLibraryGetManaged(long dptr, long bytes, long library, long name) {
        return Api.call("cuLibraryGetManaged", () -> {
            CodeLoader.global(d.handles.get(library, Library.class), Mem.string(name, "name"), dptr, bytes);
        });
    }

    @Override
    public int cuLibraryUnload(long library) {
        return Api.call("cuLibraryUnload", () -> CodeLoader.unload(d, library));
    }

    @Override
    public int cuLibraryGetKernel(long pKernel, long library, long name) {
        return Api.call("cuLibraryGetKernel", () -> {
            Mem.nonNull(pKernel, "pKernel");
            Library lib = d.handles.get(library, Library.class);
            HostRuntime.putLong(pKernel, CodeLoader.kernel(d, lib, Mem.string(name, "name")));
        });
    }

    @Override
    public int cuLibraryGetModule(long pMod, long library) {
        return Api.call("cuLibraryGetModule", () -> {
            d.handles.get(library, Library.class);
            Mem.putLong(pMod, library, "pMod");  // a library serves as its own module
        });
    }

    @Override
    public int cuKernelGetFunction(long pFunc, long kernel) {
        return Api.call("cuKernelGetFunction", () -> {
            d.requireCurrent();
            d.handles.get(kernel, Kernel.class);
            Mem.putLong(pFunc, kernel, "pFunc");  // the CUkernel handle is also its CUfunction
        });
    }

    @Override
    public int cuLibraryGetGlobal(long dptr, long bytes, long library, long name) {
        return Api.call("cuLibraryGetGlobal", () -> {
            CodeLoader.global(d.handles.get(library, Library.class), Mem.string(name, "name"), dptr, bytes);
        });
    }

    @Override
    public int cuKernelGetAttribute(long pi, int attrib, long kernel, int dev) {
        return Api.call("cuKernelGetAttribute", () -> {
            d.checkDevice(dev);
            Mem.putInt(pi, LaunchApi.attribute(d, d.handles.get(kernel, Kernel.class), attrib), "pi");
        });
    }

    @Override
    public int cuKernelSetAttribute(int attrib, int val, long kernel, int dev) {
        return Api.call("cuKernelSetAttribute", () -> {
            d.checkDevice(dev);
            LaunchApi.setAttribute(d, d.handles.get(kernel, Kernel.class), attrib, val);
        });
    }

    @Override
    public int cuKernelGetName(long name, long hfunc) {
        return Api.call("cuKernelGetName", () -> Mem.putLong(name, d.handles.get(hfunc, Kernel.class).nativeName(), "name"));
    }

    @Override
    public int cuLibraryGetKernelCount(long count, long lib) {
        return Api.call("cuLibraryGetKernelCount", () -> Mem.putInt(count, d.handles.get(lib, Library.class).kernelNames().size(), "count"));
    }

    @Override
    public int cuLibraryEnumerateKernels(long kernels, int numKernels, long lib) {
        return Api.call("cuLibraryEnumerateKernels", () -> enumerate(d, kernels, numKernels, d.handles.get(lib, Library.class)));
    }

    /** Writes the handles of a library's kernels; numKernels must be its kernel count, as NVIDIA requires. */
    static void enumerate(Driver d, long out, int n, Library lib) throws CudaException {
        Mem.nonNull(out, "kernels");
        var names = lib.kernelNames();
        if (n != names.size()) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, n + " slots for " + names.size() + " kernels");
        for (int i = 0; i < n; i++) HostRuntime.putLong(out + 8L * i, CodeLoader.kernel(d, lib, names.get(i)));
    }
}
