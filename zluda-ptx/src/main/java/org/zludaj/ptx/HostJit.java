package org.zludaj.ptx;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.javacpp.LongPointer;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMErrorRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMOrcDefinitionGeneratorRef;
import org.bytedeco.llvm.LLVM.LLVMOrcLLJITBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMOrcLLJITRef;
import org.bytedeco.llvm.LLVM.LLVMOrcThreadSafeContextRef;
import org.bytedeco.llvm.LLVM.LLVMTargetMachineRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.llvm.Ll;
import org.zludaj.ptx.llvm.Lowering;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.target.HostTarget;

/**
 * The host target's code generator: PTX kernels compiled by ORC LLJIT into this process. Each module's kernels get a
 * unique symbol prefix, so modules with equal kernel names coexist in the one JIT.
 */
public final class HostJit {
    private final LLVMOrcLLJITRef jit = new LLVMOrcLLJITRef();
    private final HostTarget target;
    private final AtomicLong modules = new AtomicLong();

    public HostJit() throws PtxException {
        this(List.of());
    }

    /** A JIT whose kernels may also call into {@code libraries} (the host runtime). */
    public HostJit(List<String> libraries) throws PtxException {
        Ll.initialize();
        LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
        check(LLVMOrcCreateLLJIT(jit, builder), "creating the host JIT");
        // kernels may call the C library (libm for exp2f, sinf ...): resolve from this process
        LLVMOrcDefinitionGeneratorRef process = new LLVMOrcDefinitionGeneratorRef();
        check(LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(process, LLVMOrcLLJITGetGlobalPrefix(jit), null, null),
                "resolving process symbols");
        LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(jit), process);
        // libm may be loaded only locally (as a dependency of libjvm): search it by name as well
        LLVMOrcDefinitionGeneratorRef libm = new LLVMOrcDefinitionGeneratorRef();
        check(LLVMOrcCreateDynamicLibrarySearchGeneratorForPath(libm, new org.bytedeco.javacpp.BytePointer("libm.so.6"), LLVMOrcLLJITGetGlobalPrefix(jit), null, null),
                "loading libm");
        LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(jit), libm);
        for (String lib : libraries) {
            LLVMOrcDefinitionGeneratorRef g = new LLVMOrcDefinitionGeneratorRef();
            check(LLVMOrcCreateDynamicLibrarySearchGeneratorForPath(g, new org.bytedeco.javacpp.BytePointer(lib), LLVMOrcLLJITGetGlobalPrefix(jit), null, null),
                    "loading " + lib);
            LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(jit), g);
        }
        target = HostTarget.native_();
    }

    private static void check(LLVMErrorRef e, String what) throws PtxException {
        if (e != null && !e.isNull()) throw new PtxException(new Diagnostic("-", 0, 0, what + ": " + Ll.message(LLVMGetErrorMessage(e))));
    }

    public HostTarget target() {
        return target;
    }

    /**
     * A compiled host kernel: its entry (with {@code fibers}: the per-thread kernel; else the block function running
     * every thread of a block) and the static shared memory of its module.
     */
    public record Kernel(long address, long staticShared, boolean fibers) {}

    /** A module-scope {@code .global} or {@code .const} variable: its address in the process and its size. */
    public record Global(long address, long bytes) {}

    /** A compiled module: kernels and module-scope variables by PTX name. */
    public record Loaded(Map<String, Kernel> kernels, Map<String, Global> globals) {}

    /** Compiles every kernel of {@code ptx}; returns kernel name -> entry address. */
    public synchronized Map<String, Long> add(PtxModule ptx) throws PtxException {
        Map<String, Long> out = new HashMap<>();
        load(ptx).kernels().forEach((k, v) -> out.put(k, v.address()));
        return out;
    }

    /** Compiles every kernel of {@code ptx}. */
    public synchronized Map<String, Kernel> addKernels(PtxModule ptx) throws PtxException {
        return load(ptx).kernels();
    }

    /** Compiles {@code ptx}: its kernels, and the addresses of its defined .global and .const variables. */
    public synchronized Loaded load(PtxModule ptx) throws PtxException {
        String prefix = "zm" + modules.incrementAndGet() + "_";
        LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
        LLVMContextRef ctx = LLVMOrcThreadSafeContextGetContext(tsc);
        String layout = LLVMOrcLLJITGetDataLayoutStr(jit).getString();
        LLVMModuleRef m;
        long shared;
        java.util.Set<String> fibers;
        try {
            Lowering.Lowered lowered = Lowering.lowerModule(ptx, target, ctx, layout, prefix);
            m = lowered.module();
            shared = lowered.staticShared();
            fibers = lowered.fiberKernels();
        } catch (PtxException e) {
            LLVMOrcDisposeThreadSafeContext(tsc);
            throw e;
        }
        LLVMSetTarget(m, LLVMOrcLLJITGetTripleString(jit));
        // kernels without block or warp operations: one call per block, the threads a loop LLVM can vectorize
        for (Function f : ptx.functions()) {
            if (!f.entry() || !f.isDefined() || fibers.contains(f.name())) continue;
            long[] sizes = f.params().stream().mapToLong(org.zludaj.ptx.model.Variable::size).toArray();
            LLVMValueRef k = LLVMGetNamedFunction(m, target.kernelSymbol(f.name(), prefix));
            target.addBlockFunction(m, k, target.kernelSymbol(f.name(), prefix) + "$block", sizes);
        }
        LLVMTargetMachineRef tm = Compiler.targetMachine(target);
        try {
            Compiler.optimize(m, tm);
        } finally {
            LLVMDisposeTargetMachine(tm);
        }
        check(LLVMOrcLLJITAddLLVMIRModule(jit, LLVMOrcLLJITGetMainJITDylib(jit), LLVMOrcCreateNewThreadSafeModule(m, tsc)),
                "adding module " + ptx.name());
        LLVMOrcDisposeThreadSafeContext(tsc);
        Map<String, Kernel> out = new HashMap<>();
        for (Function f : ptx.functions()) {
            if (!f.entry() || !f.isDefined()) continue;
            LongPointer addr = new LongPointer(1);
            boolean perThread = fibers.contains(f.name());
            check(LLVMOrcLLJITLookup(jit, addr, target.kernelSymbol(f.name(), prefix) + (perThread ? "" : "$block")), "looking up " + f.name());
            out.put(f.name(), new Kernel(addr.get(), shared, fibers.contains(f.name())));
        }
        Map<String, Global> globals = new HashMap<>();
        for (org.zludaj.ptx.model.Variable v : ptx.globals()) {
            boolean data = v.space() == org.zludaj.ptx.model.StateSpace.GLOBAL || v.space() == org.zludaj.ptx.model.StateSpace.CONST;
            if (!data || v.attributes().contains(".extern")) continue;
            LongPointer addr = new LongPointer(1);
            check(LLVMOrcLLJITLookup(jit, addr, target.kernelSymbol(v.name(), prefix)), "looking up " + v.name());
            globals.put(v.name(), new Global(addr.get(), v.size()));
        }
        return new Loaded(out, globals);
    }
}
