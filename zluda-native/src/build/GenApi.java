import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Build-time generator (run by Maven with the build's JDK as a single-file program).
 *
 * <p>Reads the declaration source of the CUDA driver API (src/main/api/*.api) and NVIDIA's recorded answers
 * (procaddr-580.txt, errors-580.txt) and writes:
 * <ul>
 *   <li>C: one exported function per driver function, forwarding its arguments to {@code zluda_call};
 *       the cuGetProcAddress table; the function-id list;</li>
 *   <li>Java: one interface per API group ({@code CuMemoryApi} ...) whose default methods answer
 *       CUDA_ERROR_NOT_SUPPORTED; {@code ApiSet}; {@code Dispatch} (JNI entry: id + 16 raw arguments);
 *       {@code CuResult} (names and strings of every error code).</li>
 * </ul>
 * The other declaration sources of the folder that name a {@code @library} (cuBLAS, cuBLASLt) become libraries of
 * their own: {@link Library}.
 * Usage: java GenApi.java API_DIR JAVA_OUT C_OUT
 */
public class GenApi {
    static final int MAX_ARGS = 16;
    record Param(String type, String name, String abi) {}
    record Fn(int id, String group, String name, List<Param> params, boolean exported, boolean inC) {}

    static final Pattern DECL = Pattern.compile("(\\w+) (\\w+) (\\w+)\\((.*)\\)");

    /** Functions whose successful answers the shim keeps and gives again in C (@memo; shim/memo.c). */
    static final Set<String> MEMO = new TreeSet<>();

    public static void main(String[] args) throws IOException {
        Path api = Path.of(args[0]), javaOut = Path.of(args[1]), cOut = Path.of(args[2]);
        Map<String, String> abi = new HashMap<>();
        Set<String> inC = new TreeSet<>();
        List<Fn> fns = new ArrayList<>();
        for (String file : List.of("cuda-driver.api", "zluda-private.api")) {
            boolean exported = file.equals("cuda-driver.api");
            int lineNo = 0;
            for (String line : Files.readAllLines(api.resolve(file))) {
                lineNo++;
                line = line.strip();
                if (line.isEmpty() || line.startsWith("#")) continue;
                if (line.startsWith("@abi ")) {
                    int sp = line.lastIndexOf(' ');
                    abi.put(line.substring(5, sp), line.substring(sp + 1));
                    continue;
                }
                if (line.startsWith("@c ")) {
                    inC.addAll(List.of(line.substring(3).trim().split("\\s+")));
                    continue;
                }
                if (line.startsWith("@memo ")) {
                    MEMO.addAll(List.of(line.substring(6).trim().split("\\s+")));
                    continue;
                }
                Matcher m = DECL.matcher(line);
                if (!m.matches()) throw new IllegalStateException(file + ":" + lineNo + ": cannot read: " + line);
                List<Param> ps = new ArrayList<>();
                String plist = m.group(4).trim();
                if (!plist.isEmpty()) {
                    for (String p : plist.split(",")) {
                        p = p.strip();
                        int sp = p.lastIndexOf(' ');
                        String type = p.substring(0, sp), name = p.substring(sp + 1);
                        String a = abi.get(type);
                        if (a == null) throw new IllegalStateException(file + ":" + lineNo + ": no @abi for type " + type);
                        ps.add(new Param(type, name, a));
                    }
                }
                if (ps.size() > MAX_ARGS) throw new IllegalStateException(m.group(3) + " has more than " + MAX_ARGS + " parameters");
                fns.add(new Fn(fns.size(), m.group(1), m.group(3), ps, exported, false));
            }
        }
        List<Fn> all = new ArrayList<>();
        for (Fn f : fns) all.add(new Fn(f.id, f.group, f.name, f.params, f.exported, inC.contains(f.name)));
        writeC(all, api, cOut);
        writeJava(all, api, javaOut);
        try (var files = Files.list(api)) {
            for (Path f : files.sorted().toList())
                if (f.toString().endsWith(".api") && Files.readString(f).contains("\n@library ")) Library.generate(f, javaOut, cOut);
        }
    }

    // ------------------------------------------------------------------------------------------------ C

    static String cType(Param p) {
        return switch (p.abi) {
            case "ptr" -> "void *";
            case "i8" -> "uint8_t";
            case "i16" -> "uint16_t";
            case "i32" -> "int32_t";
            case "i64" -> "uint64_t";
            case "f32" -> "float";
            case "f64" -> "double";
            case "struct8" -> "uint64_t";
            default -> {
                if (p.abi.startsWith("struct")) yield "zluda_blob" + p.abi.substring(6);
                throw new IllegalStateException("abi " + p.abi);
            }
        };
    }

    static String cToLong(Param p) {
        return switch (p.abi) {
            case "ptr" -> "(int64_t)(uintptr_t)" + p.name;
            case "f32" -> "zluda_f32_bits(" + p.name + ")";
            case "f64" -> "zluda_f64_bits(" + p.name + ")";
            default -> p.abi.startsWith("struct") && !p.abi.equals("struct8")
                    ? "(int64_t)(uintptr_t)&" + p.name : "(int64_t)" + p.name;
        };
    }

    static void writeC(List<Fn> fns, Path api, Path out) throws IOException {
        Files.createDirectories(out);
        StringBuilder h = new StringBuilder();
        h.append("/* Generated by GenApi from src/main/api: do not edit. */\n#pragma once\n");
        for (Fn f : fns) h.append("#define ZID_").append(f.name).append(' ').append(f.id).append('\n');
        h.append("#define ZID_COUNT ").append(fns.size()).append('\n');
        h.append("#define ZLUDA_MAX_ARGS ").append(MAX_ARGS).append('\n');
        Files.writeString(out.resolve("zluda_ids.h"), h.toString());

        StringBuilder c = new StringBuilder();
        c.append("/* Generated by GenApi from src/main/api/cuda-driver.api: do not edit.\n")
         .append(" * One export per CUDA driver function; each forwards its raw arguments to the JVM. */\n")
         .append("#include \"shim.h\"\n#include \"zluda_ids.h\"\n\n");
        Set<Integer> blobs = new TreeSet<>();
        for (Fn f : fns) for (Param p : f.params)
            if (p.abi.startsWith("struct") && !p.abi.equals("struct8")) blobs.add(Integer.parseInt(p.abi.substring(6)));
        for (int b : blobs) c.append("typedef struct { unsigned char bytes[").append(b).append("]; } zluda_blob").append(b).append(";\n");
        c.append('\n');
        for (Fn f : fns) {
            if (f.inC) continue;
            StringBuilder sig = new StringBuilder();
            StringBuilder call = new StringBuilder();
            for (Param p : f.params) {
                if (sig.length() > 0) sig.append(", ");
                sig.append(cType(p)).append(' ').append(p.name);
            }
            if (sig.length() == 0) sig.append("void");
            c.append(f.exported ? "ZLUDA_EXPORT " : "").append("CUresult ").append(f.name).append('(').append(sig).append(") {\n");
            // only the function's own slots are written: the JVM reads ZLUDA_MAX_ARGS of them and ignores the rest
            // (zeroing the whole array, a 'rep stos', cost every call 10-15 ns on Intel hosts)
            c.append("    int64_t a[ZLUDA_MAX_ARGS];\n");
            for (int i = 0; i < f.params.size(); i++) c.append("    a[").append(i).append("] = ").append(cToLong(f.params.get(i))).append(";\n");
            if (f.params.isEmpty()) c.append("    a[0] = 0;\n");
            if (MEMO.contains(f.name)) {
                c.append("    CUresult r;\n    if (zluda_memo_get(ZID_").append(f.name).append(", a, &r)) return r;\n")
                 .append("    r = zluda_call(ZID_").append(f.name).append(", a);\n")
                 .append("    if (r == CUDA_SUCCESS) zluda_memo_put(ZID_").append(f.name).append(", a);\n    return r;\n}\n");
            } else {
                c.append("    return zluda_call(ZID_").append(f.name).append(", a);\n}\n");
            }
        }
        c.append("\nconst char *const zluda_function_names[ZID_COUNT] = {\n");
        for (Fn f : fns) c.append("    \"").append(f.name).append("\",\n");
        c.append("};\n");
        Files.writeString(out.resolve("zluda_exports.c"), c.toString());

        // cuGetProcAddress: NVIDIA's answers per (name, flag), version breakpoints ascending
        Map<String, String> exported = new HashMap<>();
        for (Fn f : fns) if (f.exported) exported.put(f.name, f.name);
        TreeMap<String, List<String[]>> table = new TreeMap<>();
        for (String line : Files.readAllLines(api.resolve("procaddr-580.txt"))) {
            if (line.isBlank() || line.startsWith("#")) continue;
            String[] t = line.trim().split("\\s+");
            table.computeIfAbsent(t[0], k -> new ArrayList<>()).add(t);
        }
        StringBuilder p = new StringBuilder();
        p.append("/* Generated by GenApi from src/main/api/procaddr-580.txt (NVIDIA driver 580's own answers): do not edit. */\n")
         .append("#include \"shim.h\"\n\n");
        for (Fn f : fns) if (f.exported) p.append("extern CUresult ").append(f.name).append("();\n");
        p.append("\nconst zluda_procaddr_entry zluda_procaddr_table[] = {\n");
        int n = 0;
        for (var e : table.entrySet()) {
            for (String[] t : e.getValue()) {
                String res = t[3];
                String fn = "NULL";
                int rc = 0, status = 0;
                if (res.startsWith("-")) {
                    String[] rs = res.substring(1).split("/");
                    rc = Integer.parseInt(rs[0]);
                    status = Integer.parseInt(rs[1]);
                } else {
                    if (!exported.containsKey(res)) throw new IllegalStateException("procaddr names unknown export " + res);
                    fn = "(void *)" + res;
                }
                p.append("    {\"").append(t[0]).append("\", ").append(t[1]).append(", ").append(t[2]).append(", ")
                 .append(fn).append(", ").append(rc).append(", ").append(status).append("},\n");
                n++;
            }
        }
        p.append("};\nconst int zluda_procaddr_count = ").append(n).append(";\n");
        Files.writeString(out.resolve("zluda_procaddr.c"), p.toString());
    }

    // --------------------------------------------------------------------------------------------- Java

    static String jType(Param p) {
        return switch (p.abi) {
            case "i8", "i16", "i32" -> "int";
            case "f32" -> "float";
            case "f64" -> "double";
            default -> "long";
        };
    }

    static String jFromLong(Param p, String v) {
        return switch (p.abi) {
            case "i8", "i16", "i32" -> "(int) " + v;
            case "f32" -> "Float.intBitsToFloat((int) " + v + ")";
            case "f64" -> "Double.longBitsToDouble(" + v + ")";
            default -> v;
        };
    }

    static String iface(String group) {
        return "Cu" + Character.toUpperCase(group.charAt(0)) + group.substring(1) + "Api";
    }

    static void writeJava(List<Fn> fns, Path api, Path out) throws IOException {
        Path dir = out.resolve("org/zludaj/api");
        Files.createDirectories(dir);
        Map<String, List<Fn>> groups = new LinkedHashMap<>();
        for (Fn f : fns) if (!f.inC) groups.computeIfAbsent(f.group, k -> new ArrayList<>()).add(f);
        String hdr = "// Generated by GenApi from zluda-native/src/main/api: do not edit.\npackage org.zludaj.api;\n\n";
        for (var g : groups.entrySet()) {
            StringBuilder s = new StringBuilder(hdr);
            s.append("/** CUDA driver API group '").append(g.getKey())
             .append("'. Every method answers CUDA_ERROR_NOT_SUPPORTED until a driver class implements it. */\n");
            s.append("public interface ").append(iface(g.getKey())).append(" {\n");
            for (Fn f : g.getValue()) {
                s.append("    /** {@code ").append(f.name).append('(');
                for (int i = 0; i < f.params.size(); i++)
                    s.append(i > 0 ? ", " : "").append(f.params.get(i).type.replace("*", "\\*")).append(' ').append(f.params.get(i).name);
                s.append(")} */\n    default int ").append(f.name).append('(');
                for (int i = 0; i < f.params.size(); i++)
                    s.append(i > 0 ? ", " : "").append(jType(f.params.get(i))).append(' ').append(f.params.get(i).name);
                s.append(") {\n        return Unsupported.report(\"").append(f.name).append("\");\n    }\n\n");
            }
            s.append("}\n");
            Files.writeString(dir.resolve(iface(g.getKey()) + ".java"), s.toString());
        }
        // ApiSet: one implementation per group
        StringBuilder a = new StringBuilder(hdr);
        a.append("/** The driver's implementation of every API group, handed to {@link Dispatch#install}. */\n");
        a.append("public record ApiSet(");
        int i = 0;
        for (String g : new TreeSet<>(groups.keySet())) a.append(i++ > 0 ? ", " : "").append(iface(g)).append(' ').append(g);
        a.append(") {}\n");
        Files.writeString(dir.resolve("ApiSet.java"), a.toString());

        // Dispatch: chunked switches keep every method small enough for the JIT
        StringBuilder d = new StringBuilder(hdr);
        StringBuilder pb = new StringBuilder(), ab = new StringBuilder();
        for (int k = 0; k < MAX_ARGS; k++) {
            pb.append(k > 0 ? ", " : "").append("long a").append(k);
            ab.append(k > 0 ? ", " : "").append('a').append(k);
        }
        String params = pb.toString(), argsList = ab.toString();
        d.append("/** JNI entry of every driver call: function id plus up to ").append(MAX_ARGS)
         .append(" raw arguments (pointers and integers as long, floats as bits). */\n");
        d.append("public final class Dispatch {\n    private Dispatch() {}\n\n");
        d.append("    public static final int COUNT = ").append(fns.size()).append(";\n");
        d.append("    static final String[] NAMES = {");
        for (Fn f : fns) d.append(f.id % 6 == 0 ? "\n        " : " ").append('"').append(f.name).append("\",");
        d.append("\n    };\n\n");
        d.append("    /** Arguments of each function (the shim writes only these slots; traces print them). */\n    static final byte[] ARITY = {");
        for (Fn f : fns) d.append(f.id % 32 == 0 ? "\n        " : " ").append(f.params.size()).append(',');
        d.append("\n    };\n\n    public static int arity(int id) {\n        return id >= 0 && id < COUNT ? ARITY[id] : 0;\n    }\n\n");
        d.append("    /** Name of function {@code id}, for logs. */\n    public static String name(int id) {\n")
         .append("        return id >= 0 && id < COUNT ? NAMES[id] : \"#\" + id;\n    }\n\n");
        d.append("    /** Function id of {@code name}, or -1. */\n    public static int id(String name) {\n")
         .append("        for (int i = 0; i < COUNT; i++) if (NAMES[i].equals(name)) return i;\n        return -1;\n    }\n\n");
        d.append("    private static volatile ApiSet api;\n\n");
        d.append("    /** Installs the driver; calls before this answer CUDA_ERROR_NOT_INITIALIZED. */\n")
         .append("    public static void install(ApiSet set) {\n        api = set;\n    }\n\n");
        d.append("    /** Called by the shim (zluda_call) for every driver function: its arguments in the shim's array. */\n");
        d.append("    public static int callRaw(int id, long args) {\n        return call(id");
        for (int k = 0; k < MAX_ARGS; k++) d.append(k % 4 == 0 ? ",\n                " : ", ").append("RawArgs.get(args, ").append(k).append(')');
        d.append(");\n    }\n\n");
        d.append("    /** Every driver function by id, with its raw arguments. Never throws. */\n");
        d.append("    public static int call(int id, ").append(params).append(") {\n");
        d.append("        ApiSet s = api;\n        if (s == null) return CuResult.CUDA_ERROR_NOT_INITIALIZED;\n");
        d.append("        if (CallLog.TRACE) CallLog.enter(id, ").append(argsList).append(");\n");
        d.append("        int r;\n        try {\n            r = switch (id >>> 6) {\n");
        int chunks = (fns.size() + 63) / 64;
        for (int c = 0; c < chunks; c++)
            d.append("                case ").append(c).append(" -> call").append(c).append("(s, id, ").append(argsList).append(");\n");
        d.append("                default -> CuResult.CUDA_ERROR_INVALID_VALUE;\n            };\n");
        d.append("        } catch (Throwable t) {\n            r = CallLog.failed(id, t);\n        }\n");
        d.append("        if (CallLog.TRACE) CallLog.exit(id, r);\n        return r;\n    }\n\n");
        for (int c = 0; c < chunks; c++) {
            d.append("    private static int call").append(c).append("(ApiSet s, int id, ").append(params).append(") {\n");
            d.append("        return switch (id) {\n");
            for (Fn f : fns.subList(c * 64, Math.min(fns.size(), c * 64 + 64))) {
                if (f.inC) continue;
                d.append("            case ").append(f.id).append(" -> s.").append(f.group).append("().").append(f.name).append('(');
                for (int k = 0; k < f.params.size(); k++)
                    d.append(k > 0 ? ", " : "").append(jFromLong(f.params.get(k), "a" + k));
                d.append(");\n");
            }
            d.append("            default -> CuResult.CUDA_ERROR_INVALID_VALUE;\n        };\n    }\n\n");
        }
        d.append("}\n");
        Files.writeString(dir.resolve("Dispatch.java"), d.toString());

        // CuResult: codes, names and NVIDIA's strings
        StringBuilder r = new StringBuilder(hdr);
        r.append("/** CUresult codes with NVIDIA driver 580's names and strings (recorded in errors-580.txt). */\n");
        r.append("public final class CuResult {\n    private CuResult() {}\n\n");
        StringBuilder names = new StringBuilder(), strings = new StringBuilder(), codes = new StringBuilder();
        for (String line : Files.readAllLines(api.resolve("errors-580.txt"))) {
            if (line.isBlank() || line.startsWith("#")) continue;
            int sp = line.indexOf(' '), bar = line.indexOf('|');
            String code = line.substring(0, sp), name = line.substring(sp + 1, bar), str = line.substring(bar + 1);
            r.append("    public static final int ").append(name).append(" = ").append(code).append(";\n");
            codes.append(code).append(", ");
            names.append('"').append(name).append("\", ");
            strings.append('"').append(str.replace("\\", "\\\\").replace("\"", "\\\"")).append("\",\n        ");
        }
        r.append("\n    static final int[] CODES = {").append(codes).append("};\n");
        r.append("    static final String[] NAMES = {").append(names).append("};\n");
        r.append("    static final String[] STRINGS = {\n        ").append(strings).append("};\n\n");
        r.append("    /** NVIDIA's name for {@code code}, or null when the driver does not know it. */\n")
         .append("    public static String name(int code) {\n        int i = java.util.Arrays.binarySearch(CODES, code);\n")
         .append("        return i >= 0 ? NAMES[i] : null;\n    }\n\n")
         .append("    /** NVIDIA's description of {@code code}, or null when the driver does not know it. */\n")
         .append("    public static String string(int code) {\n        int i = java.util.Arrays.binarySearch(CODES, code);\n")
         .append("        return i >= 0 ? STRINGS[i] : null;\n    }\n}\n");
        Files.writeString(dir.resolve("CuResult.java"), r.toString());
    }
}


/**
 * A CUDA library ZLUDA-J replaces (cuBLAS, cuBLASLt), from its declaration source: C exports for each file it is built
 * as (a linker version script giving every export NVIDIA's version node, the file's soname), a JNI dispatch that
 * crosses through the shim's {@code zluda_library_call}, and Java interfaces whose default methods answer the
 * library's NOT_SUPPORTED status and name the function once.
 */
final class Library {
    record Fn(int id, String group, String ret, String name, List<GenApi.Param> params) {}

    String stem, pkg, prefix, statusType, needs;
    int notSupported, notInitialized;
    List<String> sonames = new ArrayList<>();
    Map<String, String> abi = new HashMap<>();
    List<Fn> fns = new ArrayList<>();
    /** Functions the shim may make without the JVM (@direct; shim/blas.c). */
    Set<String> direct = new TreeSet<>();

    static void generate(Path file, Path javaOut, Path cOut) throws IOException {
        Library l = new Library();
        l.read(file);
        l.writeC(cOut);
        l.writeJava(javaOut);
    }

    void read(Path file) throws IOException {
        int lineNo = 0;
        for (String line : Files.readAllLines(file)) {
            lineNo++;
            line = line.strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            String[] w = line.split("\\s+");
            switch (w[0]) {
                case "@library" -> sonames.addAll(List.of(w).subList(1, w.length));
                case "@needs" -> needs = w[1];
                case "@java" -> { pkg = w[1]; prefix = w[2]; }
                case "@status" -> { statusType = w[1]; notSupported = Integer.parseInt(w[2]); notInitialized = Integer.parseInt(w[3]); }
                case "@abi" -> abi.put(line.substring(5, line.lastIndexOf(' ')), w[w.length - 1]);
                case "@direct" -> direct.addAll(List.of(w).subList(1, w.length));
                default -> {
                    Matcher m = Pattern.compile("(\\w+) (.+?) (\\w+)\\((.*)\\)").matcher(line);
                    if (!m.matches()) throw new IllegalStateException(file + ":" + lineNo + ": cannot read: " + line);
                    List<GenApi.Param> ps = new ArrayList<>();
                    if (!m.group(4).isBlank()) for (String p : m.group(4).split(",")) {
                        p = p.strip();
                        int sp = p.lastIndexOf(' ');
                        String type = p.substring(0, sp);
                        if (!abi.containsKey(type)) throw new IllegalStateException(file + ":" + lineNo + ": no @abi for " + type);
                        ps.add(new GenApi.Param(type, p.substring(sp + 1), abi.get(type)));
                    }
                    if (!abi.containsKey(m.group(2))) throw new IllegalStateException(file + ":" + lineNo + ": no @abi for " + m.group(2));
                    fns.add(new Fn(fns.size(), m.group(1), m.group(2), m.group(3), ps));
                }
            }
        }
        stem = sonames.get(0).substring(0, sonames.get(0).indexOf(".so"));
        for (String d : direct)
            if (fns.stream().noneMatch(f -> f.name.equals(d))) throw new IllegalStateException(file + ": @direct names unknown " + d);
    }

    int maxArgs() {
        int n = 1;
        for (Fn f : fns) n = Math.max(n, f.params.size() + (retAbi(f).equals("c64") ? 1 : 0));
        return n;
    }

    String retAbi(Fn f) {
        return abi.get(f.ret);
    }

    boolean returnsStatus(Fn f) {
        return f.ret.equals(statusType);
    }

    // ------------------------------------------------------------------------------------------------ C

    static String cType(String a) {
        return switch (a) {
            case "ptr" -> "void *";
            case "i8" -> "int8_t";
            case "i16" -> "int16_t";
            case "i32" -> "int32_t";
            case "i64" -> "int64_t";
            case "f32" -> "float";
            case "f64" -> "double";
            case "c32" -> "zluda_c32";
            case "c64" -> "zluda_c64";
            case "void" -> "void";
            default -> throw new IllegalStateException("abi " + a);
        };
    }

    static String toLong(GenApi.Param p) {
        return switch (p.abi()) {
            case "ptr" -> "(int64_t)(uintptr_t)" + p.name();
            case "f32" -> "zluda_f32_bits(" + p.name() + ")";
            case "f64" -> "zluda_f64_bits(" + p.name() + ")";
            case "c32" -> "zluda_c32_bits(" + p.name() + ")";
            case "c64" -> "(int64_t)(uintptr_t)&" + p.name();  // two doubles: passed by address
            default -> "(int64_t)" + p.name();
        };
    }

    void writeC(Path out) throws IOException {
        String id = stem.replace("lib", "");
        StringBuilder c = new StringBuilder();
        c.append("/* Generated by GenApi from src/main/api/").append(id).append(".api: do not edit.\n")
         .append(" * One export per ").append(id).append(" function; each forwards its raw arguments to the JVM. */\n")
         .append("#include \"shim.h\"\n\n")
         .append("typedef struct { float x, y; } zluda_c32;\ntypedef struct { double x, y; } zluda_c64;\n")
         .append("static inline int64_t zluda_c32_bits(zluda_c32 v) { int64_t b = 0; __builtin_memcpy(&b, &v, 8); return b; }\n")
         .append("static inline float zluda_bits_f32(int64_t b) { union { uint32_t u; float f; } c = {(uint32_t)b}; return c.f; }\n")
         .append("static inline double zluda_bits_f64(int64_t b) { union { int64_t u; double d; } c = {b}; return c.d; }\n\n")
         .append("static zluda_library zluda_lib = {.dispatch_class = \"org/zludaj/api/").append(pkg).append("/Dispatch\", .nargs = ")
         .append(maxArgs()).append(", .not_initialized = ").append(notInitialized).append("};\n\n");
        for (Fn f : fns) {
            String ra = retAbi(f);
            StringBuilder sig = new StringBuilder();
            for (GenApi.Param p : f.params) sig.append(sig.length() > 0 ? ", " : "").append(cType(p.abi())).append(' ').append(p.name());
            if (sig.length() == 0) sig.append("void");
            c.append("ZLUDA_EXPORT ").append(cType(ra)).append(' ').append(f.name).append('(').append(sig).append(") {\n");
            if (ra.equals("c64")) c.append("    zluda_c64 zluda_result = {0, 0};\n");
            c.append("    int64_t zluda_args[").append(maxArgs()).append("];\n");  // only the function's slots written (as the driver's)
            int slot = 0;
            for (GenApi.Param p : f.params) c.append("    zluda_args[").append(slot++).append("] = ").append(toLong(p)).append(";\n");
            if (ra.equals("c64")) c.append("    zluda_args[").append(slot++).append("] = (int64_t)(uintptr_t)&zluda_result;\n");
            if (slot == 0) c.append("    zluda_args[0] = 0;\n");
            String call = "zluda_library_call(&zluda_lib, " + f.id + ", zluda_args)";
            if (direct.contains(f.name)) {
                if (!returnsStatus(f)) throw new IllegalStateException("@direct " + f.name + " does not return " + statusType);
                c.append("    int64_t zluda_status;\n    if (zluda_blas_get(").append(f.id).append(", zluda_args, &zluda_status)) return (")
                 .append(cType(ra)).append(")zluda_status;\n    zluda_status = ").append(call).append(";\n")
                 .append("    if (zluda_status == 0) zluda_blas_put(").append(f.id).append(", zluda_args);\n    return (")
                 .append(cType(ra)).append(")zluda_status;\n}\n");
                continue;
            }
            switch (ra) {
                case "void" -> c.append("    (void)").append(call).append(";\n");
                case "f32" -> c.append("    return zluda_bits_f32(").append(call).append(");\n");
                case "f64" -> c.append("    return zluda_bits_f64(").append(call).append(");\n");
                case "c32" -> c.append("    int64_t zluda_bits = ").append(call).append(";\n    zluda_c32 zluda_r;\n    __builtin_memcpy(&zluda_r, &zluda_bits, 8);\n    return zluda_r;\n");
                case "c64" -> c.append("    (void)").append(call).append(";\n    return zluda_result;\n");
                case "ptr" -> c.append("    return (void *)(uintptr_t)").append(call).append(";\n");
                default -> c.append("    return (").append(cType(ra)).append(')').append(call).append(";\n");
            }
            c.append("}\n");
        }
        Files.writeString(out.resolve("zluda_" + id + ".c"), c.toString());
        // one version script per file built: the version node is the file's soname, as NVIDIA's libraries define it
        for (String so : sonames) {
            StringBuilder v = new StringBuilder(so).append(" {\n  global:\n");
            for (Fn f : fns) v.append("    ").append(f.name).append(";\n");
            v.append("  local: *;\n};\n");
            Files.writeString(out.resolve(so + ".map"), v.toString());
        }
        StringBuilder list = new StringBuilder();
        for (String so : sonames) {
            String major = so.substring(so.indexOf(".so.") + 4);
            list.append(so).append(' ').append(id).append(' ').append(needs == null ? "-" : needs + ".so." + major).append('\n');
        }
        Files.writeString(out.resolve("zluda_" + id + ".libs"), list.toString());
    }

    // --------------------------------------------------------------------------------------------- Java

    String iface(String group) {
        return prefix + Character.toUpperCase(group.charAt(0)) + group.substring(1) + "Api";
    }

    String jType(String a) {
        return switch (a) {
            case "i8", "i16", "i32" -> "int";
            case "f32" -> "float";
            case "f64" -> "double";
            default -> "long";
        };
    }

    String jFromLong(String a, String v) {
        return switch (a) {
            case "i8", "i16", "i32" -> "(int) " + v;
            case "f32" -> "Float.intBitsToFloat((int) " + v + ")";
            case "f64" -> "Double.longBitsToDouble(" + v + ")";
            default -> v;
        };
    }

    List<GenApi.Param> javaParams(Fn f) {
        List<GenApi.Param> ps = new ArrayList<>(f.params);
        if (retAbi(f).equals("c64")) ps.add(new GenApi.Param("cuDoubleComplex*", "result", "ptr"));
        return ps;
    }

    void writeJava(Path out) throws IOException {
        Path dir = out.resolve("org/zludaj/api/" + pkg);
        Files.createDirectories(dir);
        String hdr = "// Generated by GenApi from zluda-native/src/main/api/" + stem.substring(3) + ".api: do not edit.\npackage org.zludaj.api." + pkg + ";\n\n"
                + "import org.zludaj.api.Unsupported;\n\n";
        Map<String, List<Fn>> groups = new TreeMap<>();
        for (Fn f : fns) groups.computeIfAbsent(f.group, k -> new ArrayList<>()).add(f);
        for (var g : groups.entrySet()) {
            StringBuilder s = new StringBuilder(hdr);
            s.append("/** ").append(stem).append(" functions of group '").append(g.getKey())
             .append("'. Every method answers NOT_SUPPORTED (").append(notSupported)
             .append("), or 0 for functions returning no status, until a class implements it. */\n");
            s.append("public interface ").append(iface(g.getKey())).append(" {\n");
            for (Fn f : g.getValue()) {
                List<GenApi.Param> ps = javaParams(f);
                s.append("    /** {@code ").append(f.ret).append(' ').append(f.name).append('(');
                for (int i = 0; i < f.params.size(); i++)
                    s.append(i > 0 ? ", " : "").append(f.params.get(i).type().replace("*", "\\*")).append(' ').append(f.params.get(i).name());
                s.append(")}").append(retAbi(f).equals("c64") ? "; the result is written to {@code result}" : "").append(" */\n    default ")
                 .append(returnsStatus(f) ? "int" : "long").append(' ').append(f.name).append('(');
                for (int i = 0; i < ps.size(); i++)
                    s.append(i > 0 ? ", " : "").append(jType(ps.get(i).abi())).append(' ').append(ps.get(i).name());
                s.append(") {\n        ").append(returnsStatus(f) ? "return " : "")
                 .append("Unsupported.report(\"").append(f.name).append("\", ").append(notSupported).append(")")
                 .append(returnsStatus(f) ? ";\n" : ";\n        return 0;\n").append("    }\n\n");
            }
            s.append("}\n");
            Files.writeString(dir.resolve(iface(g.getKey()) + ".java"), s.toString());
        }
        StringBuilder a = new StringBuilder(hdr.replace("import org.zludaj.api.Unsupported;\n\n", ""));
        a.append("/** The implementation of every ").append(stem).append(" group, handed to {@link Dispatch#install}. */\n");
        a.append("public record ApiSet(");
        int i = 0;
        for (String g : groups.keySet()) a.append(i++ > 0 ? ", " : "").append(iface(g)).append(' ').append(g);
        a.append(") {}\n");
        Files.writeString(dir.resolve("ApiSet.java"), a.toString());

        int n = maxArgs();
        StringBuilder pb = new StringBuilder(), ab = new StringBuilder();
        for (int k = 0; k < n; k++) {
            pb.append(k > 0 ? ", " : "").append("long a").append(k);
            ab.append(k > 0 ? ", " : "").append('a').append(k);
        }
        StringBuilder d = new StringBuilder(hdr.replace("import org.zludaj.api.Unsupported;\n\n", ""));
        d.append("/** JNI entry of every ").append(stem).append(" call (through the shim's zluda_library_call): function id plus ")
         .append(n).append(" raw arguments; the result is the function's return value (a status, or its bits). */\n");
        d.append("public final class Dispatch {\n    private Dispatch() {}\n\n");
        d.append("    public static final int COUNT = ").append(fns.size()).append(";\n");
        d.append("    static final String[] NAMES = {");
        for (Fn f : fns) d.append(f.id % 4 == 0 ? "\n        " : " ").append('"').append(f.name).append("\",");
        d.append("\n    };\n\n");
        d.append("    /** Argument slots of each function (a complex result's address included): the shim writes only these. */\n    static final byte[] ARITY = {");
        for (Fn f : fns) d.append(f.id % 32 == 0 ? "\n        " : " ").append(f.params.size() + (retAbi(f).equals("c64") ? 1 : 0)).append(',');
        d.append("\n    };\n\n    public static int arity(int id) {\n        return id >= 0 && id < COUNT ? ARITY[id] : 0;\n    }\n\n");
        d.append("    /** Name of function {@code id}, for logs. */\n    public static String name(int id) {\n")
         .append("        return id >= 0 && id < COUNT ? NAMES[id] : \"#\" + id;\n    }\n\n");
        d.append("    private static volatile ApiSet api;\n\n");
        d.append("    /** Installs the implementation; calls before this answer NOT_INITIALIZED. */\n")
         .append("    public static void install(ApiSet set) {\n        api = set;\n    }\n\n");
        d.append("    /** Called by the shim (zluda_library_call): the arguments in the shim's array. */\n");
        d.append("    public static long callRaw(int id, long args) {\n        return call(id");
        for (int k = 0; k < n; k++) d.append(k % 4 == 0 ? ",\n                " : ", ").append("org.zludaj.api.RawArgs.get(args, ").append(k).append(')');
        d.append(");\n    }\n\n");
        d.append("    /** Every function of the library by id, with its raw arguments. Never throws. */\n");
        d.append("    public static long call(int id, ").append(pb).append(") {\n");
        d.append("        ApiSet s = api;\n        if (s == null) return ").append(notInitialized).append(";\n");
        d.append("        if (org.zludaj.api.CallLog.TRACE) org.zludaj.api.CallLog.enterLibrary(name(id), arity(id), ").append(ab).append(");\n");
        d.append("        long r;\n        try {\n            r = switch (id >>> 6) {\n");
        int chunks = (fns.size() + 63) / 64;
        for (int c = 0; c < chunks; c++)
            d.append("                case ").append(c).append(" -> call").append(c).append("(s, id, ").append(ab).append(");\n");
        d.append("                default -> ").append(notSupported).append(";\n            };\n");
        d.append("        } catch (Throwable t) {\n            r = org.zludaj.api.CallLog.failedLibrary(name(id), t, ")
         .append(notSupported).append(");\n        }\n");
        d.append("        if (org.zludaj.api.CallLog.TRACE) org.zludaj.api.CallLog.exitLibrary(name(id), r);\n        return r;\n    }\n\n");
        for (int c = 0; c < chunks; c++) {
            d.append("    private static long call").append(c).append("(ApiSet s, int id, ").append(pb).append(") {\n");
            d.append("        return switch (id) {\n");
            for (Fn f : fns.subList(c * 64, Math.min(fns.size(), c * 64 + 64))) {
                List<GenApi.Param> ps = javaParams(f);
                d.append("            case ").append(f.id).append(" -> s.").append(f.group).append("().").append(f.name).append('(');
                for (int k = 0; k < ps.size(); k++) d.append(k > 0 ? ", " : "").append(jFromLong(ps.get(k).abi(), "a" + k));
                d.append(')');
                if (retAbi(f).equals("f32")) d.append(" & 0xffffffffL");
                d.append(";\n");
            }
            d.append("            default -> ").append(notSupported).append(";\n        };\n    }\n\n");
        }
        d.append("}\n");
        Files.writeString(dir.resolve("Dispatch.java"), d.toString());
    }
}
