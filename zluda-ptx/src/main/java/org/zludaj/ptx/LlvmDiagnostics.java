package org.zludaj.ptx;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMDiagnosticHandler;
import org.bytedeco.llvm.LLVM.LLVMDiagnosticInfoRef;

/**
 * LLVM's diagnostics of a compilation, kept for the thread that compiles. Without a handler LLVM prints a diagnostic
 * to stderr and, for an error (register allocation out of registers, an inline-assembly constraint it cannot meet,
 * a resource limit), calls exit(1): the application would end in the middle of a launch. With it, an error fails the
 * compilation of the module (the caller reports the kernel by name) and warnings go to the log.
 */
final class LlvmDiagnostics {
    private LlvmDiagnostics() {}

    private static final class Holder {
        static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LlvmDiagnostics.class);
    }

    /** Errors since the thread's last {@link #install}. */
    private static final ThreadLocal<List<String>> ERRORS = ThreadLocal.withInitial(ArrayList::new);
    /** Stack frame bytes per function, reported by code generation for functions with "warn-stack-size"="0". */
    private static final ThreadLocal<java.util.Map<String, Long>> FRAMES = ThreadLocal.withInitial(java.util.HashMap::new);
    private static final java.util.regex.Pattern FRAME =
            java.util.regex.Pattern.compile("stack frame size \\((\\d+)\\) exceeds limit \\(0\\) in function '([^']*)'");

    /** One handler for every context (a static field: the native callback must outlive every context). */
    private static final LLVMDiagnosticHandler HANDLER = new LLVMDiagnosticHandler() {
        @Override
        public void call(LLVMDiagnosticInfoRef info, Pointer unused) {
            BytePointer d = LLVMGetDiagInfoDescription(info);
            String text = d == null ? "(no description)" : d.getString();
            if (d != null) LLVMDisposeMessage(d);
            java.util.regex.Matcher frame = FRAME.matcher(text);
            if (LLVMGetDiagInfoSeverity(info) == LLVMDSError) ERRORS.get().add(text);
            else if (frame.find()) FRAMES.get().merge(frame.group(2), Long.parseLong(frame.group(1)), Math::max);
            else if (Holder.LOG.isDebugEnabled()) Holder.LOG.debug("LLVM: {}", text);
        }
    };

    /** Routes {@code ctx}'s diagnostics here, for the calling thread. */
    static void install(LLVMContextRef ctx) {
        ERRORS.get().clear();
        FRAMES.get().clear();
        LLVMContextSetDiagnosticHandler(ctx, HANDLER, null);
    }

    /**
     * The stack frame of each function code generation reported since {@link #install} (functions given the
     * attribute "warn-stack-size"="0"; a function without a frame is not reported), and forgets them.
     */
    static java.util.Map<String, Long> takeFrames() {
        java.util.Map<String, Long> frames = new java.util.HashMap<>(FRAMES.get());
        FRAMES.get().clear();
        return frames;
    }

    /** Throws the errors LLVM reported on this thread since {@link #install}, naming {@code stage}. */
    static void check(String stage) throws PtxException {
        List<String> errors = ERRORS.get();
        if (errors.isEmpty()) return;
        String text = String.join("; ", errors);
        errors.clear();
        throw new PtxException(new Diagnostic("-", 0, 0, "LLVM " + stage + ": " + text));
    }
}
