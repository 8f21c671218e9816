package org.zludaj.ptx;

import static org.bytedeco.llvm.global.LLVM.LLVMAssemblyFile;
import static org.bytedeco.llvm.global.LLVM.LLVMObjectFile;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.zludaj.ptx.target.AmdgpuTarget;
import org.zludaj.ptx.target.HostTarget;
import org.zludaj.ptx.target.NvptxTarget;
import org.zludaj.ptx.target.Target;

/**
 * {@code zluda compile IN.ptx... --target gfx1100|sm_90|host [-o OUT] [--suffix S] [--emit-llvm|--emit-asm] [--passes LLVM-PIPELINE]}:
 * compiles PTX files with ZLUDA-J's compiler. Default output: an AMD code object (gfx*), PTX (sm_*), an object
 * file (host). With several inputs, each output is written next to its input with the suffix. Exit status 1 when
 * any input fails, with the diagnostics on stderr.
 */
public final class CompileMain {
    private CompileMain() {}

    public static void main(String[] args) throws Exception {
        String targetName = null, out = null, suffix = null;
        boolean llvm = false, asm = false;
        List<Path> inputs = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--target" -> targetName = args[++i];
                case "-o" -> out = args[++i];
                case "--suffix" -> suffix = args[++i];
                case "--emit-llvm" -> llvm = true;
                case "--emit-asm" -> asm = true;
                case "--passes" -> System.setProperty("zluda.llvm.passes", args[++i]);
                case "--llvm" -> Compiler.llvmOptions(args[++i]);
                default -> inputs.add(Path.of(args[i]));
            }
        }
        if (targetName == null || inputs.isEmpty() || inputs.size() > 1 && suffix == null) {
            System.err.println("usage: zluda compile IN.ptx... --target gfx1100|sm_90|host [-o OUT | --suffix S] [--emit-llvm|--emit-asm] [--passes LLVM-PIPELINE] [--llvm \"LLVM OPTIONS\"]");
            System.exit(2);
        }
        Target target = targetName.startsWith("gfx") ? new AmdgpuTarget(targetName)
                : targetName.startsWith("sm_") ? new NvptxTarget(Integer.parseInt(targetName.substring(3)))
                : HostTarget.native_();
        int failed = 0;
        for (Path in : inputs) {
            Path dest = out != null ? Path.of(out) : suffix != null ? Path.of(in + suffix)
                    : Path.of(in.toString().replaceAll("\\.ptx$", "") + (llvm ? ".ll" : target instanceof NvptxTarget ? ".sm.ptx"
                    : target instanceof AmdgpuTarget && !asm ? ".hsaco" : asm ? ".s" : ".o"));
            try {
                var module = Ptx.parse(in.getFileName().toString(), Files.readString(in));
                byte[] bytes;
                if (llvm) bytes = Compiler.compile(module, target, LLVMAssemblyFile).llvmIr().getBytes(StandardCharsets.UTF_8);
                else if (target instanceof AmdgpuTarget a && !asm) bytes = Compiler.amdgpu(module, a.gfx());
                else bytes = Compiler.compile(module, target, asm || target instanceof NvptxTarget ? LLVMAssemblyFile : LLVMObjectFile, false, CompileProfile.NONE).code();
                Files.write(dest, bytes);
            } catch (PtxException e) {
                failed++;
                System.err.println(in + ": " + e.getMessage());
            } catch (Exception e) {
                failed++;
                System.err.println(in + ": " + e);
            }
        }
        if (inputs.size() > 1) System.err.println("compiled " + (inputs.size() - failed) + " of " + inputs.size() + " for " + target.name());
        System.exit(failed == 0 ? 0 : 1);
    }
}
