package org.zludaj.driver;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.zludaj.api.CuResult;
import org.zludaj.driver.backend.Backend;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxIndex;
import org.zludaj.ptx.model.PtxModule;

/**
 * A loaded CUlibrary or CUmodule. Compiled on demand: loading indexes the PTX and compiles only the module-scope
 * variables ({@link #program}); each kernel, with the functions it reaches, is compiled the first time it is looked
 * up (cudart does that at its first launch), beside the variables, which all kernels share. A module whose variables
 * hold function addresses is compiled whole at load ({@link #source} null).
 */
public final class Library {
    private static final org.zludaj.api.Log LOG = org.zludaj.api.Log.of(Library.class);

    /** Directives and module-scope variables (compiled on demand), or the whole module (compiled whole). */
    final PtxModule ptx;
    /** The variables (on demand) or the whole module (compiled whole). */
    final Backend.Program program;
    final boolean module;
    /** What its kernels are compiled from when compiled on demand, else null. */
    final Source source;
    /** The whole module when it was parsed at load (small modules: errors are reported by the load), else null. */
    private final PtxModule parsed;
    private final Backend backend;
    private final String origin;
    /** Kernels compiled so far, by name. */
    private final ConcurrentHashMap<String, Backend.Program.Kernel> compiled = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Object> locks = new ConcurrentHashMap<>();
    /** Kernel name -> handle, so a name always yields the same CUkernel. */
    final ConcurrentHashMap<String, Long> kernels = new ConcurrentHashMap<>();
    /** Its texture and surface references by name (cuModuleGetTexRef, cuModuleGetSurfRef). */
    final java.util.Map<String, TextureReference> references = new java.util.HashMap<>();
    /** The context a module (cuModuleLoad*) was loaded in (its reset or destruction unloads it); null for a library. */
    volatile Context owner;
    /** Its handle (cuFuncGetModule), set when the application receives it. */
    volatile long handle;

    /** A module compiled whole. */
    Library(PtxModule ptx, Backend.Program program, boolean module) {
        this(ptx, program, module, null, null, null, null);
    }

    /** A module compiled on demand: {@code variables} its directives and variables, loaded as {@code program}. */
    Library(PtxModule variables, Backend.Program program, boolean module, Source source, PtxModule parsed, Backend backend,
            String origin) {
        this.ptx = variables;
        this.program = program;
        this.module = module;
        this.source = source;
        this.parsed = parsed;
        this.backend = backend;
        this.origin = origin;
    }

    /**
     * What an on-demand module's kernels are compiled from: their names, the digest of the module's text (which, with a
     * kernel's name, finds its compiled unit: KernelUnits) and the module's index, which a module loaded by its record
     * (ModuleRecords) makes only when a kernel was not found compiled.
     */
    static final class Source {
        /** Makes the module's index (its text decompressed and indexed). */
        interface IndexMaker {
            PtxIndex make() throws CudaException;
        }

        private final List<String> kernels;
        private final java.util.Set<String> names;
        private volatile String digest;
        private volatile PtxIndex index;
        /** Dropped once the index is made (it holds the module's fatbin element, compressed and decompressed). */
        private IndexMaker make;

        /** A module read now: its index. */
        Source(PtxIndex index) {
            this(index.kernels(), null, null);
            this.index = index;
        }

        /** A module known by its record: its kernels, its text's digest, its index when needed. */
        Source(List<String> kernels, String digest, IndexMaker make) {
            this.kernels = List.copyOf(kernels);
            this.names = new java.util.HashSet<>(kernels);
            this.digest = digest;
            this.make = make;
        }

        List<String> kernels() {
            return kernels;
        }

        boolean has(String kernel) {
            return names.contains(kernel);
        }

        /** The module's index, made now if it was not. */
        PtxIndex index() throws CudaException {
            PtxIndex i = index;
            if (i == null) {
                synchronized (this) {
                    if (index == null) {
                        index = make.make();
                        make = null;
                    }
                    i = index;
                }
            }
            return i;
        }

        /** The digest of the module's text (CompileCache.textDigest). */
        String digest() throws CudaException {
            String d = digest;
            if (d == null) digest = d = index().digest();
            return d;
        }
    }

    /** The names of its kernels (.entry functions with a body), in module order. */
    List<String> kernelNames() {
        if (source != null) return source.kernels();
        return ptx.functions().stream().filter(f -> f.entry() && f.isDefined()).map(org.zludaj.ptx.model.Function::name).toList();
    }

    /** The compiled kernel {@code name} (compiling it now if it was not yet), or null when the module has none. */
    Backend.Program.Kernel kernel(String name) throws CudaException {
        if (source == null) return program.kernel(name);
        Backend.Program.Kernel k = compiled.get(name);
        if (k != null || !source.has(name)) return k;
        synchronized (locks.computeIfAbsent(name, n -> new Object())) {  // one compilation per kernel, others in parallel
            k = compiled.get(name);
            if (k != null) return k;
            // parsed or not, a kernel's unit is loaded by its module's text: a module parsed whole at its first load is
            // read only declared at the next (CodeLoader's marks), whose kernels are then found without a parse
            Backend.Program unitProgram = backend.loadUnit(program, name, source.digest(),
                    () -> parsed != null ? unit(source.index(), parsed, name, origin) : unit(source.index().kernelText(name), name, origin));
            k = unitProgram.kernel(name);
            if (k == null) throw new CudaException(CuResult.CUDA_ERROR_NOT_FOUND, "kernel " + name + " was not compiled");
            compiled.put(name, k);
            return k;
        }
    }

    /**
     * The unit compiled for kernel {@code name}: the kernel and the functions it reaches, the module's variables
     * declared only; from the parsed module when there is one, else parsed from the index's text now.
     */
    static PtxModule unit(PtxIndex index, PtxModule parsed, String name, String origin) throws CudaException {
        if (parsed == null) return unit(index.kernelText(name), name, origin);
        return PtxIndex.asKernelUnit(PtxIndex.restrict(parsed, index.closure(name)), name);
    }

    /** Kernel {@code name}'s unit parsed from its text (the index's {@link PtxIndex#kernelText}). */
    static PtxModule unit(String text, String name, String origin) throws CudaException {
        Ptx.Parsed p = Ptx.parseLenient(origin, text);
        if (!p.ok()) {
            LOG.error("kernel {} of {} has errors in its PTX:\n{}", name, origin, p.log());
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_PTX, "kernel " + name + ": " + p.log());
        }
        return PtxIndex.asKernelUnit(p.module(), name);
    }

    /** CUDA_MODULE_LOADING=EAGER: every kernel now, in parallel on all cores. */
    void compileAll() throws CudaException {
        if (source == null) return;
        CudaException[] first = new CudaException[1];
        kernelNames().parallelStream().forEach(n -> {
            try {
                kernel(n);
            } catch (CudaException e) {
                synchronized (first) {
                    if (first[0] == null) first[0] = e;
                }
            }
        });
        if (first[0] != null) throw first[0];
    }
}
