package org.zludaj.driver;

import org.zludaj.api.CuModuleApi;
import org.zludaj.api.CuResult;
import org.zludaj.nativ.HostRuntime;

/** Modules (cuModule*): PTX text or fatbins loaded into the current context. */
final class ModuleApi implements CuModuleApi {
    private final Driver d;

    ModuleApi(Driver d) {
        this.d = d;
    }

    @Override
    public int cuModuleLoadData(long module, long image) {
        return Api.call("cuModuleLoadData", () -> {
            Mem.nonNull(module, "module");
            d.requireCurrent();
            HostRuntime.putLong(module, CodeLoader.register(d, CodeLoader.load(d, image, true)));
        });
    }

    @Override
    public int cuModuleLoadDataEx(long module, long image, int numOptions, long options, long optionValues) {
        return Api.call("cuModuleLoadDataEx", () -> {
            Mem.nonNull(module, "module");
            if (numOptions < 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "negative option count");
            JitOptions jit = JitOptions.read(numOptions, options, optionValues);
            d.requireCurrent();
            HostRuntime.putLong(module, CodeLoader.register(d, load(image, jit)));
        });
    }

    /** Loads a module, reporting into the JIT log buffers. */
    Library load(long image, JitOptions jit) throws CudaException {
        try {
            Library lib = CodeLoader.load(d, image, true);
            jit.info("ZLUDA-J: " + lib.kernelNames().size() + " kernels for " + d.backend.name());
            return lib;
        } catch (CudaException e) {
            jit.error(e.getMessage());
            throw e;
        }
    }

    @Override
    public int cuModuleUnload(long hmod) {
        return Api.call("cuModuleUnload", () -> CodeLoader.unload(d, hmod));
    }

    @Override
    public int cuModuleGetFunction(long hfunc, long hmod, long name) {
        return Api.call("cuModuleGetFunction", () -> {
            Mem.nonNull(hfunc, "hfunc");
            Library lib = d.handles.get(hmod, Library.class);
            HostRuntime.putLong(hfunc, CodeLoader.kernel(d, lib, Mem.string(name, "name")));
        });
    }

    @Override
    public int cuModuleGetLoadingMode(long mode) {
        return Api.call("cuModuleGetLoadingMode", () -> {
            boolean eager = "EAGER".equalsIgnoreCase(System.getenv("CUDA_MODULE_LOADING"));
            Mem.putInt(mode, eager ? 1 : 2, "mode");  // CU_MODULE_EAGER_LOADING = 1, CU_MODULE_LAZY_LOADING = 2
        });
    }

    @Override
    public int cuModuleGetGlobal_v2(long dptr, long bytes, long hmod, long name) {
        return Api.call("cuModuleGetGlobal", () -> {
            CodeLoader.global(d.handles.get(hmod, Library.class), Mem.string(name, "name"), dptr, bytes);
        });
    }

    @Override
    public int cuModuleGetFunctionCount(long count, long mod) {
        return Api.call("cuModuleGetFunctionCount", () -> Mem.putInt(count, d.handles.get(mod, Library.class).kernelNames().size(), "count"));
    }

    @Override
    public int cuModuleEnumerateFunctions(long functions, int numFunctions, long mod) {
        return Api.call("cuModuleEnumerateFunctions", () -> LibraryApi.enumerate(d, functions, numFunctions, d.handles.get(mod, Library.class)));
    }
}
