package org.zludaj.ptx.llvm;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.llvm.LLVM.LLVMBasicBlockRef;
import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMMetadataRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;

/**
 * Loop directives for LLVM and ptxas: large loops kept from LLVM's LICM ({@link #disableLicmAbove}), and
 * the PTX's {@code .pragma "nounroll"} carried through LLVM to targets whose output is PTX again
 * ({@link org.zludaj.ptx.target.Target#keepsLoops}). The PTX ISA gives the pragma three scopes: a statement in a loop's
 * header block (that loop), a function's directive (its loops), the module (every loop). The lowering marks a
 * statement-level pragma with a call to {@value #MARKER} where it stands (a call that touches no memory of the
 * program, so LLVM still moves loads and stores around it, and that it neither deletes nor merges away) and a
 * function-level one with the function attribute {@value #ALL}; after LLVM's optimizations {@link #place} puts
 * {@code .pragma "nounroll";} at the head of the innermost loop around each marker (LLVM's loop rotation may have
 * moved the marker out of the header block into the loop's body), or of every loop of a function so marked, and
 * removes the markers.
 */
public final class LoopPragmas {
    private LoopPragmas() {}

    /** The marker function of a statement-level {@code .pragma "nounroll"}. */
    public static final String MARKER = "zluda.loop.nounroll";
    /** The function attribute of a function-level {@code .pragma "nounroll"}. */
    public static final String ALL = "zluda-loops-nounroll";
    private static final String PRAGMA = ".pragma \"nounroll\";";
    /** memory(inaccessiblemem: readwrite): LLVM's MemoryEffects, two bits per location, InaccessibleMem the second. */
    private static final long INACCESSIBLE_MEMORY = 3L << 2;

    /** A statement-level {@code .pragma "nounroll"} at the builder's position. */
    public static void mark(LLVMModuleRef m, LLVMBuilderRef b) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMTypeRef type = LLVMFunctionType(LLVMVoidTypeInContext(ctx), (PointerPointer<?>) null, 0, 0);
        LLVMValueRef f = LLVMGetNamedFunction(m, MARKER);
        if (f == null || f.isNull()) {
            f = LLVMAddFunction(m, MARKER, type);
            for (String a : new String[] {"nounwind", "willreturn", "nosync"}) {
                LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(ctx, kind(a), 0));
            }
            LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(ctx, kind("memory"), INACCESSIBLE_MEMORY));
        }
        LLVMBuildCall2(b, type, f, (PointerPointer<?>) null, 0, "");
    }

    /** Marks every loop of {@code f} (a function-level pragma). */
    public static void markAll(LLVMValueRef f) {
        Ll.addStringAttribute(f, ALL, "");
    }

    private static int kind(String name) {
        return LLVMGetEnumAttributeKindForName(name, name.length());
    }

    /** The pragmas at the loops' headers, the markers removed; returns the number of pragmas placed. */
    public static int place(LLVMModuleRef m) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMTypeRef voidFn = LLVMFunctionType(LLVMVoidTypeInContext(ctx), (PointerPointer<?>) null, 0, 0);
        LLVMValueRef marker = LLVMGetNamedFunction(m, MARKER);
        boolean markers = marker != null && !marker.isNull();
        int placed = 0;
        LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
        try {
            for (LLVMValueRef f = LLVMGetFirstFunction(m); f != null && !f.isNull(); f = LLVMGetNextFunction(f)) {
                if (LLVMCountBasicBlocks(f) == 0) continue;
                var attribute = LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, ALL, ALL.length());
                boolean all = attribute != null && !attribute.isNull();
                Loops loops = new Loops(f);
                BitSet headers = new BitSet();
                if (all) loops.headers.forEach(headers::set);
                if (markers) {
                    for (int k = 0; k < loops.blocks.size(); k++) {
                        LLVMValueRef i = LLVMGetFirstInstruction(loops.blocks.get(k));
                        while (i != null && !i.isNull()) {
                            LLVMValueRef next = LLVMGetNextInstruction(i);
                            if (LLVMGetInstructionOpcode(i) == LLVMCall && marker.equals(LLVMGetCalledValue(i))) {
                                int h = loops.innermost(k);
                                if (h >= 0) headers.set(h);
                                LLVMInstructionEraseFromParent(i);
                            }
                            i = next;
                        }
                    }
                }
                for (int h = headers.nextSetBit(0); h >= 0; h = headers.nextSetBit(h + 1)) {
                    LLVMValueRef first = LLVMGetFirstInstruction(loops.blocks.get(h));
                    while (first != null && !first.isNull() && LLVMGetInstructionOpcode(first) == LLVMPHI) first = LLVMGetNextInstruction(first);
                    if (first == null || first.isNull()) continue;
                    LLVMPositionBuilderBefore(b, first);
                    LLVMValueRef asm = LLVMGetInlineAsm(voidFn, PRAGMA, PRAGMA.length(), "", 0, 1, 0, LLVMInlineAsmDialectATT, 0);
                    LLVMBuildCall2(b, voidFn, asm, (PointerPointer<?>) null, 0, "");
                    placed++;
                }
            }
        } finally {
            LLVMDisposeBuilder(b);
        }
        if (markers && LLVMGetFirstUse(marker) == null) LLVMDeleteFunction(marker);
        return placed;
    }

    /**
     * Every loop whose body holds more than {@code limit} instructions gets LLVM's {@code llvm.licm.disable} (on each
     * back edge's branch, in the loop's own {@code llvm.loop} node), so that a later LICM moves code out of the small
     * loops only; returns the number of loops marked.
     */
    public static int disableLicmAbove(LLVMModuleRef m, int limit) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        int kind = LLVMGetMDKindIDInContext(ctx, "llvm.loop", 9);
        int marked = 0;
        for (LLVMValueRef f = LLVMGetFirstFunction(m); f != null && !f.isNull(); f = LLVMGetNextFunction(f)) {
            if (LLVMCountBasicBlocks(f) == 0) continue;
            Loops loops = new Loops(f);
            for (int h : loops.headers) {
                BitSet body = loops.bodies.get(h);
                int size = 0;
                for (int k = body.nextSetBit(0); k >= 0; k = body.nextSetBit(k + 1)) {
                    for (var i = LLVMGetFirstInstruction(loops.blocks.get(k)); i != null && !i.isNull(); i = LLVMGetNextInstruction(i)) size++;
                }
                if (size <= limit) continue;
                String text = "llvm.licm.disable";
                LLVMMetadataRef property = LLVMMDNodeInContext2(ctx, new PointerPointer<>(1).put(0, LLVMMDStringInContext2(ctx, text, text.length())), 1);
                LLVMMetadataRef self = LLVMTemporaryMDNode(ctx, (PointerPointer<?>) null, 0);
                LLVMMetadataRef id = LLVMMDNodeInContext2(ctx, new PointerPointer<>(self, property), 2);
                LLVMMetadataReplaceAllUsesWith(self, id);  // the loop's own id: its first operand is itself
                LLVMBasicBlockRef header = loops.blocks.get(h);
                for (int k = body.nextSetBit(0); k >= 0; k = body.nextSetBit(k + 1)) {
                    LLVMValueRef t = LLVMGetBasicBlockTerminator(loops.blocks.get(k));
                    if (t == null || t.isNull()) continue;
                    for (int s = 0; s < LLVMGetNumSuccessors(t); s++) {
                        if (LLVMBasicBlockAsValue(LLVMGetSuccessor(t, s)).equals(LLVMBasicBlockAsValue(header))) {
                            LLVMSetMetadata(t, kind, LLVMMetadataAsValue(ctx, id));
                            break;
                        }
                    }
                }
                marked++;
            }
        }
        return marked;
    }

    /**
     * A function's natural loops: its back edges (edges to a block on the depth-first search's path, which in the
     * reducible control flow PTX and LLVM make are exactly the edges to a dominating header) and, per header, the
     * blocks that reach a back edge's source without passing the header.
     */
    static final class Loops {
        final List<LLVMBasicBlockRef> blocks = new ArrayList<>();
        final List<Integer> headers = new ArrayList<>();
        private final Map<Integer, BitSet> bodies = new HashMap<>();

        Loops(LLVMValueRef f) {
            Map<LLVMValueRef, Integer> index = new HashMap<>();
            for (var bb = LLVMGetFirstBasicBlock(f); bb != null && !bb.isNull(); bb = LLVMGetNextBasicBlock(bb)) {
                index.put(LLVMBasicBlockAsValue(bb), blocks.size());
                blocks.add(bb);
            }
            int n = blocks.size();
            List<List<Integer>> succ = new ArrayList<>(), pred = new ArrayList<>();
            for (int k = 0; k < n; k++) {
                succ.add(new ArrayList<>());
                pred.add(new ArrayList<>());
            }
            for (int k = 0; k < n; k++) {
                LLVMValueRef t = LLVMGetBasicBlockTerminator(blocks.get(k));
                if (t == null || t.isNull()) continue;
                for (int s = 0; s < LLVMGetNumSuccessors(t); s++) {
                    Integer to = index.get(LLVMBasicBlockAsValue(LLVMGetSuccessor(t, s)));
                    if (to == null) continue;
                    succ.get(k).add(to);
                    pred.get(to).add(k);
                }
            }
            // iterative depth-first search from the entry: an edge to a block on the path is a back edge
            int[] state = new int[n];  // 0 unseen, 1 on the path, 2 done
            int[] next = new int[n];
            ArrayDeque<Integer> path = new ArrayDeque<>();
            Map<Integer, List<Integer>> backEdges = new HashMap<>();
            path.push(0);
            state[0] = 1;
            while (!path.isEmpty()) {
                int v = path.peek();
                if (next[v] < succ.get(v).size()) {
                    int w = succ.get(v).get(next[v]++);
                    if (state[w] == 0) {
                        state[w] = 1;
                        path.push(w);
                    } else if (state[w] == 1) {
                        backEdges.computeIfAbsent(w, x -> new ArrayList<>()).add(v);
                    }
                } else {
                    state[v] = 2;
                    path.pop();
                }
            }
            for (var e : backEdges.entrySet()) {
                int h = e.getKey();
                BitSet body = new BitSet();
                body.set(h);
                ArrayDeque<Integer> work = new ArrayDeque<>(e.getValue());
                while (!work.isEmpty()) {
                    int v = work.pop();
                    if (body.get(v)) continue;
                    body.set(v);
                    for (int p : pred.get(v)) if (!body.get(p)) work.push(p);
                }
                headers.add(h);
                bodies.put(h, body);
            }
            headers.sort(null);
        }

        /** The header of the innermost loop holding block {@code k}, -1 when none does. */
        int innermost(int k) {
            int best = -1, size = Integer.MAX_VALUE;
            for (int h : headers) {
                BitSet body = bodies.get(h);
                if (body.get(k) && body.cardinality() < size) {
                    best = h;
                    size = body.cardinality();
                }
            }
            return best;
        }
    }
}
