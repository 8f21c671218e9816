package org.zludaj.ptx.llvm;

import static org.bytedeco.llvm.global.LLVM.*;
import static org.zludaj.ptx.TextureDescriptor.*;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.llvm.LLVM.LLVMBasicBlockRef;
import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.Statement.Instruction;
import org.zludaj.ptx.model.Type;

/**
 * Texture and surface instructions of the unified mode (the handle a 64-bit texture or surface object): {@code tex}
 * (1d, 2d, 3d, a1d, a2d; float or integer coordinates; .base/.level/.grad read level 0, as for textures without
 * mipmaps), {@code tld4} (the 2x2 footprint of one component), {@code txq}, {@code suld.b}, {@code sust.b} and
 * {@code suq}. The handle points to a {@link org.zludaj.ptx.TextureDescriptor}; the kernel itself applies the address
 * modes, the filter and the format conversion, in two helper functions of the module ({@value #TEXEL}: one texel by
 * integer coordinates; {@value #SAMPLE}: coordinates scaled, point or linear filtered). The same IR runs on every
 * target. Texture references ({@code .texref}/{@code .surfref} variables) read the descriptor address the driver keeps
 * in the variable. Separate samplers, cube maps, multisample textures and formatted surface stores are reported as not
 * supported.
 */
final class TextureOps {
    static final String TEXEL = "__zluda_tex_texel", SAMPLE = "__zluda_tex_sample";
    private final Lowering l;
    /** The builder of the function being emitted (the kernel's, or a helper's). */
    private LLVMBuilderRef b;

    TextureOps(Lowering l) {
        this.l = l;
    }

    boolean lower(Instruction i) {
        switch (i.opcode()) {
            case "tex" -> tex(i);
            case "tld4" -> gather(i);
            case "txq", "suq" -> query(i);
            case "suld" -> surface(i, true);
            case "sust" -> surface(i, false);
            default -> {
                return false;
            }
        }
        return true;
    }

    // ---- types and small helpers ----

    private LLVMTypeRef i8() { return LLVMInt8TypeInContext(l.ctx); }
    private LLVMTypeRef i32() { return LLVMInt32TypeInContext(l.ctx); }
    private LLVMTypeRef i64() { return LLVMInt64TypeInContext(l.ctx); }
    private LLVMTypeRef f32() { return LLVMFloatTypeInContext(l.ctx); }
    private LLVMTypeRef ptr() { return LLVMPointerTypeInContext(l.ctx, 0); }
    private LLVMTypeRef v4i32() { return LLVMVectorType(i32(), 4); }
    private LLVMTypeRef v4f32() { return LLVMVectorType(f32(), 4); }
    private LLVMValueRef c32(long v) { return LLVMConstInt(i32(), v, 0); }
    private LLVMValueRef c64(long v) { return LLVMConstInt(i64(), v, 0); }
    private LLVMValueRef cf(double v) { return LLVMConstReal(f32(), v); }

    private LLVMValueRef at(LLVMValueRef p, LLVMValueRef byteOffset) {
        return LLVMBuildGEP2(b, i8(), p, Ll.array(byteOffset), 1, "");
    }

    private LLVMValueRef field(LLVMValueRef desc, int offset, LLVMTypeRef t) {
        LLVMValueRef v = LLVMBuildLoad2(b, t, at(desc, c64(offset)), "");
        LLVMSetAlignment(v, t.equals(i64()) ? 8 : 4);
        return v;
    }

    private LLVMValueRef i32Field(LLVMValueRef desc, int offset) {
        return field(desc, offset, i32());
    }

    private LLVMValueRef eq(LLVMValueRef x, long v) { return LLVMBuildICmp(b, LLVMIntEQ, x, c32(v), ""); }
    private LLVMValueRef and(LLVMValueRef x, LLVMValueRef y) { return LLVMBuildAnd(b, x, y, ""); }
    private LLVMValueRef or(LLVMValueRef x, LLVMValueRef y) { return LLVMBuildOr(b, x, y, ""); }
    private LLVMValueRef select(LLVMValueRef c, LLVMValueRef x, LLVMValueRef y) { return LLVMBuildSelect(b, c, x, y, ""); }
    private LLVMValueRef slt(LLVMValueRef x, LLVMValueRef y) { return LLVMBuildICmp(b, LLVMIntSLT, x, y, ""); }
    private LLVMValueRef sge(LLVMValueRef x, LLVMValueRef y) { return LLVMBuildICmp(b, LLVMIntSGE, x, y, ""); }
    private LLVMValueRef floor(LLVMValueRef x) { return Ll.intrinsic(l.module, b, "llvm.floor", new LLVMTypeRef[] {f32()}, x); }

    private LLVMBasicBlockRef block(LLVMValueRef f, String name) {
        return LLVMAppendBasicBlockInContext(l.ctx, f, name);
    }

    /** Runs {@code body} with the builder at the end of a new function's entry block, then restores the builder. */
    private void emit(LLVMValueRef f, java.util.function.Consumer<LLVMValueRef> body) {
        LLVMBuilderRef saved = b;
        b = LLVMCreateBuilderInContext(l.ctx);
        try {
            LLVMPositionBuilderAtEnd(b, block(f, "entry"));
            body.accept(f);
        } finally {
            LLVMDisposeBuilder(b);
            b = saved;
        }
    }

    // ---- the helper functions ----

    private LLVMTypeRef texelType() {
        return LLVMFunctionType(v4i32(), Ll.array(ptr(), i32(), i32(), i32()), 4, 0);
    }

    private LLVMTypeRef sampleType() {
        return LLVMFunctionType(v4i32(), Ll.array(ptr(), f32(), f32(), f32(), i32(), i32(), i32()), 7, 0);
    }

    /** One coordinate under an address mode: the index to read and whether it is inside (border mode reads the border). */
    private LLVMValueRef[] resolve(LLVMValueRef i, LLVMValueRef n, LLVMValueRef mode, LLVMValueRef normalized) {
        // wrap and mirror need normalized coordinates; otherwise they clamp (as NVIDIA's hardware does)
        LLVMValueRef m = select(and(LLVMBuildNot(b, normalized, ""), or(eq(mode, WRAP), eq(mode, MIRROR))), c32(CLAMP), mode);
        LLVMValueRef zero = c32(0), one = c32(1);
        LLVMValueRef r = LLVMBuildSRem(b, i, n, "");
        LLVMValueRef wrap = select(slt(r, zero), LLVMBuildAdd(b, r, n, ""), r);
        LLVMValueRef n2 = LLVMBuildShl(b, n, one, "");
        LLVMValueRef p = LLVMBuildSRem(b, i, n2, "");
        p = select(slt(p, zero), LLVMBuildAdd(b, p, n2, ""), p);
        LLVMValueRef mirror = select(sge(p, n), LLVMBuildSub(b, LLVMBuildSub(b, n2, one, ""), p, ""), p);
        LLVMValueRef last = LLVMBuildSub(b, n, one, "");
        LLVMValueRef clamp = select(slt(i, zero), zero, select(sge(i, n), last, i));
        LLVMValueRef inside = and(sge(i, zero), slt(i, n));
        LLVMValueRef index = select(eq(m, WRAP), wrap, select(eq(m, MIRROR), mirror, select(eq(m, BORDER_MODE), select(inside, i, zero), clamp)));
        LLVMValueRef ok = or(LLVMBuildNot(b, eq(m, BORDER_MODE), ""), inside);
        return new LLVMValueRef[] {index, ok};
    }

    /**
     * {@value #TEXEL}(desc, x, y, z): the texel at integer coordinates after the address modes, as four 32-bit values:
     * float bits where the texture reads as float (float and half formats, normalized 8/16-bit integers), else the
     * sign- or zero-extended integers. Missing channels read 0 (alpha too, as NVIDIA's hardware returns them).
     */
    private LLVMValueRef texelFunction() {
        LLVMValueRef f = LLVMGetNamedFunction(l.module, TEXEL);
        if (f != null && !f.isNull()) return f;
        f = LLVMAddFunction(l.module, TEXEL, texelType());
        LLVMSetLinkage(f, LLVMInternalLinkage);
        emit(f, fn -> {
            LLVMValueRef d = LLVMGetParam(fn, 0);
            LLVMValueRef flags = i32Field(d, FLAGS);
            LLVMValueRef normalized = LLVMBuildICmp(b, LLVMIntNE, and(flags, c32(NORMALIZED_COORDINATES)), c32(0), "");
            LLVMValueRef[] idx = new LLVMValueRef[3];
            LLVMValueRef ok = LLVMConstInt(LLVMInt1TypeInContext(l.ctx), 1, 0);
            int[] extent = {WIDTH, HEIGHT, DEPTH};
            for (int k = 0; k < 3; k++) {
                LLVMValueRef[] r = resolve(LLVMGetParam(fn, k + 1), i32Field(d, extent[k]), i32Field(d, ADDRESS + 4 * k), normalized);
                idx[k] = r[0];
                ok = and(ok, r[1]);
            }
            LLVMValueRef format = i32Field(d, FORMAT);
            LLVMValueRef asFloat = or(or(eq(format, 0x10), eq(format, 0x20)),
                    and(LLVMBuildICmp(b, LLVMIntULT, format, c32(0x10), ""), and(LLVMBuildNot(b, or(eq(format, 0x03), eq(format, 0x0a)), ""),
                            eq(and(flags, c32(READ_AS_INTEGER)), 0))));
            LLVMBasicBlockRef load = block(fn, "load"), border = block(fn, "border");
            LLVMBuildCondBr(b, ok, load, border);
            LLVMPositionBuilderAtEnd(b, border);
            LLVMValueRef bc = LLVMBuildLoad2(b, v4i32(), at(d, c64(BORDER)), "");
            LLVMSetAlignment(bc, 4);
            LLVMBuildRet(b, bc);

            LLVMPositionBuilderAtEnd(b, load);
            LLVMValueRef offset = LLVMBuildAdd(b,
                    LLVMBuildAdd(b, LLVMBuildMul(b, LLVMBuildZExt(b, idx[2], i64(), ""), field(d, SLICE_PITCH, i64()), ""),
                            LLVMBuildMul(b, LLVMBuildZExt(b, idx[1], i64(), ""), field(d, PITCH, i64()), ""), ""),
                    LLVMBuildMul(b, LLVMBuildZExt(b, idx[0], i64(), ""), LLVMBuildZExt(b, i32Field(d, ELEMENT_BYTES), i64(), ""), ""), "");
            LLVMValueRef texel = at(LLVMBuildIntToPtr(b, field(d, BASE, i64()), ptr(), ""), offset);
            LLVMValueRef channels = i32Field(d, CHANNELS);
            // bytes per value: U8/S8 1, U16/S16/HALF 2, U32/S32/FLOAT 4
            LLVMValueRef bytes = select(or(eq(format, 0x01), eq(format, 0x08)), c32(1),
                    select(or(or(eq(format, 0x02), eq(format, 0x09)), eq(format, 0x10)), c32(2), c32(4)));
            LLVMValueRef result = LLVMGetUndef(v4i32());
            for (int c = 0; c < 4; c++) {
                LLVMValueRef present = LLVMBuildICmp(b, LLVMIntULT, c32(c), channels, "");
                LLVMBasicBlockRef read = block(fn, "channel" + c), joined = block(fn, "channel" + c + ".done");
                LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
                LLVMBuildCondBr(b, present, read, joined);
                LLVMPositionBuilderAtEnd(b, read);
                LLVMValueRef value = component(fn, at(texel, LLVMBuildZExt(b, LLVMBuildMul(b, bytes, c32(c), ""), i64(), "")), bytes, format, asFloat);
                LLVMBasicBlockRef readEnd = LLVMGetInsertBlock(b);
                LLVMBuildBr(b, joined);
                LLVMPositionBuilderAtEnd(b, joined);
                LLVMValueRef phi = LLVMBuildPhi(b, i32(), "");
                LLVMAddIncoming(phi, Ll.array(value, c32(0)), Ll.array(readEnd, from), 2);
                result = LLVMBuildInsertElement(b, result, phi, c32(c), "");
            }
            LLVMBuildRet(b, result);
        });
        return f;
    }

    /** One channel value at {@code p}: {@code bytes} wide, converted as the format and read mode say. */
    private LLVMValueRef component(LLVMValueRef fn, LLVMValueRef p, LLVMValueRef bytes, LLVMValueRef format, LLVMValueRef asFloat) {
        LLVMBasicBlockRef one = block(fn, "b1"), two = block(fn, "b2"), four = block(fn, "b4"), done = block(fn, "raw");
        LLVMValueRef sw = LLVMBuildSwitch(b, bytes, four, 2);
        LLVMAddCase(sw, c32(1), one);
        LLVMAddCase(sw, c32(2), two);
        LLVMValueRef[] raw = new LLVMValueRef[3];
        LLVMBasicBlockRef[] ends = {one, two, four};
        LLVMTypeRef[] types = {i8(), LLVMInt16TypeInContext(l.ctx), i32()};
        for (int k = 0; k < 3; k++) {
            LLVMPositionBuilderAtEnd(b, ends[k]);
            LLVMValueRef v = LLVMBuildLoad2(b, types[k], p, "");
            LLVMSetAlignment(v, 1 << k);
            raw[k] = k == 2 ? v : LLVMBuildZExt(b, v, i32(), "");
            LLVMBuildBr(b, done);
        }
        LLVMPositionBuilderAtEnd(b, done);
        LLVMValueRef r = LLVMBuildPhi(b, i32(), "");
        LLVMAddIncoming(r, Ll.array(raw[0], raw[1], raw[2]), Ll.array(one, two, four), 3);
        // integers as read
        LLVMValueRef s8 = LLVMBuildSExt(b, LLVMBuildTrunc(b, r, i8(), ""), i32(), "");
        LLVMValueRef s16 = LLVMBuildSExt(b, LLVMBuildTrunc(b, r, LLVMInt16TypeInContext(l.ctx), ""), i32(), "");
        LLVMValueRef integer = select(eq(format, 0x08), s8, select(eq(format, 0x09), s16, r));
        // as float: normalized integers, half, float
        LLVMValueRef u = LLVMBuildUIToFP(b, r, f32(), ""), s = LLVMBuildSIToFP(b, integer, f32(), "");
        LLVMValueRef un8 = LLVMBuildFDiv(b, u, cf(255), ""), un16 = LLVMBuildFDiv(b, u, cf(65535), "");
        LLVMValueRef sn8 = Ll.intrinsic(l.module, b, "llvm.maxnum", new LLVMTypeRef[] {f32()}, LLVMBuildFDiv(b, s, cf(127), ""), cf(-1));
        LLVMValueRef sn16 = Ll.intrinsic(l.module, b, "llvm.maxnum", new LLVMTypeRef[] {f32()}, LLVMBuildFDiv(b, s, cf(32767), ""), cf(-1));
        LLVMValueRef half = LLVMBuildFPExt(b, LLVMBuildBitCast(b, LLVMBuildTrunc(b, r, LLVMInt16TypeInContext(l.ctx), ""), LLVMHalfTypeInContext(l.ctx), ""), f32(), "");
        LLVMValueRef fl = select(eq(format, 0x01), un8, select(eq(format, 0x02), un16, select(eq(format, 0x08), sn8,
                select(eq(format, 0x09), sn16, select(eq(format, 0x10), half, LLVMBuildBitCast(b, r, f32(), ""))))));
        return select(asFloat, LLVMBuildBitCast(b, fl, i32(), ""), integer);
    }

    /**
     * {@value #SAMPLE}(desc, u, v, w, dims, layerAxis, layer): the first {@code dims} coordinates scaled when the
     * texture has normalized coordinates, then point sampled (floor) or, for linear filtering of textures that read as
     * float, interpolated between the 2, 4 or 8 nearest texels with weights in 1/256 steps as NVIDIA's hardware
     * computes them (each axis's fraction rounded to 1/256, each corner's product of them rounded again); axis {@code layerAxis} (-1: none) reads layer {@code layer}.
     */
    private LLVMValueRef sampleFunction() {
        LLVMValueRef f = LLVMGetNamedFunction(l.module, SAMPLE);
        if (f != null && !f.isNull()) return f;
        LLVMValueRef texel = texelFunction();
        f = LLVMAddFunction(l.module, SAMPLE, sampleType());
        LLVMSetLinkage(f, LLVMInternalLinkage);
        emit(f, fn -> {
            LLVMValueRef d = LLVMGetParam(fn, 0), dims = LLVMGetParam(fn, 4), layerAxis = LLVMGetParam(fn, 5), layer = LLVMGetParam(fn, 6);
            LLVMValueRef flags = i32Field(d, FLAGS);
            LLVMValueRef normalized = LLVMBuildICmp(b, LLVMIntNE, and(flags, c32(NORMALIZED_COORDINATES)), c32(0), "");
            LLVMValueRef format = i32Field(d, FORMAT);
            LLVMValueRef asFloat = or(or(eq(format, 0x10), eq(format, 0x20)),
                    and(LLVMBuildICmp(b, LLVMIntULT, format, c32(0x10), ""), and(LLVMBuildNot(b, or(eq(format, 0x03), eq(format, 0x0a)), ""),
                            eq(and(flags, c32(READ_AS_INTEGER)), 0))));
            LLVMValueRef linear = and(eq(i32Field(d, FILTER), 1), asFloat);
            int[] extent = {WIDTH, HEIGHT, DEPTH};
            LLVMValueRef[] i0 = new LLVMValueRef[3], frac = new LLVMValueRef[3];
            for (int k = 0; k < 3; k++) {
                LLVMValueRef used = LLVMBuildICmp(b, LLVMIntULT, c32(k), dims, "");
                LLVMValueRef x = LLVMGetParam(fn, k + 1);
                x = select(and(normalized, used), LLVMBuildFMul(b, x, LLVMBuildUIToFP(b, i32Field(d, extent[k]), f32(), ""), ""), x);
                LLVMValueRef shifted = select(linear, LLVMBuildFSub(b, x, cf(0.5), ""), x);
                LLVMValueRef fl = floor(shifted);
                LLVMValueRef a = LLVMBuildFSub(b, shifted, fl, "");
                // 8 fractional bits, as the hardware's filter weights: the fraction in 1/256 units (0..256)
                a = Ll.intrinsic(l.module, b, "llvm.rint", new LLVMTypeRef[] {f32()}, LLVMBuildFMul(b, a, cf(256), ""));
                LLVMValueRef index = LLVMBuildFPToSI(b, fl, i32(), "");
                LLVMValueRef isLayer = eq(layerAxis, k);
                i0[k] = select(used, index, select(isLayer, layer, c32(0)));
                frac[k] = select(and(used, linear), a, cf(0));
            }
            LLVMBasicBlockRef point = block(fn, "point"), filtered = block(fn, "linear");
            LLVMBuildCondBr(b, linear, filtered, point);
            LLVMPositionBuilderAtEnd(b, point);
            LLVMBuildRet(b, LLVMBuildCall2(b, texelType(), texel, Ll.array(d, i0[0], i0[1], i0[2]), 4, ""));
            LLVMPositionBuilderAtEnd(b, filtered);
            LLVMValueRef sum = LLVMConstNull(v4f32());
            for (int corner = 0; corner < 8; corner++) {
                LLVMValueRef[] c = new LLVMValueRef[3], w = new LLVMValueRef[3];
                for (int k = 0; k < 3; k++) {
                    boolean up = (corner >> k & 1) != 0;
                    c[k] = up ? LLVMBuildAdd(b, i0[k], c32(1), "") : i0[k];
                    w[k] = up ? frac[k] : LLVMBuildFSub(b, cf(256), frac[k], "");
                }
                // the corner's weight, in 1/256 units as NVIDIA's hardware forms it (fitted to 96 samples on an H200):
                // x times z rounded to the nearest (ties down), that times y rounded to the nearest (ties to even)
                LLVMValueRef xz = Ll.intrinsic(l.module, b, "llvm.ceil", new LLVMTypeRef[] {f32()},
                        LLVMBuildFSub(b, LLVMBuildFMul(b, LLVMBuildFMul(b, w[0], w[2], ""), cf(1.0 / 256), ""), cf(0.5), ""));
                LLVMValueRef weight = Ll.intrinsic(l.module, b, "llvm.rint", new LLVMTypeRef[] {f32()},
                        LLVMBuildFMul(b, LLVMBuildFMul(b, xz, w[1], ""), cf(1.0 / 256), ""));
                weight = LLVMBuildFMul(b, weight, cf(1.0 / 256), "");
                LLVMValueRef t = LLVMBuildBitCast(b, LLVMBuildCall2(b, texelType(), texel, Ll.array(d, c[0], c[1], c[2]), 4, ""), v4f32(), "");
                LLVMValueRef w4 = LLVMBuildShuffleVector(b, LLVMBuildInsertElement(b, LLVMGetUndef(v4f32()), weight, c32(0), ""),
                        LLVMGetUndef(v4f32()), LLVMConstNull(v4i32()), "");
                sum = LLVMBuildFAdd(b, sum, LLVMBuildFMul(b, t, w4, ""), "");
            }
            LLVMBuildRet(b, LLVMBuildBitCast(b, sum, v4i32(), ""));
        });
        return f;
    }

    // ---- instructions ----

    private record Geometry(int dims, int layerAxis) {}

    private Geometry geometry(Instruction i) {
        if (i.has(".1d")) return new Geometry(1, -1);
        if (i.has(".2d")) return new Geometry(2, -1);
        if (i.has(".3d")) return new Geometry(3, -1);
        if (i.has(".a1d")) return new Geometry(1, 1);
        if (i.has(".a2d")) return new Geometry(2, 2);
        throw new Lowering.Unsupported(i.line(), i.text() + ": cube map and multisample textures are not supported yet");
    }

    /** The operand in brackets: {@code [handle, coordinates]} (unified mode). */
    private List<Operand> bracket(Instruction i, int index) {
        if (i.operands().size() <= index || !(i.operands().get(index) instanceof Operand.Bracket br))
            throw new Lowering.Unsupported(i.line(), i.text() + ": expected [handle, coordinates]");
        if (br.elements().size() != 2)
            throw new Lowering.Unsupported(i.line(), i.text() + ": separate samplers (the independent texture mode) are not supported");
        return br.elements();
    }

    /**
     * The descriptor: a texture or surface object's handle, or, for a {@code .texref}/{@code .surfref} module variable
     * (texture references), the descriptor address the driver stored in that variable.
     */
    private LLVMValueRef handle(Instruction i, Operand o) {
        if (o instanceof Operand.Name n && l.variable(n.name()) != null) {
            Lowering.Var v = l.variable(n.name());
            Type t = v.v().type();
            if (t != Type.TEXREF && t != Type.SURFREF)
                throw new Lowering.Unsupported(i.line(), i.text() + ": " + n.name() + " is neither a texture/surface handle nor a .texref/.surfref");
            LLVMValueRef slot = LLVMBuildLoad2(b, i64(), l.variablePointer(v, i), "");
            LLVMSetAlignment(slot, 8);
            return LLVMBuildIntToPtr(b, slot, ptr(), "");
        }
        return LLVMBuildIntToPtr(b, l.read(i, o, Type.U64), ptr(), "");
    }

    private static List<Operand> elements(Operand o) {
        return o instanceof Operand.Vector v ? v.elements() : List.of(o);
    }

    /** The layer (first element of a layered geometry's coordinates) and the remaining coordinates. */
    private LLVMValueRef layer(Instruction i, Geometry g, List<Operand> c) {
        return g.layerAxis < 0 ? c32(0) : l.read(i, c.get(0), Type.U32);
    }

    private List<Operand> coordinates(Geometry g, List<Operand> c) {
        return g.layerAxis < 0 ? c : c.subList(1, c.size());
    }

    private Type[] types(Instruction i) {
        List<Type> ts = new ArrayList<>();
        for (String m : i.modifiers()) {
            Type t = Type.of(m);
            if (t != null) ts.add(t);
        }
        if (ts.size() != 2) throw new Lowering.Unsupported(i.line(), i.text() + ": expected a result and a coordinate type");
        return ts.toArray(new Type[0]);
    }

    private void writeResult(Instruction i, Operand dst, LLVMValueRef v4, Type dtype) {
        if (dtype != Type.F32 && dtype != Type.S32 && dtype != Type.U32)
            throw new Lowering.Unsupported(i.line(), i.text() + ": results of type " + dtype.name().toLowerCase() + " are not supported yet");
        if (dst instanceof Operand.Pair)
            throw new Lowering.Unsupported(i.line(), i.text() + ": the residency predicate (sparse textures) is not supported");
        List<Operand> d = elements(dst);
        if (d.size() != 4) throw new Lowering.Unsupported(i.line(), i.text() + ": expected four destinations");
        for (int k = 0; k < 4; k++) {
            LLVMValueRef e = LLVMBuildExtractElement(b, v4, c32(k), "");
            l.write(i, d.get(k), dtype == Type.F32 ? LLVMBuildBitCast(b, e, f32(), "") : e, dtype == Type.F32 ? Type.F32 : Type.U32);
        }
    }

    private void tex(Instruction i) {
        b = l.b;
        Geometry g = geometry(i);
        Type[] t = types(i);
        if (!i.has(".v4")) throw new Lowering.Unsupported(i.line(), i.text() + ": only .v4 results are supported");
        int extra = i.has(".level") ? 1 : i.has(".grad") ? 2 : 0;
        if (i.operands().size() != 2 + extra)
            throw new Lowering.Unsupported(i.line(), i.text() + ": texel offsets and depth compare are not supported");
        List<Operand> br = bracket(i, 1);
        LLVMValueRef desc = handle(i, br.get(0));
        List<Operand> all = elements(br.get(1));
        LLVMValueRef layer = layer(i, g, all);
        List<Operand> c = coordinates(g, all);
        LLVMValueRef result;
        if (t[1] == Type.S32) {  // integer coordinates: the texel itself (tex1Dfetch)
            LLVMValueRef[] x = new LLVMValueRef[3];
            for (int k = 0; k < 3; k++) x[k] = k < g.dims ? l.read(i, c.get(k), Type.S32) : k == g.layerAxis ? layer : c32(0);
            if (extra > 0) desc = levelDescriptor(desc, lod(i, g, desc), false)[0];
            result = LLVMBuildCall2(b, texelType(), texelFunction(), Ll.array(desc, x[0], x[1], x[2]), 4, "");
        } else {
            LLVMValueRef[] x = new LLVMValueRef[3];
            for (int k = 0; k < 3; k++) x[k] = k < g.dims ? l.read(i, c.get(k), Type.F32) : cf(0);
            if (extra == 0) {  // level 0: a mipmapped texture's first descriptor is its level 0
                result = LLVMBuildCall2(b, sampleType(), sampleFunction(), Ll.array(desc, x[0], x[1], x[2], c32(g.dims), c32(g.layerAxis), layer), 7, "");
            } else {  // .level / .grad: the level(s) the level of detail selects, blended for a linear mipmap filter
                LLVMValueRef[] level = levelDescriptor(desc, lod(i, g, desc), true);
                LLVMValueRef r0 = LLVMBuildCall2(b, sampleType(), sampleFunction(), Ll.array(level[0], x[0], x[1], x[2], c32(g.dims), c32(g.layerAxis), layer), 7, "");
                LLVMValueRef r1 = LLVMBuildCall2(b, sampleType(), sampleFunction(), Ll.array(level[1], x[0], x[1], x[2], c32(g.dims), c32(g.layerAxis), layer), 7, "");
                LLVMValueRef f0 = LLVMBuildBitCast(b, r0, v4f32(), ""), f1 = LLVMBuildBitCast(b, r1, v4f32(), "");
                LLVMValueRef w = LLVMBuildShuffleVector(b, LLVMBuildInsertElement(b, LLVMGetUndef(v4f32()), level[2], c32(0), ""),
                        LLVMGetUndef(v4f32()), LLVMConstNull(v4i32()), "");
                LLVMValueRef blended = LLVMBuildFAdd(b, f0, LLVMBuildFMul(b, LLVMBuildFSub(b, f1, f0, ""), w, ""), "");
                // integer results are not blended (a linear mipmap filter applies to textures that read as floats)
                result = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOEQ, level[2], cf(0), ""), r0, LLVMBuildBitCast(b, blended, v4i32(), ""), "");
            }
        }
        writeResult(i, i.operands().get(0), result, t[0]);
    }

    /**
     * The level of detail of .level (its operand) or .grad (log2 of the larger footprint of the two gradients, in
     * texels of level 0: scaled by the extents where coordinates are normalized).
     */
    private LLVMValueRef lod(Instruction i, Geometry g, LLVMValueRef desc) {
        if (i.has(".level")) return l.read(i, i.operands().get(2), Type.F32);
        LLVMValueRef normalized = LLVMBuildICmp(b, LLVMIntNE, and(i32Field(desc, FLAGS), c32(NORMALIZED_COORDINATES)), c32(0), "");
        int[] extent = {WIDTH, HEIGHT, DEPTH};
        LLVMValueRef rho = cf(0);
        for (int grad = 0; grad < 2; grad++) {
            List<Operand> v = elements(i.operands().get(2 + grad));
            LLVMValueRef sum = cf(0);
            for (int k = 0; k < g.dims && k < v.size(); k++) {
                LLVMValueRef d = l.read(i, v.get(k), Type.F32);
                d = select(normalized, LLVMBuildFMul(b, d, LLVMBuildUIToFP(b, i32Field(desc, extent[k]), f32(), ""), ""), d);
                sum = LLVMBuildFAdd(b, sum, LLVMBuildFMul(b, d, d, ""), "");
            }
            rho = Ll.intrinsic(l.module, b, "llvm.maxnum", new LLVMTypeRef[] {f32()}, rho, Ll.intrinsic(l.module, b, "llvm.sqrt", new LLVMTypeRef[] {f32()}, sum));
        }
        return log2(rho);
    }

    /**
     * log2 of a non-negative float, computed here (NVPTX has no lowering for llvm.log2, and every target gets the same
     * IR): the exponent plus a polynomial of the mantissa in [1, 2), within 1e-4, which is plenty for choosing mipmap
     * levels; 0 gives -infinity.
     */
    private LLVMValueRef log2(LLVMValueRef x) {
        LLVMValueRef bits = LLVMBuildBitCast(b, x, i32(), "");
        LLVMValueRef exponent = LLVMBuildSIToFP(b, LLVMBuildSub(b, LLVMBuildLShr(b, bits, c32(23), ""), c32(127), ""), f32(), "");
        LLVMValueRef m = LLVMBuildBitCast(b, or(and(bits, c32(0x7fffff)), c32(0x3f800000)), f32(), "");
        // log2(m) on [1, 2) through t = (m - 1) / (m + 1): log2(m) = 2/ln2 * (t + t^3/3 + t^5/5 + t^7/7)
        LLVMValueRef t = LLVMBuildFDiv(b, LLVMBuildFSub(b, m, cf(1), ""), LLVMBuildFAdd(b, m, cf(1), ""), "");
        LLVMValueRef t2 = LLVMBuildFMul(b, t, t, "");
        LLVMValueRef p = LLVMBuildFAdd(b, cf(1.0 / 5), LLVMBuildFMul(b, t2, cf(1.0 / 7), ""), "");
        p = LLVMBuildFAdd(b, cf(1.0 / 3), LLVMBuildFMul(b, t2, p, ""), "");
        p = LLVMBuildFAdd(b, cf(1), LLVMBuildFMul(b, t2, p, ""), "");
        LLVMValueRef log = LLVMBuildFAdd(b, exponent, LLVMBuildFMul(b, LLVMBuildFMul(b, t, p, ""), cf(2 / Math.log(2)), ""), "");
        return select(LLVMBuildFCmp(b, LLVMRealOLE, x, cf(0), ""), cf(Double.NEGATIVE_INFINITY), log);
    }

    /**
     * The descriptors a level of detail selects in a mipmapped texture (others: the texture itself): the lod plus the
     * bias, clamped to the texture's level clamps and its levels; a point mipmap filter takes the nearest level,
     * a linear one the two around it and the weight of the second. {lower, upper, weight}.
     */
    private LLVMValueRef[] levelDescriptor(LLVMValueRef desc, LLVMValueRef lod, boolean linearAllowed) {
        LLVMValueRef levels = i32Field(desc, LEVELS);
        LLVMValueRef last = LLVMBuildSIToFP(b, LLVMBuildSub(b, select(slt(levels, c32(1)), c32(1), levels), c32(1), ""), f32(), "");
        LLVMValueRef minClamp = field(desc, MIP_MIN, f32()), maxClamp = field(desc, MIP_MAX, f32());
        LLVMValueRef x = LLVMBuildFAdd(b, lod, field(desc, MIP_BIAS, f32()), "");
        x = Ll.intrinsic(l.module, b, "llvm.maxnum", new LLVMTypeRef[] {f32()}, x, minClamp);
        x = Ll.intrinsic(l.module, b, "llvm.minnum", new LLVMTypeRef[] {f32()}, x, maxClamp);
        x = Ll.intrinsic(l.module, b, "llvm.maxnum", new LLVMTypeRef[] {f32()}, x, cf(0));
        x = Ll.intrinsic(l.module, b, "llvm.minnum", new LLVMTypeRef[] {f32()}, x, last);
        LLVMValueRef linear = linearAllowed ? eq(i32Field(desc, MIP_FILTER), 1) : LLVMConstInt(LLVMInt1TypeInContext(l.ctx), 0, 0);
        LLVMValueRef lower = select(linear, floor(x), Ll.intrinsic(l.module, b, "llvm.rint", new LLVMTypeRef[] {f32()}, x));
        LLVMValueRef upper = Ll.intrinsic(l.module, b, "llvm.minnum", new LLVMTypeRef[] {f32()}, LLVMBuildFAdd(b, lower, cf(1), ""), last);
        LLVMValueRef weight = select(linear, LLVMBuildFSub(b, x, lower, ""), cf(0));
        LLVMValueRef d0 = at(desc, LLVMBuildMul(b, LLVMBuildFPToSI(b, lower, i64(), ""), c64(BYTES), ""));
        LLVMValueRef d1 = at(desc, LLVMBuildMul(b, LLVMBuildFPToSI(b, upper, i64(), ""), c64(BYTES), ""));
        return new LLVMValueRef[] {d0, d1, weight};
    }

    /** tld4.comp.2d/a2d: component comp of the 2x2 texels linear filtering would use, lower left first, counter-clockwise. */
    private void gather(Instruction i) {
        b = l.b;
        Geometry g = geometry(i);
        if (g.dims != 2) throw new Lowering.Unsupported(i.line(), i.text() + ": only 2d and a2d gathers are supported");
        Type[] t = types(i);
        int comp = i.has(".r") ? 0 : i.has(".g") ? 1 : i.has(".b") ? 2 : 3;
        List<Operand> br = bracket(i, 1);
        LLVMValueRef desc = handle(i, br.get(0));
        List<Operand> all = elements(br.get(1));
        LLVMValueRef layer = layer(i, g, all);
        List<Operand> c = coordinates(g, all);
        LLVMValueRef normalized = LLVMBuildICmp(b, LLVMIntNE, and(i32Field(desc, FLAGS), c32(NORMALIZED_COORDINATES)), c32(0), "");
        LLVMValueRef[] base = new LLVMValueRef[2];
        int[] extent = {WIDTH, HEIGHT};
        for (int k = 0; k < 2; k++) {
            LLVMValueRef x = l.read(i, c.get(k), Type.F32);
            x = select(normalized, LLVMBuildFMul(b, x, LLVMBuildUIToFP(b, i32Field(desc, extent[k]), f32(), ""), ""), x);
            base[k] = LLVMBuildFPToSI(b, floor(LLVMBuildFSub(b, x, cf(0.5), "")), i32(), "");
        }
        LLVMValueRef z = g.layerAxis == 2 ? layer : c32(0);
        int[][] order = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
        LLVMValueRef result = LLVMGetUndef(v4i32());
        for (int k = 0; k < 4; k++) {
            LLVMValueRef x = LLVMBuildAdd(b, base[0], c32(order[k][0]), ""), y = LLVMBuildAdd(b, base[1], c32(order[k][1]), "");
            LLVMValueRef texel = LLVMBuildCall2(b, texelType(), texelFunction(), Ll.array(desc, x, y, z), 4, "");
            result = LLVMBuildInsertElement(b, result, LLVMBuildExtractElement(b, texel, c32(comp), ""), c32(k), "");
        }
        writeResult(i, i.operands().get(0), result, t[0]);
    }

    /** txq and suq: a property of the texture or surface. */
    private void query(Instruction i) {
        b = l.b;
        if (i.has(".level")) throw new Lowering.Unsupported(i.line(), i.text() + ": mipmap levels are not supported");
        if (!(i.operands().get(1) instanceof Operand.Address a) || a.base() == null || a.offset() != 0)
            throw new Lowering.Unsupported(i.line(), i.text() + ": expected [handle]");
        LLVMValueRef desc = handle(i, a.base());
        LLVMValueRef v;
        if (i.has(".width")) v = i32Field(desc, WIDTH);
        else if (i.has(".height")) v = i32Field(desc, HEIGHT);
        else if (i.has(".depth")) v = i32Field(desc, DEPTH);
        else if (i.has(".array_size")) v = i32Field(desc, LAYERS);
        else if (i.has(".num_mipmap_levels")) v = select(slt(i32Field(desc, LEVELS), c32(1)), c32(1), i32Field(desc, LEVELS));
        else if (i.has(".normalized_coords")) v = LLVMBuildLShr(b, and(i32Field(desc, FLAGS), c32(NORMALIZED_COORDINATES)), c32(1), "");
        else if (i.has(".filter_mode")) v = i32Field(desc, FILTER);
        else if (i.has(".addr_mode_0")) v = i32Field(desc, ADDRESS);
        else if (i.has(".addr_mode_1")) v = i32Field(desc, ADDRESS + 4);
        else if (i.has(".addr_mode_2")) v = i32Field(desc, ADDRESS + 8);
        else throw new Lowering.Unsupported(i.line(), "query " + i.text() + " is not supported yet");
        l.write(i, i.operands().get(0), v, Type.U32);
    }

    /**
     * suld.b / sust.b: the x coordinate in bytes, y and z in rows and slices; an access outside the surface traps
     * (.trap), reads zeros or is dropped (.zero), or is moved to the nearest place inside (.clamp).
     */
    private void surface(Instruction i, boolean load) {
        b = l.b;
        if (!i.has(".b")) throw new Lowering.Unsupported(i.line(), i.text() + ": formatted surface access (.p) is not supported yet");
        Geometry g = geometry(i);
        Type t = l.type(i);
        int n = i.has(".v4") ? 4 : i.has(".v2") ? 2 : 1;
        int bytes = n * t.bytes();
        List<Operand> br = bracket(i, load ? 1 : 0);
        LLVMValueRef desc = handle(i, br.get(0));
        List<Operand> all = elements(br.get(1));
        LLVMValueRef layer = layer(i, g, all);
        List<Operand> c = coordinates(g, all);
        LLVMValueRef[] x = new LLVMValueRef[3];
        for (int k = 0; k < 3; k++) x[k] = k < g.dims ? l.read(i, c.get(k), Type.S32) : k == g.layerAxis ? layer : c32(0);
        LLVMValueRef rowBytes = LLVMBuildMul(b, i32Field(desc, WIDTH), i32Field(desc, ELEMENT_BYTES), "");
        LLVMValueRef[] limit = {LLVMBuildSub(b, rowBytes, c32(bytes - 1), ""), i32Field(desc, HEIGHT), i32Field(desc, DEPTH)};
        LLVMValueRef inside = LLVMConstInt(LLVMInt1TypeInContext(l.ctx), 1, 0);
        for (int k = 0; k < 3; k++) {
            LLVMValueRef ok = and(sge(x[k], c32(0)), slt(x[k], limit[k]));
            inside = and(inside, ok);
            if (i.has(".clamp")) {
                LLVMValueRef last = LLVMBuildSub(b, limit[k], c32(1), "");
                x[k] = select(slt(x[k], c32(0)), c32(0), select(sge(x[k], limit[k]), last, x[k]));
            }
        }
        if (i.has(".clamp")) inside = LLVMConstInt(LLVMInt1TypeInContext(l.ctx), 1, 0);
        LLVMValueRef offset = LLVMBuildAdd(b,
                LLVMBuildAdd(b, LLVMBuildMul(b, LLVMBuildSExt(b, x[2], i64(), ""), field(desc, SLICE_PITCH, i64()), ""),
                        LLVMBuildMul(b, LLVMBuildSExt(b, x[1], i64(), ""), field(desc, PITCH, i64()), ""), ""),
                LLVMBuildSExt(b, x[0], i64(), ""), "");
        LLVMValueRef p = at(LLVMBuildIntToPtr(b, field(desc, BASE, i64()), ptr(), ""), offset);
        LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
        LLVMBasicBlockRef access = block(fn, "surface.access"), outside = block(fn, "surface.outside"), done = block(fn, "surface.done");
        LLVMBuildCondBr(b, inside, access, outside);
        LLVMTypeRef lt = l.llvmType(t), vt = n == 1 ? lt : LLVMVectorType(lt, n);
        List<Operand> values = elements(i.operands().get(load ? 0 : 1));
        if (values.size() != n) throw new Lowering.Unsupported(i.line(), i.text() + ": expected " + n + " values");
        LLVMPositionBuilderAtEnd(b, access);
        LLVMValueRef loaded = null;
        if (load) {
            loaded = LLVMBuildLoad2(b, vt, p, "");
            LLVMSetAlignment(loaded, 1);
        } else {
            LLVMValueRef v = n == 1 ? l.read(i, values.get(0), t) : LLVMGetUndef(vt);
            for (int k = 0; n > 1 && k < n; k++) v = LLVMBuildInsertElement(b, v, l.read(i, values.get(k), t), c32(k), "");
            LLVMSetAlignment(LLVMBuildStore(b, v, p), 1);
        }
        LLVMBuildBr(b, done);
        LLVMPositionBuilderAtEnd(b, outside);
        if (i.has(".trap")) {
            l.target.trap(l.module, b, l.threadContext());
            LLVMBuildUnreachable(b);
        } else {
            LLVMBuildBr(b, done);
        }
        LLVMPositionBuilderAtEnd(b, done);
        if (load) {
            LLVMValueRef r = loaded;
            if (!i.has(".trap")) {
                r = LLVMBuildPhi(b, vt, "");
                LLVMAddIncoming(r, Ll.array(loaded, LLVMConstNull(vt)), Ll.array(access, outside), 2);
            }
            for (int k = 0; k < n; k++) l.write(i, values.get(k), n == 1 ? r : LLVMBuildExtractElement(b, r, c32(k), ""), t);
        }
    }
}
