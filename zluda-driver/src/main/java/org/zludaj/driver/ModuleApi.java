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
            d.requireUsable();
            HostRuntime.putLong(module, CodeLoader.register(d, CodeLoader.load(d, image, true)));
        });
    }

    @Override
    public int cuModuleLoadDataEx(long module, long image, int numOptions, long options, long optionValues) {
        return Api.call("cuModuleLoadDataEx", () -> {
            Mem.nonNull(module, "module");
            if (numOptions < 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "negative option count");
            JitOptions jit = JitOptions.read(numOptions, options, optionValues);
            d.requireUsable();
            HostRuntime.putLong(module, CodeLoader.register(d, load(image, jit)));
        });
    }

    @Override
    public int cuModuleLoad(long module, long fname) {
        return Api.call("cuModuleLoad", () -> {
            Mem.nonNull(module, "module");
            String path = Mem.string(fname, "fname");
            d.requireUsable();
            HostRuntime.putLong(module, CodeLoader.register(d, CodeLoader.loadFile(d, path, true)));
        });
    }

    /** A fatbin image (PTX text is taken too, as by cuModuleLoadData). */
    @Override
    public int cuModuleLoadFatBinary(long module, long fatCubin) {
        return Api.call("cuModuleLoadFatBinary", () -> {
            Mem.nonNull(module, "module");
            d.requireUsable();
            HostRuntime.putLong(module, CodeLoader.register(d, CodeLoader.load(d, fatCubin, true)));
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

    // ---- the JIT linker (cuLink*): PTX inputs linked into one module (Linker)

    private int linkCreate(int numOptions, long options, long optionValues, long stateOut) {
        return Api.call("cuLinkCreate", () -> {
            d.requireCurrent();
            Mem.nonNull(stateOut, "stateOut");
            if (numOptions < 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "negative option count");
            HostRuntime.putLong(stateOut, d.handles.add(new Linker(JitOptions.read(numOptions, options, optionValues))));
        });
    }

    @Override public int cuLinkCreate(int n, long options, long values, long stateOut) { return linkCreate(n, options, values, stateOut); }
    @Override public int cuLinkCreate_v2(int n, long options, long values, long stateOut) { return linkCreate(n, options, values, stateOut); }

    private int linkAddData(long state, int type, long data, long size, long name) {
        return Api.call("cuLinkAddData", () -> {
            Linker l = d.handles.get(state, Linker.class);
            Mem.nonNull(data, "data");
            if (size <= 0 || size > Integer.MAX_VALUE) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "size " + size);
            byte[] bytes = new byte[(int) size];
            HostRuntime.read(data, bytes, 0, bytes.length);
            l.add(type, bytes, name == 0 ? "input" : HostRuntime.string(name));
        });
    }

    @Override
    public int cuLinkAddData(long state, int type, long data, long size, long name, int n, long options, long values) {
        return linkAddData(state, type, data, size, name);
    }

    @Override
    public int cuLinkAddData_v2(long state, int type, long data, long size, long name, int n, long options, long values) {
        return linkAddData(state, type, data, size, name);
    }

    private int linkAddFile(long state, int type, long path) {
        return Api.call("cuLinkAddFile", () -> {
            Linker l = d.handles.get(state, Linker.class);
            String file = Mem.string(path, "path");
            byte[] bytes;
            try {
                bytes = java.nio.file.Files.readAllBytes(java.nio.file.Path.of(file));
            } catch (java.io.IOException | java.nio.file.InvalidPathException e) {
                throw new CudaException(CuResult.CUDA_ERROR_FILE_NOT_FOUND, "cannot read " + file + ": " + e.getMessage());
            }
            l.add(type, bytes, file);
        });
    }

    @Override public int cuLinkAddFile(long state, int type, long path, int n, long options, long values) { return linkAddFile(state, type, path); }
    @Override public int cuLinkAddFile_v2(long state, int type, long path, int n, long options, long values) { return linkAddFile(state, type, path); }

    @Override
    public int cuLinkComplete(long state, long cubinOut, long sizeOut) {
        return Api.call("cuLinkComplete", () -> {
            Linker l = d.handles.get(state, Linker.class);
            Mem.nonNull(cubinOut, "cubinOut");
            long[] image = l.complete();
            HostRuntime.putLong(cubinOut, image[0]);
            if (sizeOut != 0) HostRuntime.putLong(sizeOut, image[1]);
        });
    }

    @Override
    public int cuLinkDestroy(long state) {
        return Api.call("cuLinkDestroy", () -> {
            Linker l = d.handles.get(state, Linker.class);
            d.handles.remove(state);
            l.destroy();
        });
    }

    // ---- texture and surface references of a module (their functions: TextureApi)


    @Override
    public int cuModuleGetTexRef(long pTexRef, long hmod, long name) {
        return Api.call("cuModuleGetTexRef", () -> {
            Mem.nonNull(pTexRef, "pTexRef");
            Library lib = d.handles.get(hmod, Library.class);
            HostRuntime.putLong(pTexRef, TextureReference.of(d, lib, Mem.string(name, "name"), false).handle);
        });
    }

    @Override
    public int cuModuleGetSurfRef(long pSurfRef, long hmod, long name) {
        return Api.call("cuModuleGetSurfRef", () -> {
            Mem.nonNull(pSurfRef, "pSurfRef");
            Library lib = d.handles.get(hmod, Library.class);
            HostRuntime.putLong(pSurfRef, TextureReference.of(d, lib, Mem.string(name, "name"), true).handle);
        });
    }
}
