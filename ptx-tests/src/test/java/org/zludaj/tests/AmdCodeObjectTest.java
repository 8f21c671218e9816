package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.zludaj.ptx.Compiler;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxException;

/**
 * Every ptx-test compiled for AMD GPUs (gfx1030, gfx1100, gfx1201) and its code object checked: ELF for EM_AMDGPU
 * with the architecture's EF_AMDGPU_MACH, ABI version 3 (code object v5), and AMDGPU metadata naming the kernel
 * with a wavefront size of 32. Tests in amd-pending.txt do not compile yet; one that does must leave the list.
 */
class AmdCodeObjectTest {
    static final Map<String, Integer> MACH = Map.of("gfx1030", 0x36, "gfx1100", 0x41, "gfx1201", 0x4e);

    /** Null when the code object is valid, else what is wrong. */
    static String check(byte[] co, String gfx) {
        return check(co, gfx, "k");
    }

    /** As above, for a kernel named {@code kernel} (up to 31 bytes: a msgpack fixstr). */
    static String check(byte[] co, String gfx, String kernel) {
        ByteBuffer b = ByteBuffer.wrap(co).order(ByteOrder.LITTLE_ENDIAN);
        if (co.length < 64 || b.getInt(0) != 0x464C457F) return "not an ELF file";
        if (b.getShort(18) != 224) return "e_machine " + b.getShort(18) + ", not EM_AMDGPU";
        if ((b.getInt(48) & 0xff) != MACH.get(gfx)) return "EF_AMDGPU_MACH 0x" + Integer.toHexString(b.getInt(48) & 0xff);
        if (co[8] != 3) return "ABI version " + co[8] + ", not 3 (code object v5)";
        String all = new String(co, StandardCharsets.ISO_8859_1);
        int meta = all.indexOf("amdhsa.kernels");
        if (meta < 0) return "no AMDGPU metadata note";
        int wave = all.indexOf(".wavefront_size", meta);
        if (wave < 0 || co[wave + ".wavefront_size".length()] != 32) return "wavefront size is not 32";
        if (!all.contains(".name" + (char) (0xa0 | kernel.length()) + kernel))  // msgpack fixstr: 0xa0 | length, then the name
            return "kernel " + kernel + " not named in the metadata";

        if (!all.contains("k.kd")) return "no kernel descriptor k.kd";
        return null;
    }

    /** Instructions that a family's gfx1100 code must contain: the lowering chose the hardware's own operation. */
    static final Map<String, List<String>> EXPECTED_INSTRUCTIONS = Map.ofEntries(
            Map.entry("warp_shfl", List.of("ds_bpermute_b32")),
            Map.entry("warp_vote_match_redux", List.of("v_readlane_b32")),
            Map.entry("bar_reduction_loop", List.of("s_barrier", "ds_load", "ds_store")),
            // named barriers, bar.arrive and bar.red: shared-memory barriers (pass.NamedBarriers) after one s_barrier
            Map.entry("bar_red_popc_and_or", List.of("s_barrier", "ds_add_u32", "ds_add_rtn_u64", "s_sleep")),
            Map.entry("bar_partial_count", List.of("ds_add_rtn_u64", "s_sleep")),
            Map.entry("bar_arrive_producer_consumer", List.of("ds_add_rtn_u64", "s_sleep")),
            Map.entry("atom_global_contended", List.of("global_atomic_add_u32")),
            Map.entry("f32_fma_rn", List.of("v_fma")),
            Map.entry("f64_add_rn", List.of("v_add_f64")),
            Map.entry("mem_generic_isspacep", List.of("src_shared_base", "src_private_base")),
            Map.entry("mma_m16n8k16_f32_f16_f16_f32", List.of("v_wmma_f32_16x16x16_f16", "ds_bpermute_b32")),
            Map.entry("mma_m16n8k16_f32_bf16_bf16_f32", List.of("v_wmma_f32_16x16x16_bf16")),
            Map.entry("mma_m16n8k8_f16_f16_f16_f16", List.of("v_wmma_f32_16x16x16_f16")),
            Map.entry("mma_m16n8k32_s32_s8_u8_s32", List.of("v_wmma_i32_16x16x16_iu8")),
            Map.entry("mma_m8n8k16_s32_u8_u8_s32_satfinite", List.of("v_wmma_i32_16x16x16_iu8")),
            Map.entry("wmma_m16n16k16_f16_f32_row_col", List.of("v_wmma_f32_16x16x16_f16")),
            Map.entry("wmma_m16n16k16_s8_s32_col_col", List.of("v_wmma_i32_16x16x16_iu8")),
            Map.entry("wmma_m32n8k16_f16_f32_row_col", List.of("v_wmma_f32_16x16x16_f16")),
            Map.entry("wmma_m8n32k16_bf16_f32_row_row", List.of("v_wmma_f32_16x16x16_bf16")),
            Map.entry("wmma_m32n8k16_s8_s32_col_col", List.of("v_wmma_i32_16x16x16_iu8")));

    /**
     * Every test's gfx1100 code object disassembled by LLVM's llvm-objdump: each kernel decodes completely (no unknown
     * encodings) and ends with s_endpgm, and the families above use the instructions they should.
     */
    @Test
    void gfx1100CodeDisassemblesAndUsesTheHardwareOperations(@org.junit.jupiter.api.io.TempDir Path work) throws Exception {
        List<Path> dirs = PtxInstructionTest.tests();
        List<String> files = Collections.synchronizedList(new ArrayList<>());
        dirs.parallelStream().forEach(d -> {
            try {
                String name = d.getFileName().toString();
                byte[] co = Compiler.amdgpu(Ptx.parse(name + ".ptx", Files.readString(d.resolve("kernel.ptx"))), "gfx1100");
                Files.write(work.resolve(name + ".co"), co);
                files.add(work.resolve(name + ".co").toString());
            } catch (Exception e) {
                throw new AssertionError(d + ": " + e, e);
            }
        });
        Collections.sort(files);
        List<String> args = new ArrayList<>(List.of("-d", "--mcpu=gfx1100"));
        args.addAll(files);
        String out = org.zludaj.ptx.llvm.Tools.run("llvm-objdump", args);
        Map<String, String> byFile = new TreeMap<>();
        String[] parts = out.split("\\n(?=\\S+\\.co:\\s+file format)");
        for (String part : parts) {
            int colon = part.indexOf(".co:");
            if (colon < 0) continue;
            byFile.put(Path.of(part.substring(0, colon).strip()).getFileName().toString(), part);
        }
        assertEquals(dirs.size(), byFile.size(), "llvm-objdump output for every code object");
        List<String> problems = new ArrayList<>();
        byFile.forEach((name, text) -> {
            if (text.contains("<unknown>")) problems.add(name + ": undecodable instruction");
            if (!text.contains("s_endpgm")) problems.add(name + ": no s_endpgm");
            for (String insn : EXPECTED_INSTRUCTIONS.getOrDefault(name, List.of()))
                if (!text.contains(insn)) problems.add(name + ": no " + insn);
        });
        assertTrue(EXPECTED_INSTRUCTIONS.keySet().stream().allMatch(byFile::containsKey), "the families checked exist");
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    /** The kernel test.txt launches ("kernel NAME"), k where it names none. */
    static String kernelOf(Path dir) throws java.io.IOException {
        Path t = dir.resolve("test.txt");
        if (!Files.exists(t)) return "k";
        for (String line : Files.readAllLines(t)) if (line.startsWith("kernel ")) return line.substring(7).trim();
        return "k";
    }

    @Test
    void everyTestCompilesToAValidCodeObjectForRdna2Rdna3Rdna4() throws Exception {
        List<Path> dirs = PtxInstructionTest.tests();
        Map<String, String> pending = new TreeMap<>();
        Path pf = PtxInstructionTest.PTX.resolve("amd-pending.txt");
        if (Files.exists(pf)) {
            for (String line : Files.readAllLines(pf)) {
                if (line.isBlank() || line.startsWith("#")) continue;
                int sp = line.indexOf(' ');
                pending.put(sp < 0 ? line : line.substring(0, sp), sp < 0 ? "" : line.substring(sp + 1));
            }
        }
        List<String> failures = Collections.synchronizedList(new ArrayList<>()), nowPassing = Collections.synchronizedList(new ArrayList<>());
        Map<String, String> stillFailing = Collections.synchronizedMap(new TreeMap<>());
        java.util.concurrent.atomic.AtomicInteger ok = new java.util.concurrent.atomic.AtomicInteger();
        dirs.parallelStream().forEach(d -> {
            String name = d.getFileName().toString();
            String problem = null;
            try {
                var module = Ptx.parse(name + ".ptx", Files.readString(d.resolve("kernel.ptx")));
                for (String gfx : List.of("gfx1030", "gfx1100", "gfx1201")) {
                    String bad = check(Compiler.amdgpu(module, gfx), gfx, kernelOf(d));
                    if (bad != null) problem = gfx + ": " + bad;
                    if (problem != null) break;
                }
            } catch (PtxException e) {
                String m = e.diagnostics().get(0).message();
                problem = m.contains("not supported yet") ? m.replaceAll(".*: (instruction .*?) \\(.*", "$1 not supported yet") : "compile error: " + m;
            } catch (Exception e) {
                problem = "exception: " + e;
            }
            if (problem == null) ok.incrementAndGet();
            if (problem == null && pending.containsKey(name)) nowPassing.add(name);
            if (problem != null && !pending.containsKey(name)) failures.add(name + ": " + problem);
            if (problem != null) stillFailing.put(name, problem.replaceAll("\\s+", " "));
        });
        if (Boolean.getBoolean("ptx.tests.updatePending")) {
            StringBuilder f = new StringBuilder("# ptx-tests that do not yet compile for AMD GPUs, with the reason (AmdCodeObjectTest keeps this list true).\n");
            stillFailing.forEach((n, r) -> f.append(n).append(' ').append(r).append('\n'));
            Files.writeString(pf, f.toString());
            return;
        }
        System.out.printf("ptx-tests as AMD code objects: %d of %d valid for gfx1030, gfx1100 and gfx1201 (%d pending)%n", ok.get(), dirs.size(), pending.size());
        assertTrue(failures.isEmpty(), failures.size() + " tests fail to compile or validate:\n" + String.join("\n", failures));
        assertTrue(nowPassing.isEmpty(), "these tests compile now: take them off amd-pending.txt: " + nowPassing);
    }
}
