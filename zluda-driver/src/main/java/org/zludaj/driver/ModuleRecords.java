package org.zludaj.driver;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.zludaj.api.CuResult;
import org.zludaj.driver.backend.Backend;
import org.zludaj.driver.fatbin.Fatbin;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxIndex;
import org.zludaj.ptx.cache.CompileCache;
import org.zludaj.ptx.model.PtxModule;

/**
 * A module's record in the compile cache, under the digest of its fatbin element as stored (compressed, not read):
 * what a load needs of a module compiled on demand, so that a process that loaded it before loads it without
 * decompressing or indexing its text (ggml's modules: 1-7 MB of PTX each, zstd; decompressing and indexing them was
 * most of a warm process's module loads, 290-440 ms of GPT-2's first evaluation on an H200). It holds the digest of the
 * module's text (with a kernel's name, the key of the kernel's compiled unit: KernelUnits), the digest of its variables'
 * text (the key of the compiled variables unit: Backend.loadVariables), its kernels' names and its variables'
 * declarations (parsed at each load: a few kilobytes). A kernel whose unit is not in the cache, or variables not
 * compiled there, make the module's text decompressed and indexed then, as a load without a record would have. A
 * module is recorded by a load that read it without error (a small module parsed whole then, so that its errors were
 * that load's, is marked and would be read only declared at the next load anyway: CodeLoader.ParseMarks).
 */
final class ModuleRecords {
    private static final org.zludaj.api.Log LOG = org.zludaj.api.Log.of(ModuleRecords.class);
    private static final String MAGIC = "zluda-j module record 1";

    private ModuleRecords() {}

    /** What the record holds. */
    record Record(String textDigest, String variablesDigest, List<String> kernels, String declarations) {
        byte[] encode() {
            StringBuilder s = new StringBuilder(MAGIC).append('\n').append(textDigest).append('\n').append(variablesDigest).append('\n')
                    .append(kernels.size()).append('\n');
            for (String k : kernels) s.append(k).append('\n');
            return s.append(declarations).toString().getBytes(StandardCharsets.UTF_8);
        }

        /** The record in {@code bytes}, or null where they are not one. */
        static Record decode(byte[] bytes) {
            String s = new String(bytes, StandardCharsets.UTF_8);
            String[] head = s.split("\n", 5);
            if (head.length < 5 || !head[0].equals(MAGIC) || head[1].length() != 64 || head[2].length() != 64) return null;
            int n;
            try {
                n = Integer.parseInt(head[3]);
            } catch (NumberFormatException e) {
                return null;
            }
            String rest = head[4];
            List<String> kernels = new ArrayList<>(n);
            int at = 0;
            for (int i = 0; i < n; i++) {
                int nl = rest.indexOf('\n', at);
                if (nl < 0) return null;
                kernels.add(rest.substring(at, nl));
                at = nl + 1;
            }
            return new Record(head[1], head[2], kernels, rest.substring(at));
        }
    }

    /** The key of the record of a module stored as {@code e}. */
    static String key(Fatbin.Entry e) {
        return CompileCache.key("module record", org.zludaj.ptx.Build.ID, e.storedDigest());
    }

    /** Records a module read as {@code index}, stored as {@code e}, its variables' text of digest {@code variablesDigest}. */
    static void put(CompileCache cache, Fatbin.Entry e, PtxIndex index, String variablesDigest) {
        if (cache == null) return;
        cache.put(key(e), new Record(index.digest(), variablesDigest, index.kernels(), index.declarationsText()).encode());
    }

    /**
     * The module stored as {@code e} loaded by its record: its variables' declarations parsed, its variables unit
     * loaded by the backend (compiled from the text, decompressed then, only where the cache lacks it), its kernels
     * compiled on demand as for any module; null where there is no record (or it does not read), then the caller
     * reads the module.
     */
    static Library load(Driver d, CompileCache cache, Fatbin.Entry e, String origin, boolean module) throws CudaException {
        long t0 = System.nanoTime();
        byte[] bytes = cache.get(key(e));
        Record rec = bytes == null ? null : Record.decode(bytes);
        if (rec == null) return null;
        Ptx.Parsed declared = d.variableUnits.parse(origin, rec.declarations());
        if (!declared.ok()) return null;
        Library.Source source = new Library.Source(rec.kernels(), rec.textDigest(), () -> index(e, origin));
        Backend.Program program = d.backend.loadVariables(0, declared.module(), rec.variablesDigest(), () -> variables(d, source, origin));
        Library lib = new Library(declared.module(), program, module, source, null, d.backend, origin);
        if (LOG.isDebugEnabled())
            LOG.debug("{}: loaded by its record ({} kernels) in {} ms", origin, rec.kernels().size(), (System.nanoTime() - t0) / 1_000_000);
        if ("EAGER".equalsIgnoreCase(System.getenv("CUDA_MODULE_LOADING"))) lib.compileAll();
        return lib;
    }

    /** The module's text decompressed and indexed (a kernel or the variables not found compiled). */
    private static PtxIndex index(Fatbin.Entry e, String origin) throws CudaException {
        try {
            long t0 = System.nanoTime();
            PtxIndex index = PtxIndex.of(e.text());
            LOG.debug("{}: its text read for a unit not in the compile cache, in {} ms", origin, (System.nanoTime() - t0) / 1_000_000);
            return index;
        } catch (IllegalStateException x) {  // a corrupt payload (it decompressed when the record was made)
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_IMAGE, origin + ": " + x.getMessage());
        }
    }

    /** The module's variables unit parsed from its text (the compiled one not in the cache). */
    private static PtxModule variables(Driver d, Library.Source source, String origin) throws CudaException {
        String text = source.index().variablesText();
        Ptx.Parsed v = d.variableUnits.parse(origin, text);
        if (!v.ok()) {
            LOG.error("the module-scope variables of {} have errors:\n{}", origin, v.log());
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_PTX, v.log());
        }
        return v.module();
    }
}
