package org.zludaj.ptx.llvm;

import static org.bytedeco.llvm.global.LLVM.LLVMAssemblyFile;
import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.zludaj.ptx.Compiler;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.target.AmdgpuTarget;
import org.zludaj.ptx.target.HostTarget;

/**
 * KernelParamWindow: which kernels take a parameter's address, and the host's window of their parameters (executed,
 * against NVIDIA's answers, by ptx-test isspacep_windows).
 */
class KernelParamWindowTest {
    private static String kernel(String body) {
        return ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 k_out, .param .align 8 .b8 k_s[16])\n{\n"
                + ".reg .pred %p<2>;\n.reg .b64 %rd<4>;\n.reg .b32 %r<2>;\nld.param.u64 %rd1, [k_out];\n" + body
                + "st.global.u32 [%rd1], %r1;\nret;\n}\n";
    }

    private static boolean takes(String body) throws Exception {
        return KernelParamWindow.takesAddress(Ptx.parse("k.ptx", kernel(body)).function("k"));
    }

    @Test
    void onlyAParameterUsedAsAnAddressCounts() throws Exception {
        assertFalse(takes("ld.param.u32 %r1, [k_s+8];\n"), "ld.param reads the value");
        assertTrue(takes("mov.u64 %rd2, k_out;\ncvta.param.u64 %rd2, %rd2;\nld.u32 %r1, [%rd2];\n"), "mov of the name");
        assertTrue(takes("mov.u64 %rd2, k_s;\nld.param.u32 %r1, [%rd2+4];\n"), "an array parameter's address");
        assertTrue(takes("{\nmov.u64 %rd2, k_s;\n}\nisspacep.param %p1, %rd2;\nselp.u32 %r1, 1, 0, %p1;\n"), "in a nested block");
        assertTrue(takes("ld.u32 %r1, [k_s+4];\n"), "a generic load from the parameter's address");
    }

    @Test
    void theHostRecordsTheWindowOnlyWhereTheAddressIsTaken() throws Exception {
        String taking = kernel("mov.u64 %rd2, k_s;\ncvta.param.u64 %rd2, %rd2;\nisspacep.param %p1, %rd2;\nselp.u32 %r1, 1, 0, %p1;\n");
        String ir = Compiler.compile(Ptx.parse("k.ptx", taking), HostTarget.native_(), LLVMAssemblyFile).llvmIr();
        assertTrue(ir.matches("(?s).*ptr %1, i(32|64) 104\\b.*") && ir.matches("(?s).*ptr %1, i(32|64) 112\\b.*"),
                "param_lo/param_hi of the thread context written:\n" + ir);
        String reading = kernel("ld.param.u32 %r1, [k_s+8];\nmov.u64 %rd2, 0;\nisspacep.param %p1, %rd2;\n");
        String plain = Compiler.compile(Ptx.parse("k.ptx", reading), HostTarget.native_(), LLVMAssemblyFile).llvmIr();
        assertFalse(plain.contains("%params = alloca"), "no copy where no address is taken");
        // targets with a parameter window of their own are unchanged
        assertFalse(new AmdgpuTarget("gfx1100").recordsParamWindow());
        assertFalse(new AmdgpuTarget("gfx1100").paramsByReference());
    }

    @Test
    void nvptxGivesGridConstantsWhereTheAddressIsTaken() throws Exception {
        String taking = kernel("mov.u64 %rd2, k_s;\ncvta.param.u64 %rd2, %rd2;\nisspacep.param %p1, %rd2;\nselp.u32 %r1, 1, 0, %p1;\n"
                + "ld.u32 %r1, [%rd2+4];\n");
        String sm90 = Compiler.nvptx(Ptx.parse("k.ptx", taking), 90);
        assertTrue(sm90.contains("cvta.param.u64"), "the address in the .param window:\n" + sm90);
        assertTrue(sm90.contains(".param .align 8 .b8 k_param_0[8]") && sm90.contains(".param .align 8 .b8 k_param_1[16]"),
                "each parameter as big and as aligned as in the PTX:\n" + sm90);
        assertFalse(sm90.contains(".local"), "no copy on the stack:\n" + sm90);
        String sm80 = Compiler.nvptx(Ptx.parse("k.ptx", taking), 80);
        assertFalse(sm80.contains("cvta.param"), "PTX 7.0 has no cvta.param of a kernel parameter: a copy as before");
        String reading = Compiler.nvptx(Ptx.parse("k.ptx", kernel("ld.param.u32 %r1, [k_s+8];\n")), 90);
        assertTrue(reading.contains(".param .u64 k_param_0"), "kernels that only read their parameters are unchanged:\n" + reading);
    }
}
