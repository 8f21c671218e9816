package org.zludaj.ptx;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.zludaj.ptx.llvm.Tools;
import org.zludaj.ptx.model.PtxModule;

/** The same nvcc-emitted kernels compiled for each target: gfx1100 code object, NVPTX text, host JIT. */
class TargetsTest {
    static PtxModule vectoradd() throws Exception {
        String text = new String(TargetsTest.class.getResourceAsStream("/vectoradd.ptx").readAllBytes(), StandardCharsets.UTF_8);
        return Ptx.parse("vectoradd.ptx", text);
    }

    @Test
    void parsesNvccOutput() throws Exception {
        PtxModule m = vectoradd();
        assertEquals("9.0", m.version());
        assertEquals(75, m.smVersion());
        assertEquals(List.of("_Z4vaddPKfS0_Pfi", "_Z5saxpyfPKfPfi"), m.functions().stream().map(f -> f.name()).toList());
        assertEquals(4, m.function("_Z4vaddPKfS0_Pfi").params().size());
    }

    /** A kernel of one straight-line block of {@code adds} dependent additions. */
    static PtxModule straightLine(int adds) throws Exception {
        StringBuilder b = new StringBuilder(".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
                + ".reg .b32 %r<4>;\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\nld.global.u32 %r1, [%rd1];\nmov.u32 %r2, %r1;\n");
        for (int i = 0; i < adds; i++) b.append("xor.b32 %r2, %r2, ").append(i * 2654435761L & 0x7fffffff).append(";\nadd.u32 %r2, %r2, %r1;\n");
        b.append("st.global.u32 [%rd1], %r2;\nret;\n}\n");
        return Ptx.parse("straight.ptx", b.toString());
    }

    @Test
    void hugeBlocksGetTheIlpSchedulerAndSmallOnesTheDefault() throws Exception {
        String small = Compiler.compile(straightLine(100), new org.zludaj.ptx.target.AmdgpuTarget("gfx1100"),
                org.bytedeco.llvm.global.LLVM.LLVMObjectFile, true, CompileProfile.NONE).llvmIr();
        assertFalse(small.contains("amdgpu-sched-strategy"), "a 200-instruction block keeps AMDGPU's default scheduler");
        CompileProfile p = new CompileProfile();
        String huge = Compiler.compile(straightLine(org.zludaj.ptx.target.AmdgpuTarget.HUGE_BLOCK / 2 + 100),
                new org.zludaj.ptx.target.AmdgpuTarget("gfx1100"), org.bytedeco.llvm.global.LLVM.LLVMObjectFile, true, p).llvmIr();
        assertTrue(huge.contains("\"amdgpu-sched-strategy\"=\"max-ilp\""), "a block over the limit is scheduled for ILP");
        for (CompileProfile.Stage s : List.of(CompileProfile.Stage.PASSES, CompileProfile.Stage.IR, CompileProfile.Stage.OPTIMIZE, CompileProfile.Stage.CODEGEN))
            assertTrue(p.wall(s) > 0, "the profile times " + s);
        assertTrue(p.cpu() > 0, "the profile counts the compiling thread's CPU time");
    }

    /** {@link #straightLine} with the absolute value and the negation of loaded floats computed in between. */
    static PtxModule straightLineWithSigns(int adds) throws Exception {
        StringBuilder b = new StringBuilder(".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
                + ".reg .b32 %r<4>;\n.reg .f32 %f<8>;\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\nld.global.u32 %r1, [%rd1];\nmov.u32 %r2, %r1;\n"
                + "ld.global.f32 %f1, [%rd1+4];\nld.global.f32 %f2, [%rd1+8];\nabs.f32 %f3, %f1;\nmul.f32 %f4, %f3, %f2;\n"
                + "abs.f32 %f5, %f2;\nsub.f32 %f6, 0f80000000, %f4;\nmul.f32 %f7, %f6, %f5;\n");
        for (int i = 0; i < adds; i++) b.append("xor.b32 %r2, %r2, ").append(i * 2654435761L & 0x7fffffff).append(";\nadd.u32 %r2, %r2, %r1;\n");
        b.append("st.global.u32 [%rd1], %r2;\nst.global.f32 [%rd1+12], %f7;\nst.global.f32 [%rd1+16], %f3;\nret;\n}\n");
        return Ptx.parse("signs.ptx", b.toString());
    }

    @Test
    void hugeBlocksTakeAbsoluteValuesAsIntegerMasksAndKeepSourceModifiers(@TempDir Path dir) throws Exception {
        var gfx1100 = new org.zludaj.ptx.target.AmdgpuTarget("gfx1100");
        String small = Compiler.compile(straightLineWithSigns(100), gfx1100, org.bytedeco.llvm.global.LLVM.LLVMObjectFile, true,
                CompileProfile.NONE).llvmIr();
        assertTrue(small.contains("call float @llvm.fabs.f32("), "a small block keeps LLVM's fabs: " + small);
        var huge = Compiler.compile(straightLineWithSigns(org.zludaj.ptx.target.AmdgpuTarget.HUGE_BLOCK / 2 + 100), gfx1100,
                org.bytedeco.llvm.global.LLVM.LLVMObjectFile, true, CompileProfile.NONE);
        String ir = huge.llvmIr();
        assertFalse(ir.contains("call float @llvm.fabs.f32(") || ir.contains(" fneg "), "no fabs/fneg left for CodeGenPrepare to sink one by one");
        assertTrue(ir.contains("and i32 ") && ir.contains(", 2147483647"), "the absolute value as a sign mask");
        // instruction selection folds the mask back into a source modifier: |v| operands, no v_and of the sign mask
        Path f = dir.resolve("k.o");
        Files.write(f, huge.code());
        String asm = Tools.run("llvm-objdump", List.of("-d", "--mcpu=gfx1100", f.toString()));
        assertTrue(asm.contains("|v"), "an absolute value as an operand modifier: " + asm.lines().filter(l -> l.contains("v_mul")).toList());
        assertFalse(asm.lines().anyMatch(l -> l.contains("v_and_b32") && l.contains("0x7fffffff")), "no integer mask instruction in the code: "
                + asm.lines().filter(l -> l.contains("0x7fffffff")).toList());
    }

    @Test
    void codeGeneratedByTheBundledLlcEqualsThisProcesssAndRdna2HugeBlocksGoThere() throws Exception {
        PtxModule huge = straightLineWithSigns(org.zludaj.ptx.target.AmdgpuTarget.HUGE_BLOCK / 2 + 100);
        var gfx1100 = new org.zludaj.ptx.target.AmdgpuTarget("gfx1100");
        int asm = org.bytedeco.llvm.global.LLVM.LLVMAssemblyFile;
        byte[] a = Compiler.compile(huge, gfx1100, asm, false, CompileProfile.NONE, m -> null).code();
        byte[] b = Compiler.compile(huge, gfx1100, asm, false, CompileProfile.NONE, m -> List.of()).code();
        assertEquals(new String(a, StandardCharsets.UTF_8), new String(b, StandardCharsets.UTF_8), "llc's pipeline is this process's");
        List<String> gfx11 = new java.util.ArrayList<>();
        Compiler.compile(huge, gfx1100, asm, false, CompileProfile.NONE, m -> {
            gfx11.add(String.valueOf(gfx1100.separateCodegen(m)));
            return null;
        });
        assertEquals(List.of("null"), gfx11, "gfx11 has no SDWA: always in this process");
        // RDNA2: a huge block without the SDWA peephole, in llc; a small one in this process
        var gfx1030 = new org.zludaj.ptx.target.AmdgpuTarget("gfx1030");
        List<String> chosen = new java.util.ArrayList<>();
        for (PtxModule ptx : List.of(huge, straightLineWithSigns(100))) {
            byte[] co = Compiler.compile(ptx, gfx1030, org.bytedeco.llvm.global.LLVM.LLVMObjectFile, false, CompileProfile.NONE, m -> {
                List<String> o = gfx1030.separateCodegen(m);
                chosen.add(String.valueOf(o));
                return o;
            }).code();
            assertTrue(co.length > 4 && co[0] == 0x7f && co[1] == 'E', "an ELF object");
        }
        assertEquals(List.of("[-amdgpu-sdwa-peephole=0]", "null"), chosen);
    }

    @Test
    void amdgpuCodeObjectHasWave32KernelsAndCov5Metadata(@TempDir Path dir) throws Exception {
        byte[] co = Compiler.amdgpu(vectoradd(), "gfx1100");
        assertEquals(0x7f, co[0]);
        assertEquals('E', co[1]);
        Path f = dir.resolve("k.hsaco");
        Files.write(f, co);
        String notes = Tools.run("llvm-readobj", List.of("--notes", "--file-headers", f.toString()));
        assertTrue(notes.contains("EF_AMDGPU_MACH_AMDGCN_GFX1100"), notes);
        assertTrue(notes.contains(".name:           _Z4vaddPKfS0_Pfi"), notes);
        assertTrue(notes.contains(".wavefront_size: 32"), notes);
        assertTrue(notes.matches("(?s).*amdhsa.version:\\s*-\\s*1\\s*-\\s*2.*"), "code object v5 metadata: " + notes);
        String asm = Tools.run("llvm-objdump", List.of("-d", "--mcpu=gfx1100", f.toString()));
        assertTrue(asm.contains("<_Z5saxpyfPKfPfi>:") && asm.contains("s_endpgm"), asm);
        assertTrue(asm.contains("v_fma") || asm.contains("v_fmac"), "saxpy's fma reaches the ISA: " + asm);
    }

    @Test
    void nvptxIsAcceptedByPtxas(@TempDir Path dir) throws Exception {
        String ptx = Compiler.nvptx(vectoradd(), 90);
        assertTrue(ptx.contains(".target sm_90"), ptx);
        assertTrue(ptx.contains(".visible .entry _Z4vaddPKfS0_Pfi"), ptx);
        assertPtxasAccepts(dir, ptx);
    }

    /** NVIDIA's ptxas assembles {@code ptx} for sm_90 (skipped with a message where the CUDA toolkit is absent). */
    static void assertPtxasAccepts(Path dir, String ptx) throws Exception {
        File ptxas = findOnPath("ptxas");
        assumeTrue(ptxas != null, "ptxas (CUDA toolkit) not installed: NVPTX output not assembled");
        Path in = Files.createTempFile(dir, "k", ".ptx");
        Files.writeString(in, ptx);
        Process p = new ProcessBuilder(ptxas.getPath(), "-arch=sm_90", "-o", in + ".cubin", in.toString())
                .redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), log + ptx);
    }

    @Test
    void hostJitReturnsAnAddressPerKernel() throws Exception {
        Map<String, Long> k = new HostJit().add(vectoradd());
        assertEquals(2, k.size());
        assertNotEquals(0L, k.get("_Z4vaddPKfS0_Pfi"));
        assertNotEquals(k.get("_Z4vaddPKfS0_Pfi"), k.get("_Z5saxpyfPKfPfi"));
    }

    /**
     * The process-wide LLVM options of each target, and LLVM's one parse of them: a fresh process that compiles for the
     * host gives LLVM the user's options (here -debug-pass=Arguments, whose output shows it applied) and the host's in
     * that parse.
     */
    @Test
    void targetOptionsReachLlvmInTheProcesssOneParse() throws Exception {
        org.zludaj.ptx.target.HostTarget host = org.zludaj.ptx.target.HostTarget.native_();
        assertEquals(List.of("-vectorize-slp=false", "-twoaddr-reschedule=false"), Compiler.targetOptions(host));
        // under the AMD lowering's emulation also the fast DAG scheduler (HostTarget.preRaScheduler)
        assertEquals(List.of("-vectorize-slp=false", "-twoaddr-reschedule=false", "-pre-RA-sched=fast"),
                Compiler.targetOptions(new org.zludaj.ptx.target.HostTarget(host.triple(), host.cpu(), host.features(), "gfx1030")));
        assertEquals(List.of("-disable-lsr"), Compiler.targetOptions(new org.zludaj.ptx.target.NvptxTarget(90)));
        assertEquals(List.of(), Compiler.targetOptions(new org.zludaj.ptx.target.AmdgpuTarget("gfx1100")));
        assertTrue(Compiler.llcArguments(host, org.bytedeco.llvm.global.LLVM.LLVMObjectFile).contains("-twoaddr-reschedule=false"));
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), OptionsMain.class.getName()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        assertTrue(out.contains("parsed: [-debug-pass=Arguments, -vectorize-slp=false, -twoaddr-reschedule=false]"), out);
        assertTrue(out.contains("Pass Arguments:"), out);
    }

    /** {@link #targetOptionsReachLlvmInTheProcesssOneParse}'s fresh process: a user option, a host compilation. */
    static final class OptionsMain {
        public static void main(String[] args) throws Exception {
            Compiler.llvmOptions("-debug-pass=Arguments");
            Compiler.compile(vectoradd(), org.zludaj.ptx.target.HostTarget.native_(), org.bytedeco.llvm.global.LLVM.LLVMObjectFile);
            System.out.println("parsed: " + Compiler.parsedOptions());
        }
    }

    /**
     * Host objects through the compile cache: a second JIT (as in a second process) takes the module from the cache
     * and compiles nothing; one module loaded twice into one JIT gets its own kernels and its own variables.
     */
    @Test
    void hostObjectsComeFromTheCacheAndEachLoadHasItsOwnVariables(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        var cache = new org.zludaj.ptx.cache.CompileCache(dir.resolve("cache"), 1 << 30);
        String ptx = ".version 7.0\n.target sm_75\n.address_size 64\n.visible .global .u32 counter = 7;\n"
                + ".visible .entry k(.param .u64 p) { ret; }\n";
        long before = HostJit.compilations();
        HostJit first = new HostJit(List.of(), cache);
        var a = first.load(Ptx.parse("m.ptx", ptx));
        assertEquals(before + 1, HostJit.compilations());
        var b = first.load(Ptx.parse("m.ptx", ptx));
        HostJit second = new HostJit(List.of(), cache);
        var c = second.load(Ptx.parse("again.ptx", ptx));
        assertEquals(before + 1, HostJit.compilations(), "loaded twice more from the cache, compiled once");
        assertEquals(2, cache.stats().hits());
        assertNotEquals(a.globals().get("counter").address(), b.globals().get("counter").address(), "each load has its own variable");
        assertNotEquals(a.kernels().get("k").address(), b.kernels().get("k").address());
        assertNotEquals(0L, c.kernels().get("k").address());
        assertEquals(7, readInt(c.globals().get("counter").address()),
                "the cached object keeps the variable's initializer");
    }

    /**
     * Host kernels carry the bytes of host stack their code needs (LLVM's frames: spills and allocas, which PTX does
     * not show), also when they come from the compile cache: fiber stacks are sized by them.
     */
    @Test
    void hostKernelsCarryTheirStackFrames(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        String ptx = ".version 7.0\n.target sm_75\n.address_size 64\n"
                + ".visible .entry big(.param .u64 p)\n{\n.local .align 4 .b32 arr[8192];\n.reg .b32 %r<4>;\n.reg .b64 %rd<6>;\n"
                + "ld.param.u64 %rd1, [p];\nld.global.u32 %r1, [%rd1];\nand.b32 %r2, %r1, 8191;\nmul.wide.u32 %rd2, %r2, 4;\n"
                + "mov.u64 %rd3, arr;\nadd.s64 %rd4, %rd3, %rd2;\nst.local.u32 [%rd4], %r1;\n"
                + "ld.local.u32 %r3, [arr+64];\nst.global.u32 [%rd1], %r3;\nret;\n}\n"
                + ".visible .entry small(.param .u64 p)\n{\nret;\n}\n";
        var cache = new org.zludaj.ptx.cache.CompileCache(dir.resolve("cache"), 1 << 30);
        var compiled = new HostJit(List.of(), cache).load(Ptx.parse("m.ptx", ptx)).kernels();
        // x86-64 leaf functions keep up to 128 bytes below the stack pointer (the red zone) out of their frame
        assertTrue(compiled.get("big").frameBytes() >= 8192 * 4 - 128, "frame of big: " + compiled.get("big").frameBytes());
        assertTrue(compiled.get("small").frameBytes() < 8192, "frame of small: " + compiled.get("small").frameBytes());
        var cached = new HostJit(List.of(), cache).load(Ptx.parse("m.ptx", ptx)).kernels();
        assertEquals(compiled.get("big").frameBytes(), cached.get("big").frameBytes(), "from the cache");
    }

    /** .maxntid and .reqntid bound an AMD kernel's work-group size (its register budget follows), others get 1024. */
    @Test
    void blockSizeDirectivesBoundTheAmdWorkGroup() throws Exception {
        String ptx = ".version 7.0\n.target sm_75\n.address_size 64\n"
                + ".visible .entry bounded(.param .u64 p)\n.maxntid 128, 1, 1\n.minnctapersm 2\n{\nret;\n}\n"
                + ".visible .entry exact(.param .u64 p)\n.reqntid 64, 2\n{\nret;\n}\n"
                + ".visible .entry free(.param .u64 p)\n{\nret;\n}\n";
        PtxModule m = Ptx.parse("b.ptx", ptx);
        assertEquals(128, m.function("bounded").maxThreads());
        assertArrayEquals(new int[] {64, 2, 1}, m.function("exact").threads(".reqntid"));
        assertEquals(0, m.function("free").maxThreads());
        String asm = new String(Compiler.compile(m, new org.zludaj.ptx.target.AmdgpuTarget("gfx1100"),
                org.bytedeco.llvm.global.LLVM.LLVMAssemblyFile).code(), StandardCharsets.UTF_8);
        List<String> sizes = asm.lines().filter(l -> l.contains(".max_flat_workgroup_size:")).map(String::trim).toList();
        assertEquals(List.of(".max_flat_workgroup_size: 128", ".max_flat_workgroup_size: 128", ".max_flat_workgroup_size: 1024"),
                sizes, asm.lines().filter(l -> l.contains(".name:") || l.contains("workgroup_size")).toList().toString());
    }

    private static int readInt(long at) {
        return new org.bytedeco.javacpp.IntPointer() { { address = at; limit = 1; capacity = 1; } }.get(0);
    }

    @Test
    void relabelReplacesEveryPlaceholderOccurrence() {
        byte[] obj = ("x" + HostJit.PLACEHOLDER + "k\0" + HostJit.PLACEHOLDER + "counter").getBytes(StandardCharsets.US_ASCII);
        String out = new String(HostJit.relabel(obj, "zm0000000000000001_"), StandardCharsets.US_ASCII);
        assertEquals("xzm0000000000000001_k\0zm0000000000000001_counter", out);
        assertThrows(IllegalArgumentException.class, () -> HostJit.relabel(obj, "short_"));
    }

    /**
     * NVPTX calls NVIDIA's own vprintf and __assertfail with their C signatures (NVIDIA's JIT links them); AMD code
     * writes buffered records (llvm.DevicePrintf) and traps on a failed assert.
     */
    @Test
    void nvptxCallsNvidiasDeviceRuntime(@TempDir Path dir) throws Exception {
        String ptx = ".version 7.0\n.target sm_75\n.address_size 64\n"
                + ".extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);\n"
                + ".extern .func __assertfail(.param .b64 m, .param .b64 f, .param .b32 l, .param .b64 fn, .param .b64 c);\n"
                + ".global .align 1 .b8 fmt[4] = {104, 105, 10, 0};\n"
                + ".visible .entry k()\n{\n\t.reg .b64 %rd<3>;\n\t.reg .b32 %r<2>;\n\tmov.u64 %rd1, fmt;\n\tcvta.global.u64 %rd2, %rd1;\n"
                + "\t{\n\t.param .b64 p0;\n\tst.param.b64 [p0], %rd2;\n\t.param .b64 p1;\n\tst.param.b64 [p1], 0;\n\t.param .b32 r;\n"
                + "\tcall.uni (r), vprintf, (p0, p1);\n\tld.param.b32 %r1, [r];\n\t}\n"
                + "\t{\n\t.param .b64 a0;\n\tst.param.b64 [a0], %rd2;\n\t.param .b64 a1;\n\tst.param.b64 [a1], %rd2;\n\t.param .b32 a2;\n"
                + "\tst.param.b32 [a2], 7;\n\t.param .b64 a3;\n\tst.param.b64 [a3], %rd2;\n\t.param .b64 a4;\n\tst.param.b64 [a4], 1;\n"
                + "\tcall.uni __assertfail, (a0, a1, a2, a3, a4);\n\t}\n\tret;\n}\n";
        // AMD GPUs (every RDNA generation): buffered records in the module's __zluda_printf buffer, assert traps
        for (String gfx : List.of("gfx1030", "gfx1100", "gfx1201")) {
            Path co = dir.resolve(gfx + ".hsaco");
            Files.write(co, Compiler.amdgpu(Ptx.parse("printf.ptx", ptx), gfx));
            String symbols = org.zludaj.ptx.llvm.Tools.run("llvm-readobj", List.of("--dyn-symbols", co.toString()));
            String asm = org.zludaj.ptx.llvm.Tools.run("llvm-objdump", List.of("-d", co.toString()));
            assertTrue(symbols.contains("__zluda_printf"), gfx + ": " + symbols);
            assertTrue(asm.contains("s_trap"), gfx + ": the failed assert traps");
            assertTrue(asm.contains("atomic_add"), gfx + ": records reserved by an atomic add");
        }
        String out = Compiler.nvptx(Ptx.parse("printf.ptx", ptx), 90);
        assertTrue(out.contains(".extern .func  (.param .b32 func_retval0) vprintf"), out);
        assertTrue(out.contains(".extern .func __assertfail"), out);
        assertTrue(out.contains("call.uni (retval0)") || out.contains("call.uni (retval0),"), out);
        assertPtxasAccepts(dir, out);
    }

    @Test
    void unsupportedInstructionNamesItsLineFunctionAndTarget() {
        String ptx = ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\t.shared .align 8 .b64 m;\n"
                + "\tmbarrier.expect_tx.shared.b64 [m], 16;\n\tret;\n}\n";
        PtxException e = assertThrows(PtxException.class, () -> new HostJit().add(Ptx.parse("tx.ptx", ptx)));
        assertEquals(7, e.diagnostics().get(0).line());
        assertTrue(e.getMessage().contains("mbarrier.expect_tx") && e.getMessage().contains("function k") && e.getMessage().contains("host"),
                e.getMessage());
    }

    @Test
    void syntaxErrorsCarryLineAndColumn() {
        PtxException e = assertThrows(PtxException.class, () -> Ptx.parse("bad.ptx", ".version 9.0\n.target sm_75\n.entry k( {\n"));
        assertEquals("bad.ptx", e.diagnostics().get(0).module());
        assertEquals(3, e.diagnostics().get(0).line());
    }

    static File findOnPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            File f = new File(d, tool);
            if (f.canExecute()) return f;
        }
        return null;
    }
}
