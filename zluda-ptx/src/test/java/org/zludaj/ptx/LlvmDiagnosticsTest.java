package org.zludaj.ptx;

import static org.bytedeco.llvm.global.LLVM.*;
import static org.junit.jupiter.api.Assertions.*;

import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMTargetMachineRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.junit.jupiter.api.Test;
import org.zludaj.ptx.target.HostTarget;

/**
 * An error LLVM reports while generating code (here an inline-assembly register constraint x86 has no register for)
 * fails the compilation with LLVM's message instead of LLVM's default, exit(1), which would end the application.
 */
class LlvmDiagnosticsTest {
    @Test
    void aCodeGenerationErrorFailsTheCompilationAndTheProcessGoesOn() throws Exception {
        LLVMTargetMachineRef tm = Compiler.targetMachine(HostTarget.native_());
        LLVMContextRef ctx = LLVMContextCreate();
        LlvmDiagnostics.install(ctx);
        try {
            LLVMModuleRef m = LLVMModuleCreateWithNameInContext("diag", ctx);
            LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
            LLVMTypeRef fnType = LLVMFunctionType(i32, (PointerPointer<?>) null, 0, 0);
            LLVMValueRef fn = LLVMAddFunction(m, "f", fnType);
            LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
            LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
            String constraints = "={no_such_register}";
            LLVMValueRef asm = LLVMGetInlineAsm(fnType, new BytePointer("mov $$1, $0"), 10, new BytePointer(constraints),
                    constraints.length(), 1, 0, LLVMInlineAsmDialectATT, 0);
            LLVMBuildRet(b, LLVMBuildCall2(b, fnType, asm, (PointerPointer<?>) null, 0, "r"));
            LLVMDisposeBuilder(b);
            PtxException e = assertThrows(PtxException.class, () -> Compiler.emit(tm, m, LLVMObjectFile));
            assertTrue(e.getMessage().contains("LLVM code generation") && e.getMessage().contains("no_such_register"), e.getMessage());
            // the thread's next compilation starts clean
            LlvmDiagnostics.check("code generation");
            LLVMDisposeModule(m);
        } finally {
            LLVMContextDispose(ctx);
            LLVMDisposeTargetMachine(tm);
        }
    }
}
