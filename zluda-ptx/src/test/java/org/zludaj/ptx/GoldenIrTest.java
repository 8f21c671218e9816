package org.zludaj.ptx;

import static org.junit.jupiter.api.Assertions.*;

import static org.bytedeco.llvm.global.LLVM.*;

import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMTargetMachineRef;
import org.junit.jupiter.api.Test;
import org.zludaj.ptx.llvm.Ll;
import org.zludaj.ptx.llvm.Lowering;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.target.AmdgpuTarget;
import org.zludaj.ptx.target.HostTarget;
import org.zludaj.ptx.target.NvptxTarget;
import org.zludaj.ptx.target.Target;

/**
 * Golden LLVM IR, before optimization, of one small kernel per lowering stage: the model passes and the instruction
 * families (IntegerOps, FloatOps, Conversions, Lowering's memory and control flow) on the host target, and the
 * target layer (AMDGPU's wave collectives and barriers, NVPTX's inline PTX). A change in what a stage emits shows
 * up as a diff of its file (update with -Dgolden.update=true and review).
 */
class GoldenIrTest {
    /** A fixed x86-64 host (not this machine's CPU), so that the files are the same everywhere. */
    static final HostTarget HOST = new HostTarget("x86_64-unknown-linux-gnu", "x86-64", "", null);

    static String kernel(String body) {
        return """
                .version 8.0
                .target sm_90
                .address_size 64
                .visible .entry k(.param .u64 p_out, .param .u64 p_in)
                {
                \t.reg .pred %p<4>;
                \t.reg .b16 %h<4>;
                \t.reg .b32 %r<16>;
                \t.reg .b64 %rd<16>;
                \t.reg .f32 %f<8>;
                \t.reg .f64 %fd<8>;
                \tld.param.u64 %rd1, [p_out];
                \tld.param.u64 %rd2, [p_in];
                \tld.global.u64 %rd3, [%rd2];
                \tld.global.u32 %r1, [%rd2+8];
                \tld.global.u32 %r2, [%rd2+12];
                \tld.global.f32 %f1, [%rd2+16];
                \tld.global.f32 %f2, [%rd2+20];
                \tld.global.f64 %fd1, [%rd2+24];
                \tld.global.f64 %fd2, [%rd2+32];
                """ + body.strip().replaceAll("(?m)^", "\t") + "\n\tret;\n}\n";
    }

    static String ir(String body, Target t) throws Exception {
        PtxModule m = Ptx.parse("k.ptx", kernel(body));
        LLVMTargetMachineRef tm = Compiler.targetMachine(t);
        LLVMContextRef ctx = LLVMContextCreate();
        try {
            LLVMModuleRef mod = Lowering.lower(m, t, ctx, Compiler.dataLayout(tm), "");
            String s = Ll.print(mod);
            LLVMDisposeModule(mod);
            return s;
        } finally {
            LLVMContextDispose(ctx);
            LLVMDisposeTargetMachine(tm);
        }
    }

    private static void check(String name, String body, Target t) throws Exception {
        Golden.check(name + "." + t.name() + ".ll", ir(body, t));
    }

    @Test
    void predicatesToBranches() throws Exception {
        check("predicates", """
                setp.lt.u32 %p1, %r1, %r2;
                @%p1 add.u32 %r3, %r1, 1;
                @!%p1 st.global.u32 [%rd1], %r3;
                """, HOST);
    }

    @Test
    void integerOps() throws Exception {
        check("integer", """
                bfe.u64 %rd4, %rd3, %r1, %r2;
                prmt.b32.f4e %r3, %r1, %r2, %r1;
                add.cc.u32 %r4, %r1, %r2;
                addc.u32 %r5, %r1, %r2;
                st.global.u64 [%rd1], %rd4;
                st.global.v2.u32 [%rd1+8], {%r3, %r5};
                """, HOST);
    }

    @Test
    void floatOps() throws Exception {
        check("float", """
                fma.rm.f64 %fd3, %fd1, %fd2, %fd1;
                add.rz.f32 %f3, %f1, %f2;
                min.NaN.f32 %f4, %f1, %f2;
                st.global.f64 [%rd1], %fd3;
                st.global.v2.f32 [%rd1+8], {%f3, %f4};
                """, HOST);
    }

    @Test
    void conversions() throws Exception {
        check("conversions", """
                cvt.rn.f16.f64 %h1, %fd1;
                cvt.rna.tf32.f32 %r3, %f1;
                cvt.rzi.u64.f32 %rd4, %f1;
                st.global.u16 [%rd1], %h1;
                st.global.u32 [%rd1+4], %r3;
                st.global.u64 [%rd1+8], %rd4;
                """, HOST);
    }

    @Test
    void memoryAndStateSpaces() throws Exception {
        check("memory", """
                cvta.to.global.u64 %rd4, %rd1;
                isspacep.global %p1, %rd1;
                atom.global.add.u32 %r3, [%rd4], %r1;
                ld.volatile.global.u32 %r4, [%rd4+4];
                selp.u32 %r5, %r3, %r4, %p1;
                st.relaxed.gpu.global.u32 [%rd4+8], %r5;
                """, HOST);
    }

    static final String WARP = """
            shfl.sync.bfly.b32 %r3|%p1, %r1, 1, 31, -1;
            vote.sync.ballot.b32 %r4, %p1, -1;
            bar.sync 0;
            bar.red.popc.u32 %r5, 0, %p1;
            add.u32 %r6, %r3, %r4;
            add.u32 %r6, %r6, %r5;
            st.global.u32 [%rd1], %r6;
            """;

    @Test
    void amdgpuWaveCollectivesAndBarriers() throws Exception {
        check("warp", WARP, new AmdgpuTarget("gfx1100"));
    }

    /** NVPTX: PTX's float instructions become NVIDIA's own (NVVM intrinsics), with no flush or NaN selects around them. */
    @Test
    void nvptxFloatOps() throws Exception {
        check("float", """
                fma.rm.f64 %fd3, %fd1, %fd2, %fd1;
                add.rz.ftz.f32 %f3, %f1, %f2;
                max.ftz.f32 %f4, %f1, %f2;
                min.NaN.f32 %f5, %f3, %f4;
                ex2.approx.ftz.f32 %f6, %f5;
                mul.sat.f32 %f7, %f6, %f1;
                st.global.f64 [%rd1], %fd3;
                st.global.v2.f32 [%rd1+8], {%f3, %f7};
                """, new NvptxTarget(90));
        String ir = ir("add.rz.ftz.f32 %f3, %f1, %f2;\nmax.f32 %f4, %f3, %f2;\nst.global.f32 [%rd1], %f4;", new NvptxTarget(90));
        assertTrue(ir.contains("@llvm.nvvm.add.rz.ftz.f(") && ir.contains("asm \"max.f32 $0, $1, $2;\""), ir);
        assertFalse(ir.contains("llvm.copysign") || ir.contains("fcmp uno"), "no generic flush or canonical-NaN code: " + ir);
    }

    @Test
    void nvptxInlinePtx() throws Exception {
        check("warp", WARP, new NvptxTarget(90));
    }

    @Test
    void hostRuntimeCalls() throws Exception {
        check("warp", WARP, HOST);
    }
}
