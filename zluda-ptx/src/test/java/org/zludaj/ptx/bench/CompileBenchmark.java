package org.zludaj.ptx.bench;

import static org.bytedeco.llvm.global.LLVM.LLVMAssemblyFile;
import static org.bytedeco.llvm.global.LLVM.LLVMObjectFile;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.zludaj.ptx.Compiler;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.target.AmdgpuTarget;
import org.zludaj.ptx.target.HostTarget;
import org.zludaj.ptx.target.NvptxTarget;
import org.zludaj.ptx.target.Target;

/**
 * Compile time of one kernel (lower + LLVM O2 + code generation; AMD: plus linking the code object) for each target,
 * for generated kernels of 1,000, 5,000 and 20,000 instructions: the time per 1,000 PTX lines should stay about flat.
 * Run: bench/compile-bench.sh
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 3, time = 5)
@Fork(value = 1, jvmArgs = {"-Xmx4g"})
public class CompileBenchmark {
    @Param({"1000", "5000", "20000"})
    public int instructions;

    @Param({"host", "gfx1100", "sm_90"})
    public String target;

    PtxModule module;
    Target t;

    /** A kernel of straight-line integer and float arithmetic with loads, stores and a few branches. */
    static String kernel(int n) {
        StringBuilder s = new StringBuilder(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry big(.param .u64 p)\n{\n");
        s.append("\t.reg .pred %p<4>;\n\t.reg .b32 %r<64>;\n\t.reg .f32 %f<64>;\n\t.reg .b64 %rd<8>;\n");
        s.append("\tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n");
        s.append("\tld.global.u32 %r2, [%rd3];\n\tcvt.rn.f32.u32 %f1, %r2;\n");
        java.util.Random r = new java.util.Random(1);
        for (int i = 0; i < n; i++) {
            int a = 2 + r.nextInt(60), b = 2 + r.nextInt(60), d = 2 + r.nextInt(60);
            switch (i % 8) {
                case 0 -> s.append("\tadd.s32 %r").append(d).append(", %r").append(a).append(", %r").append(b).append(";\n");
                case 1 -> s.append("\tmad.lo.s32 %r").append(d).append(", %r").append(a).append(", %r").append(b).append(", %r").append(d).append(";\n");
                case 2 -> s.append("\txor.b32 %r").append(d).append(", %r").append(a).append(", ").append(r.nextInt(1000)).append(";\n");
                case 3 -> s.append("\tfma.rn.f32 %f").append(d).append(", %f").append(a).append(", %f").append(b).append(", %f").append(d).append(";\n");
                case 4 -> s.append("\tmul.rz.f32 %f").append(d).append(", %f").append(a).append(", %f").append(b).append(";\n");
                case 5 -> s.append("\tshl.b32 %r").append(d).append(", %r").append(a).append(", 3;\n");
                case 6 -> s.append("\tsetp.lt.s32 %p1, %r").append(a).append(", %r").append(b).append(";\n\t@%p1 add.s32 %r").append(d).append(", %r").append(d).append(", 1;\n");
                default -> s.append("\tst.global.u32 [%rd3+").append(4 * (i % 64)).append("], %r").append(a).append(";\n");
            }
        }
        s.append("\tcvt.rzi.s32.f32 %r3, %f9;\n\tst.global.u32 [%rd3], %r3;\n\tret;\n}\n");
        return s.toString();
    }

    @Setup
    public void setup() throws Exception {
        module = Ptx.parse("big.ptx", kernel(instructions));
        t = switch (target) {
            case "host" -> HostTarget.native_();
            case "sm_90" -> new NvptxTarget(90);
            default -> new AmdgpuTarget(target);
        };
    }

    @Benchmark
    public int compile() throws Exception {
        if (t instanceof AmdgpuTarget a) return Compiler.amdgpu(module, a.gfx()).length;
        return Compiler.compile(module, t, t instanceof NvptxTarget ? LLVMAssemblyFile : LLVMObjectFile).code().length;
    }
}
