package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.zludaj.ptx.Compiler;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.llvm.Tools;

/**
 * The tensor-core programs (flash attention, GEMM: nvcc's compute_80 PTX) compiled for RDNA3 and RDNA4: the matrix
 * operations become v_wmma (two NVIDIA m16n8 operations sharing A per WMMA), nothing spills to scratch memory, and
 * the counts of WMMA, lane permutes and VGPRs are printed (the figures of docs/compiler.md).
 */
class TensorCoreCodeObjectTest {
    static int count(String text, String what) {
        int n = 0;
        for (int k = text.indexOf(what); k >= 0; k = text.indexOf(what, k + 1)) n++;
        return n;
    }

    static int metadata(String notes, String key) {
        Matcher m = Pattern.compile("\\." + key + ":\\s+(\\d+)").matcher(notes);
        assertTrue(m.find(), key + " in " + notes);
        return Integer.parseInt(m.group(1));
    }

    /** {instructions, ds_bpermute, v_wmma} of the largest loop (a backward branch's range) of a disassembled kernel. */
    static int[] largestLoop(String asm) {
        long start = -1;
        List<long[]> addresses = new java.util.ArrayList<>();
        List<String> texts = new java.util.ArrayList<>();
        Pattern symbol = Pattern.compile("^([0-9a-f]+) <\\S+>:"), insn = Pattern.compile("^\\s+(\\S.*?)\\s*//\\s*([0-9A-Fa-f]+):");
        for (String line : asm.split("\n")) {
            Matcher m = symbol.matcher(line);
            if (m.find()) {
                start = Long.parseLong(m.group(1), 16);
                continue;
            }
            m = insn.matcher(line);
            if (m.find()) {
                addresses.add(new long[] {Long.parseLong(m.group(2), 16)});
                texts.add(line);
            }
        }
        int[] best = {0, 0, 0};
        Pattern target = Pattern.compile("<\\S+\\+0x([0-9a-f]+)>");
        for (int k = 0; k < texts.size(); k++) {
            String t = texts.get(k).trim();
            Matcher m = target.matcher(t);
            if (!(t.startsWith("s_cbranch") || t.startsWith("s_branch")) || !m.find()) continue;
            long to = start + Long.parseLong(m.group(1), 16), at = addresses.get(k)[0];
            if (to >= at) continue;
            int[] loop = {0, 0, 0};
            for (int j = 0; j < texts.size(); j++) {
                long a = addresses.get(j)[0];
                if (a < to || a > at) continue;
                loop[0]++;
                if (texts.get(j).contains("ds_bpermute")) loop[1]++;
                if (texts.get(j).contains("v_wmma")) loop[2]++;
            }
            if (loop[0] > best[0]) best = loop;
        }
        return best;
    }

    @Test
    void flashAttentionAndGemmUseWmmaWithoutScratch(@TempDir Path dir) throws Exception {
        Programs.requireNvcc();
        System.out.println("| kernel | target | mma.sync in PTX | v_wmma | ds_bpermute | VGPRs | scratch bytes | main loop: v_wmma, ds_bpermute |");
        for (String program : List.of("flash_attention", "tc_gemm")) {
            Path ptx = Programs.build(List.of("nvcc", "-ptx", "-arch=compute_80", "-o", dir.resolve(program + ".ptx").toString(),
                    Programs.TESTS.resolve("cuda").resolve(program + ".cu").toString()), dir.resolve(program + ".ptx"), dir);
            String text = Files.readString(ptx);
            int mma = count(text, "mma.sync.aligned.m16n8k16");
            assertTrue(mma > 0, program + " uses mma.sync");
            for (String gfx : List.of("gfx1100", "gfx1201")) {
                Path co = dir.resolve(program + "." + gfx);
                Files.write(co, Compiler.amdgpu(Ptx.parse(program + ".ptx", text), gfx));
                String asm = Tools.run("llvm-objdump", List.of("-d", "--mcpu=" + gfx, co.toString()));
                String notes = Tools.run("llvm-readobj", List.of("--notes", co.toString()));
                int wmma = count(asm, "v_wmma_f32_16x16x16_f16"), permutes = count(asm, "ds_bpermute_b32");
                int vgprs = metadata(notes, "vgpr_count"), scratch = metadata(notes, "private_segment_fixed_size");
                int[] loop = largestLoop(asm);
                System.out.printf("| %s | %s | %d | %d | %d | %d | %d | %d, %d |%n", program, gfx, mma, wmma, permutes, vgprs, scratch, loop[2], loop[1]);
                if (program.equals("tc_gemm") && gfx.equals("gfx1100"))  // the k-loop's accumulators stay in the WMMA layout
                    assertTrue(loop[2] > 0 && loop[1] <= 32 * loop[2], "k-loop permutes per WMMA (A and B only): " + loop[1] + " for " + loop[2]);
                assertEquals(mma, 2 * wmma, program + " on " + gfx + ": every m16n8k16 pairs with another one sharing A");
                assertEquals(0, scratch, program + " on " + gfx + " uses scratch memory");
                assertEquals(0, count(asm, "scratch_"), program + " on " + gfx + " has scratch instructions");
            }
        }
    }
}
