package org.zludaj.driver;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.zludaj.api.CuResult;
import org.zludaj.driver.backend.Backend;
import org.zludaj.driver.fatbin.Fatbin;
import org.zludaj.nativ.HostRuntime;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxIndex;
import org.zludaj.ptx.cache.CompileCache;
import org.zludaj.ptx.model.PtxModule;

/**
 * What cuModuleLoadData / cuLibraryLoadData receive: a fatbin wrapper, a fatbin container, a cubin ELF or PTX text.
 * Fatbins give PTX entries; the one for the highest SM that parses is compiled (ZLUDA-J never runs NVIDIA's SASS).
 */
final class CodeLoader {
    private CodeLoader() {}

    private static final org.zludaj.api.Log LOG = org.zludaj.api.Log.of(CodeLoader.class);

    /**
     * Loads a module or library from a file (cuModuleLoad, cuLibraryLoadFromFile): PTX text, a fatbin or a cubin, as
     * the file holds; a missing or unreadable file is CUDA_ERROR_FILE_NOT_FOUND, as NVIDIA answers.
     */
    static Library loadFile(Driver d, String path, boolean module) throws CudaException {
        byte[] bytes;
        try {
            bytes = java.nio.file.Files.readAllBytes(java.nio.file.Path.of(path));
        } catch (java.io.IOException | java.nio.file.InvalidPathException e) {
            throw new CudaException(CuResult.CUDA_ERROR_FILE_NOT_FOUND, "cannot read " + path + ": " + e.getMessage());
        }
        long buffer = HostRuntime.allocate(bytes.length + 16L, 16);
        if (buffer == 0) throw new CudaException(CuResult.CUDA_ERROR_OUT_OF_MEMORY, "reading " + path);
        try {
            HostRuntime.write(buffer, bytes, 0, bytes.length);
            HostRuntime.fill8(buffer + bytes.length, 0, 16);  // NUL-terminated, and at least a magic's worth of bytes
            return load(d, buffer, module);
        } finally {
            HostRuntime.release(buffer);
        }
    }

    static Library load(Driver d, long image, boolean module) throws CudaException {
        Mem.nonNull(image, "image");
        PtxWarmUp.stop();
        long t0 = System.nanoTime();
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
                String bad = cubinDefect(image);
                if (bad != null) throw new CudaException(CuResult.CUDA_ERROR_INVALID_IMAGE, "not a valid cubin: " + bad);
                throw new CudaException(CuResult.CUDA_ERROR_NO_BINARY_FOR_GPU,
                        "a cubin (NVIDIA machine code) cannot run here: ZLUDA-J needs PTX");
            } else {
                String text = HostRuntime.string(image);
                // NVIDIA: text without a .version directive is no image at all (INVALID_IMAGE), not bad PTX
                if (!text.contains(".version"))
                    throw new CudaException(CuResult.CUDA_ERROR_INVALID_IMAGE, "neither a fatbin, a cubin nor PTX text (no .version directive)");
                return compile(d, List.of(text), "ptx@0x" + Long.toHexString(image), module, null);
            }
        } catch (Fatbin.FatbinException e) {
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_IMAGE, e.getMessage());
        }
        List<Fatbin.Entry> ptx = new ArrayList<>(entries.stream().filter(Fatbin.Entry::isPtx).toList());
        if (ptx.isEmpty()) throw new CudaException(CuResult.CUDA_ERROR_NO_BINARY_FOR_GPU, origin + " holds no PTX");
        ptx.sort(preference(d.devices().isEmpty() ? 86 : d.devices().get(0).attribute(75) * 10 + d.devices().get(0).attribute(76)));
        // a module loaded before (one PTX image, compiled on demand): its record, without decompressing or indexing it
        Fatbin.Entry recorded = ptx.size() == 1 && d.backend.compilesOnDemand() ? ptx.get(0) : null;
        CompileCache cache = recorded != null ? d.parseMarks.cache() : null;
        if (cache != null) {
            Library lib = ModuleRecords.load(d, cache, recorded, origin, module);
            if (lib != null) return lib;
        }
        try {
            for (Fatbin.Entry e : ptx) e.decompressed();
        } catch (Fatbin.FatbinException e) {
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_IMAGE, e.getMessage());
        }
        List<String> texts = ptx.stream().map(Fatbin.Entry::text).toList();
        if (LOG.isDebugEnabled())
            LOG.debug("{}: {} PTX images of {} entries read and decompressed in {} ms", origin, ptx.size(), entries.size(), (System.nanoTime() - t0) / 1_000_000);
        return compile(d, texts, origin, module, cache != null ? recorded : null);
    }

    /**
     * The order in which a fatbin's PTX images are tried, for a device of compute capability {@code cc} (86 for 8.6):
     * as NVIDIA's driver chooses, the highest PTX target not above the device's first (a fatbin of compute_75 and
     * compute_90a PTX gives compute_75 on an 8.6 device, whose code never assumes Hopper); unlike NVIDIA's driver,
     * which refuses them, PTX only for newer targets comes after, lowest first (llama.cpp's release builds carry
     * compute_89 PTX only: it compiles here, and fails with its kernel's name where it uses what our compiler lacks).
     */
    static Comparator<Fatbin.Entry> preference(int cc) {
        return (a, b) -> {
            boolean fa = a.smVersion() <= cc, fb = b.smVersion() <= cc;
            if (fa != fb) return fa ? -1 : 1;
            return fa ? Integer.compare(b.smVersion(), a.smVersion()) : Integer.compare(a.smVersion(), b.smVersion());
        };
    }

    /**
     * What makes an ELF image that claims to be a cubin invalid (NVIDIA answers CUDA_ERROR_INVALID_IMAGE: another
     * machine's ELF, a truncated or corrupt one), or null for a well-formed cubin (which we cannot run: NO_BINARY_FOR_GPU).
     * The image comes without its size: every part is checked readable before it is read.
     */
    static String cubinDefect(long image) {
        if (!HostRuntime.readable(image, 64)) return "its ELF header cannot be read";
        ByteBuffer h = ByteBuffer.wrap(HostRuntime.bytes(image, 64)).order(ByteOrder.LITTLE_ENDIAN);
        if (h.get(4) != 2 || h.get(5) != 1) return "not a 64-bit little-endian ELF";
        if (h.getShort(18) != 190) return "ELF machine " + h.getShort(18) + " is not EM_CUDA (190)";
        long shoff = h.getLong(40);
        int shentsize = h.getShort(58) & 0xffff, shnum = h.getShort(60) & 0xffff, shstrndx = h.getShort(62) & 0xffff;
        if (shentsize != 64 || shnum == 0 || shstrndx >= shnum || shoff < 64 || shoff > (1L << 32))
            return "inconsistent section header table (offset " + shoff + ", " + shnum + " entries of " + shentsize + " bytes)";
        if (!HostRuntime.readable(image + shoff, 64L * shnum)) return "its section headers lie past the image";
        ByteBuffer sh = ByteBuffer.wrap(HostRuntime.bytes(image + shoff, 64 * shnum)).order(ByteOrder.LITTLE_ENDIAN);
        if (sh.getInt(0) != 0) return "section 0 is not empty";
        for (int i = 1; i < shnum; i++) {
            int type = sh.getInt(64 * i + 4);
            long offset = sh.getLong(64 * i + 24), size = sh.getLong(64 * i + 32);
            if (type == 0 && i == shstrndx) return "no section name table";
            if (type != 8 /* SHT_NOBITS */ && size > 0 && (offset < 64 || size > (1L << 32) || !HostRuntime.readable(image + offset, size)))
                return "section " + i + " lies past the image";
        }
        if (sh.getInt(64 * shstrndx + 4) != 3 /* SHT_STRTAB */) return "the section name table is not a string table";
        return null;
    }

    /** Modules up to this size are parsed whole at load, so that their errors are the load's, as with NVIDIA's driver. */
    static final int PARSE_AT_LOAD = Integer.getInteger("zluda.parseAtLoadBytes", 1 << 20);

    /**
     * Loads the first candidate PTX that reads without error; otherwise INVALID_PTX with every diagnostic. A module
     * is indexed and its variables compiled; kernels are compiled on demand (all at once, in parallel, with
     * CUDA_MODULE_LOADING=EAGER). Modules whose variables hold function addresses are compiled whole.
     */
    private static Library compile(Driver d, List<String> candidates, String origin, boolean module, Fatbin.Entry recordAs)
            throws CudaException {
        long t0 = System.nanoTime();
        Read r = read(candidates, origin, d.variableUnits, d.parseMarks);
        long t1 = System.nanoTime();
        if (r.whole() != null) return new Library(r.whole(), d.backend.load(0, r.whole()), module);
        if (!d.backend.compilesOnDemand()) {
            PtxModule whole = whole(r, candidates, origin);
            return new Library(whole, d.backend.load(0, whole), module);
        }
        // parsed or not, the variables unit is loaded by its text: a module parsed whole at its first load is found by its
        // text at the next (marked, it is then only declared), without parsing its variables again
        String variablesDigest = CompileCache.textDigest(r.index().variablesText());
        Backend.Program program = d.backend.loadVariables(0, r.declarations(), variablesDigest, () -> variables(r, origin, d.variableUnits));
        Library lib = new Library(r.declarations(), program, module, new Library.Source(r.index()), r.parsed(), d.backend, origin);
        // the next process loads it by its record (a small module parsed whole now without error would be read as a
        // large one there anyway: marked)
        if (recordAs != null) ModuleRecords.put(d.parseMarks.cache(), recordAs, r.index(), variablesDigest);
        if (LOG.isDebugEnabled())
            LOG.debug("{}: {} KB of PTX read ({}) in {} ms, its variables loaded in {} ms", origin, candidates.get(0).length() >> 10,
                    r.parsed() != null ? "parsed whole" : "indexed, variables declared", (t1 - t0) / 1_000_000, (System.nanoTime() - t1) / 1_000_000);
        if ("EAGER".equalsIgnoreCase(System.getenv("CUDA_MODULE_LOADING"))) lib.compileAll();
        return lib;
    }

    /**
     * A module as the loader sees it: its index, the whole module when parsed at load (small modules), its variables
     * unit when parsed (null where only {@code declarations} were: large and marked modules, see {@link #variables}),
     * the module-scope variables declared without their initializers (what the driver reads of them: names, spaces,
     * sizes), or (when variables hold function addresses) the whole module to compile as one.
     */
    record Read(PtxIndex index, PtxModule parsed, PtxModule variables, PtxModule whole, PtxModule declarations) {}

    /**
     * The variables unit of a read (directives and variables with their initializers), parsed now if the read only
     * declared them; {@code memo} (or null) gives texts parsed before.
     */
    static PtxModule variables(Read r, String origin, ParsedTexts memo) throws CudaException {
        if (r.variables() != null) return r.variables();
        String text = r.index().variablesText();
        Ptx.Parsed v = memo != null ? memo.parse(origin, text) : Ptx.parseLenient(origin, text);
        if (!v.ok()) {
            LOG.error("the module-scope variables of {} have errors:\n{}", origin, v.log());
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_PTX, v.log());
        }
        return v.module();
    }

    /** The whole module of a read (parsed now if the load only indexed it). */
    static PtxModule whole(Read r, List<String> candidates, String origin) throws CudaException {
        if (r.whole() != null) return r.whole();
        if (r.parsed() != null) return r.parsed();
        for (String text : candidates) {
            Ptx.Parsed p = Ptx.parseLenient(origin, text);
            if (p.ok()) return p.module();
        }
        throw new CudaException(CuResult.CUDA_ERROR_INVALID_PTX, origin + ": no candidate PTX parses");
    }

    /** Parsed PTX by its text, at most {@code capacity} texts (then emptied): a text parsed twice gives one model. */
    static final class ParsedTexts {
        private final int capacity;
        private final java.util.concurrent.ConcurrentHashMap<String, PtxModule> parsed = new java.util.concurrent.ConcurrentHashMap<>();

        ParsedTexts(int capacity) {
            this.capacity = capacity;
        }

        /** The text's module named {@code origin}, parsed now or taken from an earlier parse of the same text. */
        Ptx.Parsed parse(String origin, String text) {
            PtxModule m = parsed.get(text);
            if (m != null) return new Ptx.Parsed(renamed(m, origin), List.of(), java.util.Set.of());
            Ptx.Parsed p = Ptx.parseLenient(origin, text);
            if (p.ok()) {
                if (parsed.size() >= capacity) parsed.clear();
                parsed.put(text, p.module());
            }
            return p;
        }

        private static PtxModule renamed(PtxModule m, String name) {
            return new PtxModule(name, m.version(), m.targets(), m.addressSize(), m.globals(), m.functions());
        }
    }

    /**
     * The texts this compiler build has parsed without error before, marked in the compile cache (a one-byte entry
     * keyed by the build and the text): a small module, parsed whole at load only to report its errors there as
     * NVIDIA's driver does, needs no such parse again (ggml's modules of 0.1-1 MB took most of a cold process's 140 ms
     * per module load).
     * Without a cache (ZLUDA_CACHE=off) nothing is marked.
     */
    static final class ParseMarks {
        private static final byte[] MARK = {1};
        private volatile CompileCache cache;
        private volatile boolean opened;
        private final java.util.function.Supplier<CompileCache> open;

        ParseMarks(java.util.function.Supplier<CompileCache> open) {
            this.open = open;
        }

        /** The compile cache (opened at the first call), or null without one (ZLUDA_CACHE=off). */
        CompileCache cache() {
            if (!opened) {
                synchronized (this) {
                    if (!opened) {
                        cache = open.get();
                        opened = true;
                    }
                }
            }
            return cache;
        }

        private static String key(String text) {
            return CompileCache.key("parsed-without-error", org.zludaj.ptx.Build.ID, text);
        }

        boolean parsedBefore(String text) {
            CompileCache c = cache();
            return c != null && c.get(key(text)) != null;
        }

        void parsed(String text) {
            CompileCache c = cache();
            if (c != null) c.put(key(text), MARK);
        }
    }

    /** Reads the first candidate PTX that reads without error (as {@link #compile} and zluda precompile both do). */
    static Read read(List<String> candidates, String origin) throws CudaException {
        return read(candidates, origin, null, null);
    }

    /**
     * As above; {@code variableUnits} (or null) gives variables units parsed before from the same text, {@code marks}
     * (or null) the texts parsed without error before (read as large modules are: index and variables only).
     */
    static Read read(List<String> candidates, String origin, ParsedTexts variableUnits, ParseMarks marks) throws CudaException {
        Ptx.Parsed first = null;
        for (String text : candidates) {
            PtxIndex index = PtxIndex.of(text);
            boolean whole = index.variablesReferenceFunctions();
            boolean small = text.length() <= PARSE_AT_LOAD && (marks == null || !marks.parsedBefore(text));
            Ptx.Parsed p = small || whole ? Ptx.parseLenient(origin, text) : null;
            if (p != null && !p.ok()) {
                if (first == null) first = p;
                continue;
            }
            if (p != null && marks != null && text.length() <= PARSE_AT_LOAD) marks.parsed(text);
            if (whole) return new Read(index, p.module(), null, p.module(), p.module());
            if (p != null) {
                PtxModule variables = PtxIndex.restrict(p.module(), java.util.Set.of());
                return new Read(index, p.module(), variables, null, variables);
            }
            // the variables' declarations only: their initializers (ggml's 96 KB of tables) are parsed only if the
            // backend does not find the compiled variables unit by its text (Backend.loadVariables)
            String declarations = index.declarationsText();
            Ptx.Parsed v = variableUnits != null ? variableUnits.parse(origin, declarations) : Ptx.parseLenient(origin, declarations);
            if (!v.ok()) {
                if (first == null) first = v;
                continue;
            }
            return new Read(index, null, null, null, v.module());
        }
        LOG.error("PTX of {} has errors (functions {}):\n{}", origin, first.failedFunctions(), first.log());
        throw new CudaException(CuResult.CUDA_ERROR_INVALID_PTX, first.log());
    }

    /** Gives a loaded library its handle. */
    static long register(Driver d, Library lib) {
        if (lib.module) lib.owner = d.current();
        lib.handle = d.handles.add(lib);
        return lib.handle;
    }

    /**
     * The modules loaded in context {@code c} become invalid handles, their functions too (its primary context reset
     * or its destruction, as NVIDIA's driver: cuModuleGetFunction then answers INVALID_HANDLE). On the cuda backend
     * their NVIDIA modules belonged to a context that is gone: a launch of one crashed inside NVIDIA's driver.
     */
    static void unloadModulesOf(Driver d, Context c) {
        for (long h : d.handles.all(Library.class)) {
            if (d.handles.peek(h) instanceof Library lib && lib.module && lib.owner == c) {
                lib.kernels.values().forEach(d.handles::remove);
                d.handles.remove(h);
            }
        }
        d.functionsChanged();
    }

    /** The kernel {@code name} of a library, with a stable handle. */
    static long kernel(Driver d, Library lib, String name) throws CudaException {
        Long h = lib.kernels.get(name);
        if (h != null) return h;
        var code = lib.kernel(name);
        if (code == null) throw new CudaException(CuResult.CUDA_ERROR_NOT_FOUND, "no kernel named " + name);
        KernelsUsed.record(name);
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
        d.functionsChanged();  // the shim's kept occupancies of its kernels go
    }
}
