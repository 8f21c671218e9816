package org.zludaj.driver;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.zludaj.api.CuResult;
import org.zludaj.driver.fatbin.Fatbin;
import org.zludaj.nativ.HostRuntime;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxException;
import org.zludaj.ptx.PtxPrinter;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.model.Variable;

/**
 * A CUlinkState (cuLinkCreate, cuLinkAddData, cuLinkAddFile, cuLinkComplete): PTX inputs (as text or inside fatbins)
 * linked at the PTX level into one module. Each name keeps its one definition; the {@code .extern} declarations that
 * another input defines become forward declarations; names no input defines stay external (vprintf ...). The image
 * cuLinkComplete hands out is that module's PTX text, which cuModuleLoadData takes; it lives until cuLinkDestroy.
 * NVIDIA machine code (cubins, objects, libraries) cannot run here and is refused.
 */
final class Linker {
    /** CUjitInputType. */
    static final int INPUT_CUBIN = 0, INPUT_PTX = 1, INPUT_FATBINARY = 2, INPUT_OBJECT = 3, INPUT_LIBRARY = 4, INPUT_NVVM = 5;

    final JitOptions jit;
    private final List<PtxModule> inputs = new ArrayList<>();
    private long image;
    /** The first input that failed: NVIDIA's cuLinkComplete then fails with its error (recorded on an H200). */
    private CudaException failed;

    Linker(JitOptions jit) {
        this.jit = jit;
    }

    /** Adds {@code bytes} of input {@code type} named {@code name}; errors also go to the JIT error log. */
    synchronized void add(int type, byte[] bytes, String name) throws CudaException {
        try {
            switch (type) {
                case INPUT_PTX -> inputs.add(parse(name, text(bytes, bytes.length)));
                case INPUT_FATBINARY -> {
                    List<Fatbin.Entry> ptx = new ArrayList<>();
                    try {
                        long copy = HostRuntime.allocate(bytes.length + 16L, 16);
                        try {
                            HostRuntime.write(copy, bytes, 0, bytes.length);
                            int magic = java.nio.ByteBuffer.wrap(bytes, 0, Math.min(4, bytes.length)).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt();
                            var entries = magic == Fatbin.WRAPPER_MAGIC ? Fatbin.fromWrapper(HostRuntime::bytes, copy) : Fatbin.fromContainer(HostRuntime::bytes, copy);
                            for (Fatbin.Entry e : entries) if (e.isPtx()) ptx.add(e);
                            for (Fatbin.Entry e : ptx) e.decompressed();  // a corrupt one is INVALID_IMAGE here
                        } finally {
                            HostRuntime.release(copy);
                        }
                    } catch (Fatbin.FatbinException | RuntimeException e) {
                        throw new CudaException(CuResult.CUDA_ERROR_INVALID_IMAGE, name + ": not a fatbin (" + e.getMessage() + ")");
                    }
                    if (ptx.isEmpty()) throw new CudaException(CuResult.CUDA_ERROR_NO_BINARY_FOR_GPU, name + ": the fatbin holds no PTX");
                    ptx.sort(java.util.Comparator.comparingInt(Fatbin.Entry::smVersion).reversed());
                    inputs.add(parse(name, ptx.get(0).text()));
                }
                case INPUT_CUBIN, INPUT_OBJECT, INPUT_LIBRARY ->  // (NVIDIA too answers NO_BINARY_FOR_GPU for a bad cubin)
                        throw new CudaException(CuResult.CUDA_ERROR_NO_BINARY_FOR_GPU, name + ": NVIDIA machine code cannot run here: ZLUDA-J links PTX");
                case INPUT_NVVM -> throw new CudaException(CuResult.CUDA_ERROR_NOT_SUPPORTED, name + ": NVVM IR inputs are not supported");
                default -> throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "input type " + type);
            }
        } catch (CudaException e) {
            jit.error(e.getMessage());
            if (failed == null) failed = e;
            throw e;
        }
    }

    private static String text(byte[] bytes, int n) {
        int end = 0;
        while (end < n && bytes[end] != 0) end++;
        return new String(bytes, 0, end, StandardCharsets.UTF_8);
    }

    private PtxModule parse(String name, String text) throws CudaException {
        try {
            return Ptx.parse(name, text);
        } catch (PtxException e) {
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_PTX, name + ": " + e.getMessage());
        }
    }

    private static boolean external(List<String> attributes) {
        return attributes.contains(".extern");
    }

    /** The linked module: every definition once; extern declarations resolved within the inputs become prototypes. */
    static PtxModule link(List<PtxModule> inputs) throws CudaException {
        // nothing added: an empty module, as NVIDIA's linker completes an empty link (recorded on an H200)
        if (inputs.isEmpty()) return new PtxModule("linked", "7.0", List.of("sm_52"), 64, List.of(), List.of());
        Map<String, Function> definitions = new LinkedHashMap<>();
        Map<String, Function> unresolved = new LinkedHashMap<>();
        Map<String, Variable> data = new LinkedHashMap<>(), externData = new LinkedHashMap<>();
        for (PtxModule m : inputs) {
            for (Function f : m.functions()) {
                if (f.isDefined()) {
                    Function before = definitions.putIfAbsent(f.name(), f);
                    if (before != null && !f.attributes().contains(".weak") && !before.attributes().contains(".weak"))
                        throw new CudaException(CuResult.CUDA_ERROR_INVALID_PTX, "function " + f.name() + " is defined by two inputs");
                } else {
                    unresolved.putIfAbsent(f.name(), f);
                }
            }
            for (Variable v : m.globals()) {
                if (external(v.attributes())) {
                    externData.putIfAbsent(v.name(), v);
                } else {
                    Variable before = data.putIfAbsent(v.name(), v);
                    if (before != null && !v.attributes().contains(".weak") && !before.attributes().contains(".weak")
                            && !v.attributes().contains(".common"))
                        throw new CudaException(CuResult.CUDA_ERROR_INVALID_PTX, "variable " + v.name() + " is defined by two inputs");
                }
            }
        }
        List<Variable> globals = new ArrayList<>(data.values());
        for (Variable v : externData.values()) if (!data.containsKey(v.name())) globals.add(v);
        List<Function> functions = new ArrayList<>();
        for (Function f : unresolved.values()) if (!definitions.containsKey(f.name())) functions.add(f);
        for (Function f : definitions.values()) {  // prototypes first, so that every call follows a declaration
            if (f.entry()) continue;
            functions.add(new Function(f.entry(), f.attributes(), f.name(), f.returns(), f.params(), f.directives(), null, f.line()));
        }
        functions.addAll(definitions.values());
        String version = "1.0";
        int sm = 0;
        for (PtxModule m : inputs) {
            if (m.version() != null && compareVersions(m.version(), version) > 0) version = m.version();
            for (String t : m.targets()) if (t.startsWith("sm_")) sm = Math.max(sm, smNumber(t));
        }
        List<String> targets = new ArrayList<>();
        for (String t : inputs.get(0).targets()) targets.add(t.startsWith("sm_") && sm > 0 ? "sm_" + sm : t);
        return new PtxModule("linked", version, targets, inputs.get(0).addressSize(), globals, functions);
    }

    private static int smNumber(String t) {
        try {
            return Integer.parseInt(t.substring(3).replaceAll("[^0-9].*", ""));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static int compareVersions(String a, String b) {
        String[] x = a.split("\\."), y = b.split("\\.");
        for (int i = 0; i < 2; i++) {
            int p = i < x.length ? Integer.parseInt(x[i]) : 0, q = i < y.length ? Integer.parseInt(y[i]) : 0;
            if (p != q) return Integer.compare(p, q);
        }
        return 0;
    }

    /** Links the inputs; the image (NUL-terminated PTX) stays valid until {@link #destroy}. */
    synchronized long[] complete() throws CudaException {
        if (failed != null) throw new CudaException(failed.result(), "an input failed: " + failed.getMessage());
        String ptx;
        try {
            ptx = PtxPrinter.print(link(inputs));
        } catch (CudaException e) {
            jit.error(e.getMessage());
            throw e;
        }
        byte[] b = (ptx + "\0").getBytes(StandardCharsets.UTF_8);
        if (image != 0) HostRuntime.release(image);
        image = HostRuntime.allocate(b.length, 16);
        if (image == 0) throw new CudaException(CuResult.CUDA_ERROR_OUT_OF_MEMORY, "linked image");
        HostRuntime.write(image, b, 0, b.length);
        jit.info("ZLUDA-J: linked " + inputs.size() + " PTX inputs");
        return new long[] {image, b.length};
    }

    synchronized void destroy() {
        if (image != 0) HostRuntime.release(image);
        image = 0;
    }
}
