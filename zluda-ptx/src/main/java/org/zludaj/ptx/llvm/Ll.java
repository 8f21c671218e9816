package org.zludaj.ptx.llvm;

import static org.bytedeco.llvm.global.LLVM.*;

import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;

/** Small helpers over the LLVM C API as JavaCPP exposes it. */
public final class Ll {
    private Ll() {}

    private static boolean initialized;

    /** Initializes every LLVM target ZLUDA-J uses, once per process. */
    public static synchronized void initialize() {
        if (initialized) return;
        LLVMInitializeAMDGPUTargetInfo();
        LLVMInitializeAMDGPUTarget();
        LLVMInitializeAMDGPUTargetMC();
        LLVMInitializeAMDGPUAsmPrinter();
        LLVMInitializeAMDGPUAsmParser();
        LLVMInitializeNVPTXTargetInfo();
        LLVMInitializeNVPTXTarget();
        LLVMInitializeNVPTXTargetMC();
        LLVMInitializeNVPTXAsmPrinter();
        LLVMInitializeNativeTarget();
        LLVMInitializeNativeAsmPrinter();
        LLVMInitializeNativeAsmParser();
        LLVMInstallFatalErrorHandler(FATAL);
        initialized = true;
        // LLVM's own options for a process that compiles on demand (the driver inside an application), as
        // `zluda compile --llvm` gives them: to bisect a wrong result with -debug-counter, or to turn a pass off
        String options = System.getenv("ZLUDA_LLVM_OPTIONS");
        if (options != null && !options.isBlank()) org.zludaj.ptx.Compiler.llvmOptions(options);
    }

    /** What the thread compiles now (module and kernel), for {@link #FATAL}'s message. */
    public static final ThreadLocal<String> COMPILING = new ThreadLocal<>();

    /**
     * LLVM's fatal errors end the process whatever the handler does (LLVM exits after calling it): the handler names
     * what was being compiled, so that the message says which kernel to report. Kept in a field: the native side
     * holds on to it.
     */
    private static final org.bytedeco.llvm.LLVM.LLVMFatalErrorHandler FATAL = new org.bytedeco.llvm.LLVM.LLVMFatalErrorHandler() {
        @Override
        public void call(org.bytedeco.javacpp.BytePointer reason) {
            String what = COMPILING.get();
            System.err.println("ZLUDA-J: LLVM ended the process with a fatal error" + (what == null ? "" : " while compiling " + what)
                    + ": " + (reason == null ? "" : reason.getString()));
            System.err.flush();
        }
    };

    /** A real array of pointers (the one-argument PointerPointer constructor is a cast, not an array). */
    public static PointerPointer<Pointer> array(Pointer... items) {
        PointerPointer<Pointer> p = new PointerPointer<>(Math.max(1, items.length));
        for (int i = 0; i < items.length; i++) p.put(i, items[i]);
        return p;
    }

    /** Calls an intrinsic such as {@code llvm.fma} overloaded on {@code overloads}. */
    public static LLVMValueRef intrinsic(LLVMModuleRef m, LLVMBuilderRef b, String name, LLVMTypeRef[] overloads,
                                         LLVMValueRef... args) {
        int id = LLVMLookupIntrinsicID(name, name.length());
        if (id == 0) throw new IllegalArgumentException("unknown intrinsic " + name);
        PointerPointer<Pointer> tys = array(overloads);
        LLVMValueRef fn = LLVMGetIntrinsicDeclaration(m, id, tys, overloads.length);
        LLVMTypeRef fnType = LLVMIntrinsicGetType(LLVMGetModuleContext(m), id, tys, overloads.length);
        return LLVMBuildCall2(b, fnType, fn, array(args), args.length, "");
    }

    /**
     * Inline assembly with side effects: {@code text} uses $0.. for the operands described by {@code constraints}
     * (LLVM's syntax, e.g. "=r,=r,r,l"); returns the call's value (a struct for several outputs).
     */
    public static LLVMValueRef asm(LLVMBuilderRef b, LLVMTypeRef ret, String text, String constraints, LLVMValueRef... args) {
        return asm(b, true, ret, text, constraints, args);
    }

    /** Inline assembly without side effects: a pure function of its operands (LLVM may merge or drop it). */
    public static LLVMValueRef pureAsm(LLVMBuilderRef b, LLVMTypeRef ret, String text, String constraints, LLVMValueRef... args) {
        return asm(b, false, ret, text, constraints, args);
    }

    private static LLVMValueRef asm(LLVMBuilderRef b, boolean sideEffects, LLVMTypeRef ret, String text, String constraints, LLVMValueRef... args) {
        LLVMTypeRef[] types = new LLVMTypeRef[args.length];
        for (int i = 0; i < args.length; i++) types[i] = LLVMTypeOf(args[i]);
        LLVMTypeRef fnType = LLVMFunctionType(ret, array(types), types.length, 0);
        LLVMValueRef fn = LLVMGetInlineAsm(fnType, new BytePointer(text), text.length(), new BytePointer(constraints),
                constraints.length(), sideEffects ? 1 : 0, 0, LLVMInlineAsmDialectATT, 0);
        return LLVMBuildCall2(b, fnType, fn, array(args), args.length, "");
    }

    /**
     * Marks a call convergent (a barrier or a warp collective): LLVM then neither duplicates it (tail duplication,
     * jump threading, unswitching) nor makes it depend on more conditions, so every thread keeps meeting the others at
     * the instruction the PTX names.
     */
    public static LLVMValueRef convergent(LLVMValueRef call) {
        LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(call));
        int kind = LLVMGetEnumAttributeKindForName("convergent", "convergent".length());
        LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(ctx, kind, 0));
        return call;
    }

    /** Gives function {@code f} the string attribute {@code key}={@code value}. */
    public static void addStringAttribute(LLVMValueRef f, String key, String value) {
        LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                LLVMCreateStringAttribute(LLVMGetTypeContext(LLVMTypeOf(f)), key, key.length(), value, value.length()));
    }

    /** Text of an LLVM error message, disposing it. */
    public static String message(BytePointer error) {
        if (error == null || error.isNull()) return "";
        String s = error.getString();
        LLVMDisposeMessage(error);
        return s;
    }

    /** The module as LLVM IR text. */
    public static String print(LLVMModuleRef m) {
        BytePointer p = LLVMPrintModuleToString(m);
        String s = p.getString();
        LLVMDisposeMessage(p);
        return s;
    }

    /**
     * The sign bit of a float value (scalar or vector) as integer arithmetic: flipped ({@code flip}, an exact
     * {@code fneg}) or cleared (an exact {@code fabs}), NaNs included, built before the builder's position.
     */
    public static LLVMValueRef signBit(LLVMBuilderRef b, LLVMValueRef x, boolean flip) {
        LLVMTypeRef t = LLVMTypeOf(x);
        LLVMContextRef ctx = LLVMGetTypeContext(t);
        boolean vector = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
        LLVMTypeRef scalar = vector ? LLVMGetElementType(t) : t;
        int bits = LLVMGetTypeKind(scalar) == LLVMDoubleTypeKind ? 64 : LLVMGetTypeKind(scalar) == LLVMFloatTypeKind ? 32 : 16;
        LLVMTypeRef it = LLVMIntTypeInContext(ctx, bits);
        long sign = 1L << (bits - 1);
        LLVMValueRef mask = LLVMConstInt(it, flip ? sign : sign - 1, 0);
        LLVMTypeRef intType = it;
        if (vector) {
            int n = LLVMGetVectorSize(t);
            LLVMValueRef[] lanes = new LLVMValueRef[n];
            java.util.Arrays.fill(lanes, mask);
            mask = LLVMConstVector(new PointerPointer<>(lanes), n);
            intType = LLVMVectorType(it, n);
        }
        LLVMValueRef bitsOf = LLVMBuildBitCast(b, x, intType, "");
        return LLVMBuildBitCast(b, flip ? LLVMBuildXor(b, bitsOf, mask, "") : LLVMBuildAnd(b, bitsOf, mask, ""), t, "");
    }

    /** Runs {@code body} with a builder of the module's context, disposed after. */
    public static void withBuilder(LLVMModuleRef m, java.util.function.Consumer<LLVMBuilderRef> body) {
        LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
        try {
            body.accept(b);
        } finally {
            LLVMDisposeBuilder(b);
        }
    }

    /** Replaces every use of instruction {@code old} by {@code v} and erases it. */
    public static void replace(LLVMValueRef old, LLVMValueRef v) {
        LLVMReplaceAllUsesWith(old, v);
        LLVMInstructionEraseFromParent(old);
    }

    /** Calls {@code action} on every instruction of a function; it may replace or erase the one it is given. */
    public static void forEachInstruction(LLVMValueRef f, java.util.function.Consumer<LLVMValueRef> action) {
        for (var bb = LLVMGetFirstBasicBlock(f); bb != null && !bb.isNull(); bb = LLVMGetNextBasicBlock(bb)) {
            LLVMValueRef i = LLVMGetFirstInstruction(bb);
            while (i != null && !i.isNull()) {
                LLVMValueRef next = LLVMGetNextInstruction(i);
                action.accept(i);
                i = next;
            }
        }
    }

    /** The name of the function a call instruction calls directly, or null. */
    public static String calledName(LLVMValueRef call) {
        if (LLVMIsACallInst(call) == null || LLVMIsACallInst(call).isNull()) return null;
        LLVMValueRef callee = LLVMGetCalledValue(call);
        if (callee == null || callee.isNull() || LLVMIsAFunction(callee) == null || LLVMIsAFunction(callee).isNull()) return null;
        return LLVMGetValueName(callee).getString();
    }

    /** The instruction count of a function's longest basic block. */
    public static int longestBlock(LLVMValueRef f) {
        int longest = 0;
        for (var bb = LLVMGetFirstBasicBlock(f); bb != null && !bb.isNull(); bb = LLVMGetNextBasicBlock(bb)) {
            int n = 0;
            for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i != null && !i.isNull(); i = LLVMGetNextInstruction(i)) n++;
            longest = Math.max(longest, n);
        }
        return longest;
    }
}
