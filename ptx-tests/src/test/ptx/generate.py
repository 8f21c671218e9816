#!/usr/bin/env python3
"""Writes ZLUDA-J's instruction tests: one folder per instruction form, each with kernel.ptx and test.txt (see
ptx-tests/src/test/c/ptxrun.c for the format). Expected outputs (expected.txt) are not written here: they are
recorded from NVIDIA's driver on a GPU (ptx-tests/record-expected.sh) and committed.
Run from anywhere: python3 generate.py   (rewrites the generated folders, leaves expected.txt alone)."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
N = 256          # elements per elementwise test
BLOCK = 128

REGS = """\t.reg .pred %p<16>;
\t.reg .b16 %h<16>;
\t.reg .b32 %r<64>;
\t.reg .b64 %rd<32>;
\t.reg .f32 %f<32>;
\t.reg .f64 %fd<16>;
"""

# register class and size for an element type
def reg(t):
    return {"u8": "%r", "u16": "%h", "s16": "%h", "f16": "%h", "bf16": "%h", "u32": "%r", "s32": "%r", "b32": "%r",
            "f16x2": "%r", "bf16x2": "%r", "u64": "%rd", "s64": "%rd", "b64": "%rd", "f32": "%f", "f64": "%fd"}[t]

def size(t):
    return {"u8": 1, "u16": 2, "s16": 2, "f16": 2, "bf16": 2, "u32": 4, "s32": 4, "b32": 4, "f16x2": 4, "bf16x2": 4,
            "u64": 8, "s64": 8, "b64": 8, "f32": 4, "f64": 8}[t]

def buftype(t):
    return {1: "u8", 2: "u16", 4: "u32", 8: "u64"}[size(t)] if not t.startswith("f") or t in ("f16", "f16x2") else \
        {"f32": "f32", "f64": "f64", "f16": "u16", "f16x2": "u32"}[t]

def ldtype(t):
    return {1: "u8", 2: "b16", 4: "b32", 8: "b64"}[size(t)]

def write(name, ptx, test):
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "kernel.ptx"), "w") as f:
        f.write(ptx)
    with open(os.path.join(d, "test.txt"), "w") as f:
        f.write(test)

def header(sm):
    ver = {75: "7.8", 80: "7.8", 86: "7.8", 89: "7.8", 90: "8.0"}[sm]
    return ".version %s\n.target sm_%d\n.address_size 64\n\n" % (ver, sm)

def elementwise(name, body, ins, out, sm=80, inits=None, tol=None, extra_regs="", n=N):
    """Kernel k(in0, in1, ..., out, n): thread i loads in_j[i] into A,B,C..., runs body (which writes D), stores D.
    ins: list of element types of the inputs; out: element type of the output."""
    names = "ABCDEFG"
    params = ",\n".join(["\t.param .u64 k_in%d" % j for j in range(len(ins))] + ["\t.param .u64 k_out", "\t.param .u32 k_n"])
    s = header(sm) + ".visible .entry k(\n" + params + "\n)\n{\n" + REGS + extra_regs
    s += "\tmov.u32 %r60, %ctaid.x;\n\tmov.u32 %r61, %ntid.x;\n\tmov.u32 %r62, %tid.x;\n\tmad.lo.u32 %r63, %r60, %r61, %r62;\n"
    s += "\tld.param.u32 %r59, [k_n];\n\tsetp.ge.u32 %p15, %r63, %r59;\n\t@%p15 bra DONE;\n"
    sub = {}
    for j, t in enumerate(ins):
        s += "\tld.param.u64 %%rd%d, [k_in%d];\n\tcvta.to.global.u64 %%rd%d, %%rd%d;\n" % (20 + j, j, 20 + j, 20 + j)
        s += "\tmul.wide.u32 %%rd28, %%r63, %d;\n\tadd.s64 %%rd%d, %%rd%d, %%rd28;\n" % (size(t), 20 + j, 20 + j)
        r = "%s%d" % (reg(t), 10 + j)
        lt = ldtype(t) if size(t) > 1 else "u8"
        if size(t) == 1:
            s += "\tld.global.u8 %s, [%%rd%d];\n" % (r, 20 + j)
        else:
            s += "\tld.global.%s %s, [%%rd%d];\n" % (lt, r, 20 + j)
        sub[names[j]] = r
    d = "%s%d" % (reg(out), 9)
    sub["D"] = d
    b = body
    for k, v in sub.items():
        b = b.replace("$" + k, v)
    s += "\t" + b.strip().replace("\n", "\n\t") + "\n"
    s += "\tld.param.u64 %rd27, [k_out];\n\tcvta.to.global.u64 %rd27, %rd27;\n"
    s += "\tmul.wide.u32 %%rd28, %%r63, %d;\n\tadd.s64 %%rd27, %%rd27, %%rd28;\n" % size(out)
    if size(out) == 1:
        s += "\tst.global.u8 [%%rd27], %s;\n" % d
    else:
        s += "\tst.global.%s [%%rd27], %s;\n" % (ldtype(out), d)
    s += "DONE:\n\tret;\n}\n"
    t = "kernel k\ngrid %d 1 1\nblock %d 1 1\n" % ((n + BLOCK - 1) // BLOCK, BLOCK)
    for j, ty in enumerate(ins):
        init = (inits[j] if inits else None) or ("special %d" % (j + 1) if ty.startswith("f") and ty in ("f32", "f64") else "random %d" % (j + 1))
        t += "buffer in%d %s %d %s\n" % (j, buftype(ty), n, init)
    t += "buffer out %s %d fill ee\n" % (buftype(out), n)
    for j in range(len(ins)):
        t += "param buffer in%d\n" % j
    t += "param buffer out\nparam u32 %d\noutput out%s\n" % (n, (" " + tol) if tol else "")
    write(name, s, t)

# ---------------------------------------------------------------------------------------------------- integers
for op in ["add", "sub", "mul.lo", "mul.hi", "min", "max", "div", "rem"]:
    for t in ["s32", "u32", "s64", "u64"]:
        if op in ("div", "rem"):
            # avoid division by zero and the overflowing INT_MIN / -1 (NVIDIA defines neither result)
            body = "or.b%s $B, $B, 1;\nshr.u%s $B, $B, 1;\nadd.u%s $B, $B, 1;\n%s.%s $D, $A, $B;" % (
                (t[1:],) * 3 + (op, t))
        else:
            body = "%s.%s $D, $A, $B;" % (op, t)
        elementwise("int_%s_%s" % (op.replace(".", "_"), t), body, [t, t], t)
for t in ["s16", "u16"]:
    elementwise("int_add_%s" % t, "add.%s $D, $A, $B;" % t, [t, t], t)
    elementwise("int_mul_wide_%s" % t, "mul.wide.%s $D, $A, $B;" % t, [t, t], "u32" if t == "u16" else "s32")
for t in ["s32", "u32"]:
    elementwise("int_mul_wide_%s" % t, "mul.wide.%s $D, $A, $B;" % t, [t, t], t[0] + "64")
    elementwise("int_mad_lo_%s" % t, "mad.lo.%s $D, $A, $B, $C;" % t, [t, t, t], t)
    elementwise("int_mad_hi_%s" % t, "mad.hi.%s $D, $A, $B, $C;" % t, [t, t, t], t)
    elementwise("int_mad_wide_%s" % t, "cvt.%s64.%s32 %%rd9, $C;\nmad.wide.%s $D, $A, $B, %%rd9;" % (t[0], t[0], t), [t, t, t], t[0] + "64")
    elementwise("int_mul24_lo_%s" % t, "mul24.lo.%s $D, $A, $B;" % t, [t, t], t)
    elementwise("int_mul24_hi_%s" % t, "mul24.hi.%s $D, $A, $B;" % t, [t, t], t)
    elementwise("int_mad24_lo_%s" % t, "mad24.lo.%s $D, $A, $B, $C;" % t, [t, t, t], t)
    elementwise("int_sad_%s" % t, "sad.%s $D, $A, $B, $C;" % t, [t, t, t], t)
    elementwise("int_bfe_%s" % t, "bfe.%s $D, $A, $B, $C;" % t, [t, "u32", "u32"], t, inits=[None, "random 7", "random 9"])
    elementwise("int_bfind_%s" % t, "bfind.%s $D, $A;" % t, [t], "u32")
    elementwise("int_dp4a_%s" % t, "dp4a.%s.%s $D, $A, $B, $C;" % (t, t), [t, t, t], t)
    elementwise("int_dp2a_lo_%s" % t, "dp2a.lo.%s.%s $D, $A, $B, $C;" % (t, t), [t, t, t], t)
    elementwise("int_dp2a_hi_%s" % t, "dp2a.hi.%s.%s $D, $A, $B, $C;" % (t, t), [t, t, t], t)
for t in ["s64", "u64"]:
    elementwise("int_mul_wide_lo_%s" % t, "mad.lo.%s $D, $A, $B, $C;" % t, [t, t, t], t)
    elementwise("int_bfe_%s" % t, "bfe.%s $D, $A, $B, $C;" % t, [t, "u32", "u32"], t)
    # positions 0..511 and lengths 0..127: where the 64-bit forms (emulated by NVIDIA) read the operands' upper bits
    elementwise("int_bfe_%s_field" % t, "and.b32 $B, $B, 511;\nand.b32 $C, $C, 127;\nbfe.%s $D, $A, $B, $C;" % t,
                [t, "u32", "u32"], t)
elementwise("int_bfind_shiftamt_u32", "bfind.shiftamt.u32 $D, $A;", ["u32"], "u32")
for t in ["s32", "s64"]:
    elementwise("int_abs_%s" % t, "abs.%s $D, $A;" % t, [t], t)
    elementwise("int_neg_%s" % t, "neg.%s $D, $A;" % t, [t], t)
for op in ["and", "or", "xor"]:
    for t in ["b32", "b64"]:
        elementwise("int_%s_%s" % (op, t), "%s.%s $D, $A, $B;" % (op, t), [t, t], t)
for op in ["not", "cnot", "popc", "clz", "brev"]:
    for t in ["b32", "b64"]:
        out = "u32" if op in ("popc", "clz") else t
        elementwise("int_%s_%s" % (op, t), "%s.%s $D, $A;" % (op, t), [t], out, inits=["special 5"] if op == "cnot" else None)
for t in ["b32", "u32", "s32", "b64", "u64", "s64"]:
    kind = "shl" if t.startswith("b") else "shr"
    for op in (["shl", "shr"] if t.startswith("b") else ["shr"]):
        elementwise("int_%s_%s" % (op, t), "and.b32 $B, $B, 127;\n%s.%s $D, $A, $B;" % (op, t), [t, "u32"], t)
elementwise("int_bfi_b32", "bfi.b32 $D, $A, $B, $C, %r13;", ["b32", "b32", "u32", "u32"], "b32")
elementwise("int_bfi_b64", "bfi.b64 $D, $A, $B, $C, %r13;", ["b64", "b64", "u32", "u32"], "b64")
elementwise("int_bfi_b64_field", "and.b32 $C, $C, 511;\nand.b32 %r13, %r13, 127;\nbfi.b64 $D, $A, $B, $C, %r13;",
            ["b64", "b64", "u32", "u32"], "b64")
for mode in ["", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"]:
    elementwise("int_prmt%s" % mode.replace(".", "_"), "prmt.b32%s $D, $A, $B, $C;" % mode, ["b32", "b32", "b32"], "b32")
for lut in [0x96, 0xe8, 0xfe, 0x80, 0x1e, 0x3c]:
    elementwise("int_lop3_%02x" % lut, "lop3.b32 $D, $A, $B, $C, 0x%02x;" % lut, ["b32", "b32", "b32"], "b32")
for d, m in [("l", "wrap"), ("l", "clamp"), ("r", "wrap"), ("r", "clamp")]:
    elementwise("int_shf_%s_%s" % (d, m), "shf.%s.%s.b32 $D, $A, $B, $C;" % (d, m), ["b32", "b32", "u32"], "b32")
elementwise("int_bmsk_clamp", "bmsk.clamp.b32 $D, $A, $B;", ["u32", "u32"], "b32", inits=["random 3", "random 4"])
elementwise("int_szext_clamp_s32", "szext.clamp.s32 $D, $A, $B;", ["u32", "u32"], "u32")
elementwise("int_szext_wrap_u32", "szext.wrap.u32 $D, $A, $B;", ["u32", "u32"], "u32")
# carry chains: 96-bit add and subtract from 32-bit limbs, and a madc chain
elementwise("int_addc_chain", "add.cc.u32 %r20, $A, $B;\naddc.cc.u32 %r21, $B, $C;\naddc.u32 %r22, $C, $A;\nxor.b32 $D, %r20, %r21;\nxor.b32 $D, $D, %r22;", ["u32", "u32", "u32"], "u32")
elementwise("int_subc_chain", "sub.cc.u32 %r20, $A, $B;\nsubc.cc.u32 %r21, $B, $C;\nsubc.u32 %r22, $C, $A;\nadd.u32 $D, %r20, %r21;\nadd.u32 $D, $D, %r22;", ["u32", "u32", "u32"], "u32")
elementwise("int_madc_chain", "mad.lo.cc.u32 %r20, $A, $B, $C;\nmadc.hi.cc.u32 %r21, $A, $B, $C;\nmadc.lo.u32 %r22, $B, $C, 0;\nxor.b32 $D, %r20, %r21;\nadd.u32 $D, $D, %r22;", ["u32", "u32", "u32"], "u32")
for cmp in ["eq", "ne", "lt", "le", "gt", "ge"]:
    for t in ["s32", "u32", "s64"]:
        elementwise("setp_%s_%s" % (cmp, t), "and.b%s $B, $B, 3;\nand.b%s $A, $A, 3;\nsetp.%s.%s %%p1, $A, $B;\nselp.u32 $D, 1, 0, %%p1;" % (t[1:], t[1:], cmp, t), [t, t], "u32")
for cmp in ["lo", "ls", "hi", "hs"]:
    elementwise("setp_%s_u32" % cmp, "and.b32 $B, $B, 3;\nand.b32 $A, $A, 3;\nsetp.%s.u32 %%p1, $A, $B;\nselp.u32 $D, 1, 0, %%p1;" % cmp, ["u32", "u32"], "u32")
elementwise("setp_and_or_pair", "setp.ne.s32 %p3, $C, 0;\nsetp.lt.and.s32 %p1|%p2, $A, $B, %p3;\nsetp.gt.or.s32 %p3|%p4, $B, $C, %p1;\nselp.u32 %r20, 1, 0, %p2;\nselp.u32 %r21, 2, 0, %p4;\nor.b32 $D, %r20, %r21;", ["s32", "s32", "s32"], "u32")
elementwise("set_lt_u32_s32", "set.lt.u32.s32 $D, $A, $B;", ["s32", "s32"], "u32")
elementwise("set_gt_f32_s32", "set.gt.f32.s32 $D, $A, $B;", ["s32", "s32"], "f32")
elementwise("selp_s64", "setp.lt.s64 %p1, $A, $B;\nselp.b64 $D, $A, $B, %p1;", ["s64", "s64"], "s64")
elementwise("slct_s32", "slct.s32.s32 $D, $A, $B, $C;", ["s32", "s32", "s32"], "s32")
elementwise("slct_f32", "slct.f32.f32 $D, $A, $B, $C;", ["f32", "f32", "f32"], "f32")
elementwise("mov_pack_b64", "mov.b64 $D, {$A, $B};", ["b32", "b32"], "b64")
elementwise("mov_unpack_b64", "mov.b64 {%r20, %r21}, $A;\nsub.u32 $D, %r20, %r21;", ["b64"], "b32")
elementwise("mov_pack_b32_b16", "mov.b32 {%h2, %h3}, $A;\nmov.b32 $D, {%h3, %h2};", ["b32"], "b32")

# ---------------------------------------------------------------------------------------------------- floats
for t in ["f32", "f64"]:
    for op in ["add", "sub", "mul"]:
        for rnd in ["rn", "rz", "rm", "rp"]:
            elementwise("%s_%s_%s" % (t, op, rnd), "%s.%s.%s $D, $A, $B;" % (op, rnd, t), [t, t], t)
    for rnd in ["rn", "rz", "rm", "rp"]:
        elementwise("%s_fma_%s" % (t, rnd), "fma.%s.%s $D, $A, $B, $C;" % (rnd, t), [t, t, t], t)
        elementwise("%s_div_%s" % (t, rnd), "div.%s.%s $D, $A, $B;" % (rnd, t), [t, t], t)
        elementwise("%s_sqrt_%s" % (t, rnd), "sqrt.%s.%s $D, $A;" % (rnd, t), [t], t)
        elementwise("%s_rcp_%s" % (t, rnd), "rcp.%s.%s $D, $A;" % (rnd, t), [t], t)
    for op in ["min", "max", "abs", "neg", "copysign"]:
        if op in ("abs", "neg"):
            elementwise("%s_%s" % (t, op), "%s.%s $D, $A;" % (op, t), [t], t)
        else:
            elementwise("%s_%s" % (t, op), "%s.%s $D, $A, $B;" % (op, t), [t, t], t)
    for cmp in ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]:
        elementwise("%s_setp_%s" % (t, cmp), "setp.%s.%s %%p1, $A, $B;\nselp.u32 $D, 1, 0, %%p1;" % (cmp, t), [t, t], "u32")
    for tp in ["finite", "infinite", "number", "notanumber", "normal", "subnormal"]:
        elementwise("%s_testp_%s" % (t, tp), "testp.%s.%s %%p1, $A;\nselp.u32 $D, 1, 0, %%p1;" % (tp, t), [t], "u32")
    elementwise("%s_rsqrt_approx" % t, "rsqrt.approx.%s $D, $A;" % t, [t], t, inits=["float 3 0.001 1000"], tol="rel 1e-6" if t == "f32" else "rel 1e-8")
for m in ["add.ftz", "sub.ftz", "mul.ftz", "add.sat", "mul.sat", "add.rn.ftz.sat", "min.ftz", "max.ftz", "min.NaN", "max.NaN", "fma.rn.ftz", "fma.rn.sat", "div.full", "div.approx", "div.full.ftz", "div.rn.ftz", "sqrt.rn.ftz", "rcp.rn.ftz"]:
    ar = 3 if m.startswith("fma") else (1 if m.startswith(("sqrt", "rcp")) else 2)
    tol = "ulp 2" if ("full" in m or "approx" in m) else None
    elementwise("f32_%s" % m.replace(".", "_"), "%s.f32 $D, %s;" % (m, ", ".join("$" + "ABC"[i] for i in range(ar))), ["f32"] * ar, "f32", tol=tol)
for op, tol in [("ex2", "rel 2e-6"), ("lg2", "abs 1e-6"), ("sin", "abs 2e-6"), ("cos", "abs 2e-6"), ("rcp", "rel 1e-6"), ("sqrt", "rel 1e-6"), ("tanh", "abs 1e-3")]:
    lo, hi = {"ex2": (-20, 20), "lg2": (0.001, 1000), "sin": (-3.2, 3.2), "cos": (-3.2, 3.2), "rcp": (0.01, 100), "sqrt": (0.01, 100), "tanh": (-4, 4)}[op]
    elementwise("f32_%s_approx" % op, "%s.approx.f32 $D, $A;" % op, ["f32"], "f32", sm=80, inits=["float 3 %g %g" % (lo, hi)], tol=tol)
    if op != "tanh":  # tanh takes no .ftz
        elementwise("f32_%s_approx_ftz" % op, "%s.approx.ftz.f32 $D, $A;" % op, ["f32"], "f32", sm=80, inits=["float 4 %g %g" % (lo, hi)], tol=tol)
# half precision
for op in ["add", "sub", "mul"]:
    for t in ["f16", "f16x2", "bf16", "bf16x2"]:
        sm = 90 if t.startswith("bf16") else 80
        elementwise("%s_%s" % (t, op), "%s.rn.%s $D, $A, $B;" % (op, t), [t, t], t, sm=sm)
for t in ["f16", "f16x2", "bf16", "bf16x2"]:
    elementwise("%s_fma_rn" % t, "fma.rn.%s $D, $A, $B, $C;" % t, [t, t, t], t)
    elementwise("%s_fma_rn_relu" % t, "fma.rn.relu.%s $D, $A, $B, $C;" % t, [t, t, t], t)
    elementwise("%s_min" % t, "min.%s $D, $A, $B;" % t, [t, t], t)
    elementwise("%s_max_nan" % t, "max.NaN.%s $D, $A, $B;" % t, [t, t], t)
    elementwise("%s_neg" % t, "neg.%s $D, $A;" % t, [t], t)
    elementwise("%s_abs" % t, "abs.%s $D, $A;" % t, [t], t)
for t in ["f16", "f16x2"]:
    elementwise("%s_fma_rn_sat" % t, "fma.rn.sat.%s $D, $A, $B, $C;" % t, [t, t, t], t)
    elementwise("%s_setp_lt" % t, "setp.lt.%s %%p1, $A, $B;\nselp.u32 $D, 1, 0, %%p1;" % t if t == "f16" else "setp.lt.f16x2 %%p1|%%p2, $A, $B;\nselp.u32 %%r20, 1, 0, %%p1;\nselp.u32 %%r21, 2, 0, %%p2;\nor.b32 $D, %%r20, %%r21;" % (), [t, t], "u32")
    elementwise("%s_ex2_approx" % t, "ex2.approx.%s $D, $A;" % t, [t], t, tol="ulp 2")
# conversions
CVT = [("s32", "f32", "rni"), ("s32", "f32", "rzi"), ("s32", "f32", "rmi"), ("s32", "f32", "rpi"), ("u32", "f32", "rni"),
       ("s64", "f64", "rzi"), ("u64", "f32", "rzi"), ("s32", "f64", "rni"), ("f32", "s32", "rn"), ("f32", "s32", "rz"),
       ("f32", "u32", "rm"), ("f32", "u32", "rp"), ("f64", "s64", "rn"), ("f32", "s64", "rn"), ("f64", "u64", "rz"),
       ("f32", "f64", "rn"), ("f32", "f64", "rz"), ("f32", "f64", "rm"), ("f32", "f64", "rp"), ("f64", "f32", ""),
       ("f16", "f32", "rn"), ("f16", "f32", "rz"), ("f32", "f16", ""), ("bf16", "f32", "rn"), ("f32", "bf16", ""),
       ("f16", "f64", "rn"), ("f32", "f32", "rni"), ("f32", "f32", "rzi"), ("f32", "f32", "rmi"), ("f32", "f32", "rpi"),
       ("u8", "u32", ""), ("s8", "s32", ""), ("s16", "s32", ""), ("u16", "u64", ""), ("s32", "s8", ""), ("u32", "u16", ""),
       ("s64", "s32", ""), ("u64", "u32", ""), ("s32", "u64", ""),
       # NaN and out-of-range sources into every integer width from both float widths
       ("s64", "f32", "rzi"), ("u64", "f64", "rzi"), ("u32", "f64", "rzi"), ("s16", "f32", "rni"), ("u16", "f64", "rni"),
       ("bf16", "f64", "rn"), ("f16", "f64", "rz"), ("f32", "f16", "")]
for to, frm, rnd in CVT:
    frm_t = {"s8": "u32", "u8": "u32"}.get(frm, frm)
    to_t = {"s8": "u32", "u8": "u32"}.get(to, to)
    r = "." + rnd if rnd else ""
    src = "$A"
    body = "cvt%s.%s.%s $D, $A;" % (r, to, frm)
    if frm in ("s8", "u8"):
        body = "cvt%s.%s.%s $D, $A;" % (r, to, frm)
    name = "cvt_%s_%s%s" % (to, frm, "_" + rnd if rnd else "")
    elementwise(name, body, [frm_t if frm not in ("s8",) else "u32"], to_t if to not in ("s8",) else "u32",
                sm=90 if (to, frm) == ("bf16", "f64") else 80)  # cvt.bf16.f64 needs sm_90
for to, frm in [("s32", "f32"), ("u32", "f32"), ("s16", "f32"), ("u8", "f32"), ("s32", "f64"), ("u16", "s32"), ("s8", "s32"), ("u32", "s64")]:
    rnd = ".rzi" if frm.startswith("f") else ""
    elementwise("cvt_sat_%s_%s" % (to, frm), "cvt%s.sat.%s.%s $D, $A;" % (rnd, to, frm),
                [frm], {"s8": "u32", "u8": "u32", "s16": "u16"}.get(to, to) if to not in ("s8", "u8") else "u32")
elementwise("cvt_ftz_f32_f32_rni", "cvt.rni.ftz.f32.f32 $D, $A;", ["f32"], "f32")
elementwise("cvt_sat_f32_f32", "cvt.sat.f32.f32 $D, $A;", ["f32"], "f32")
elementwise("cvt_rn_f16x2_f32", "cvt.rn.f16x2.f32 $D, $A, $B;", ["f32", "f32"], "b32")
elementwise("cvt_rn_relu_f16x2_f32", "cvt.rn.relu.f16x2.f32 $D, $A, $B;", ["f32", "f32"], "b32")
elementwise("cvt_rn_bf16x2_f32", "cvt.rn.bf16x2.f32 $D, $A, $B;", ["f32", "f32"], "b32")
elementwise("cvt_rna_tf32_f32", "cvt.rna.tf32.f32 $D, $A;", ["f32"], "b32")
elementwise("cvt_satfinite_e4m3x2_f32", "cvt.rn.satfinite.e4m3x2.f32 %h9, $A, $B;\ncvt.u32.u16 $D, %h9;", ["f32", "f32"], "u32", sm=90)
elementwise("cvt_satfinite_e5m2x2_f32", "cvt.rn.satfinite.e5m2x2.f32 %h9, $A, $B;\ncvt.u32.u16 $D, %h9;", ["f32", "f32"], "u32", sm=90)
elementwise("cvt_f16x2_e4m3x2", "cvt.u16.u32 %h8, $A;\ncvt.rn.f16x2.e4m3x2 $D, %h8;", ["u32"], "b32", sm=90)
elementwise("cvt_f16x2_e5m2x2", "cvt.u16.u32 %h8, $A;\ncvt.rn.f16x2.e5m2x2 $D, %h8;", ["u32"], "b32", sm=90)

# ------------------------------------------------------------------------------------------- hand-written kernels
def custom(name, sm, decls, params, body, test):
    s = header(sm) + decls + ".visible .entry k(\n" + ",\n".join("\t" + p for p in params) + "\n)\n{\n" + REGS
    s += "\tmov.u32 %r60, %ctaid.x;\n\tmov.u32 %r61, %ntid.x;\n\tmov.u32 %r62, %tid.x;\n\tmad.lo.u32 %r63, %r60, %r61, %r62;\n"
    s += "\tmul.wide.u32 %rd30, %r63, 4;\n\tld.param.u64 %rd31, [k_out];\n\tcvta.to.global.u64 %rd31, %rd31;\n\tadd.s64 %rd29, %rd31, %rd30;\n"
    s += "\t" + body.strip().replace("\n", "\n\t") + "\n\tret;\n}\n"
    write(name, s, test)

OUT = "param buffer out\noutput out\n"
def geom(grid, block):
    return "kernel k\ngrid %d %d %d\nblock %d %d %d\n" % (grid + block)

# special registers, 3-D geometry
custom("sreg_geometry", 80, "", [".param .u64 k_out"], """
mov.u32 %r1, %tid.y;
mov.u32 %r2, %tid.z;
mov.u32 %r3, %ntid.y;
mov.u32 %r4, %ntid.z;
mov.u32 %r5, %ctaid.y;
mov.u32 %r6, %nctaid.x;
mov.u32 %r7, %nctaid.y;
mov.u32 %r8, %laneid;
mov.u32 %r9, %ctaid.x;
// linear id over the whole 3-D grid
mad.lo.u32 %r10, %r2, %r3, %r1;
mad.lo.u32 %r10, %r10, %r61, %r62;
mad.lo.u32 %r11, %r5, %r6, %r9;
mul.lo.u32 %r12, %r61, %r3;
mul.lo.u32 %r12, %r12, %r4;
mad.lo.u32 %r13, %r11, %r12, %r10;
mul.wide.u32 %rd1, %r13, 4;
add.s64 %rd2, %rd31, %rd1;
shl.b32 %r14, %r8, 24;
shl.b32 %r15, %r7, 20;
or.b32 %r14, %r14, %r15;
shl.b32 %r15, %r2, 16;
or.b32 %r14, %r14, %r15;
shl.b32 %r15, %r1, 8;
or.b32 %r14, %r14, %r15;
or.b32 %r14, %r14, %r62;
st.global.u32 [%rd2], %r14;""", geom((2, 3, 1), (8, 4, 2)) + "buffer out u32 384 fill ee\n" + OUT)
custom("sreg_lanemask", 80, "", [".param .u64 k_out"], """
mov.u32 %r1, %lanemask_lt;
mov.u32 %r2, %lanemask_le;
mov.u32 %r3, %lanemask_gt;
mov.u32 %r4, %lanemask_ge;
mov.u32 %r5, %lanemask_eq;
xor.b32 %r6, %r1, %r3;
add.u32 %r6, %r6, %r2;
add.u32 %r6, %r6, %r4;
add.u32 %r6, %r6, %r5;
st.global.u32 [%rd29], %r6;""", geom((1, 1, 1), (64, 1, 1)) + "buffer out u32 64 fill ee\n" + OUT)
# memory: vectors, shared, local, module-scope globals with initializers, constant memory
custom("mem_vector_v4", 80, "", [".param .u64 k_in", ".param .u64 k_out"], """
ld.param.u64 %rd1, [k_in];
cvta.to.global.u64 %rd1, %rd1;
mul.wide.u32 %rd2, %r63, 16;
add.s64 %rd3, %rd1, %rd2;
ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd3];
add.s64 %rd4, %rd31, %rd2;
st.global.v4.u32 [%rd4], {%r4, %r3, %r2, %r1};
ld.global.nc.v2.f32 {%f1, %f2}, [%rd3+8];
add.f32 %f3, %f1, %f2;
st.global.v2.f32 [%rd4+8], {%f3, %f3};""", geom((1, 1, 1), (64, 1, 1)) + "buffer in u32 256 random 5\nbuffer out u32 256 fill ee\nparam buffer in\n" + OUT)
custom("mem_shared_reverse", 80, "", [".param .u64 k_in", ".param .u64 k_out"], """
.shared .align 4 .b32 tile[128];
ld.param.u64 %rd1, [k_in];
cvta.to.global.u64 %rd1, %rd1;
add.s64 %rd2, %rd1, %rd30;
ld.global.u32 %r1, [%rd2];
mov.u32 %r2, tile;
shl.b32 %r3, %r62, 2;
add.u32 %r4, %r2, %r3;
st.shared.u32 [%r4], %r1;
bar.sync 0;
sub.u32 %r5, 127, %r62;
shl.b32 %r6, %r5, 2;
add.u32 %r7, %r2, %r6;
ld.shared.u32 %r8, [%r7];
st.global.u32 [%rd29], %r8;""", geom((2, 1, 1), (128, 1, 1)) + "buffer in u32 256 random 6\nbuffer out u32 256 fill ee\nparam buffer in\n" + OUT)
custom("mem_shared_dynamic", 80, ".extern .shared .align 16 .b8 dyn[];\n\n", [".param .u64 k_out"], """
mov.u32 %r2, dyn;
shl.b32 %r3, %r62, 3;
add.u32 %r4, %r2, %r3;
cvt.u64.u32 %rd1, %r63;
mul.lo.u64 %rd1, %rd1, 0x9e3779b97f4a7c15;
st.shared.u64 [%r4], %rd1;
bar.sync 0;
xor.b32 %r5, %r62, 1;
shl.b32 %r6, %r5, 3;
add.u32 %r7, %r2, %r6;
ld.shared.u64 %rd2, [%r7];
shr.u64 %rd3, %rd2, 32;
cvt.u32.u64 %r8, %rd3;
st.global.u32 [%rd29], %r8;""", geom((2, 1, 1), (64, 1, 1)) + "shared 512\nbuffer out u32 128 fill ee\n" + OUT)
custom("mem_local_array", 80, "", [".param .u64 k_out"], """
.local .align 4 .b32 arr[16];
mov.u64 %rd1, arr;
mov.u32 %r1, 0;
LOOP:
mul.lo.u32 %r2, %r1, %r63;
add.u32 %r2, %r2, 7;
mul.wide.u32 %rd2, %r1, 4;
add.s64 %rd3, %rd1, %rd2;
st.local.u32 [%rd3], %r2;
add.u32 %r1, %r1, 1;
setp.lt.u32 %p1, %r1, 16;
@%p1 bra LOOP;
and.b32 %r3, %r63, 15;
mul.wide.u32 %rd4, %r3, 4;
add.s64 %rd5, %rd1, %rd4;
ld.local.u32 %r4, [%rd5];
st.global.u32 [%rd29], %r4;""", geom((1, 1, 1), (64, 1, 1)) + "buffer out u32 64 fill ee\n" + OUT)
custom("mem_module_globals", 80, ".global .align 4 .u32 table[8] = {3, 1, 4, 1, 5, 9, 2, 6};\n.const .align 8 .f64 scale = 0d3FF8000000000000;\n.global .align 8 .u64 counter;\n.global .align 8 .u64 ptr_to_table = generic(table);\n\n", [".param .u64 k_out"], """
and.b32 %r1, %r63, 7;
mul.wide.u32 %rd1, %r1, 4;
mov.u64 %rd2, table;
add.s64 %rd3, %rd2, %rd1;
ld.global.u32 %r2, [%rd3];
ld.const.f64 %fd1, [scale];
cvt.rn.f64.u32 %fd2, %r2;
mul.f64 %fd3, %fd1, %fd2;
cvt.rzi.u32.f64 %r3, %fd3;
ld.global.u64 %rd4, [ptr_to_table];
ld.u32 %r4, [%rd4+4];
add.u32 %r5, %r3, %r4;
atom.global.add.u64 %rd5, [counter], 1;
st.global.u32 [%rd29], %r5;""", geom((1, 1, 1), (32, 1, 1)) + "buffer out u32 32 fill ee\n" + OUT)
custom("mem_generic_isspacep", 80, "", [".param .u64 k_in", ".param .u64 k_out"], """
.shared .align 4 .b32 sm[32];
ld.param.u64 %rd1, [k_in];
mov.u64 %rd2, sm;
cvta.shared.u64 %rd3, %rd2;
isspacep.shared %p1, %rd3;
isspacep.global %p2, %rd1;
isspacep.shared %p3, %rd1;
isspacep.global %p4, %rd3;
selp.u32 %r1, 1, 0, %p1;
selp.u32 %r2, 2, 0, %p2;
selp.u32 %r3, 4, 0, %p3;
selp.u32 %r4, 8, 0, %p4;
or.b32 %r5, %r1, %r2;
or.b32 %r5, %r5, %r3;
or.b32 %r5, %r5, %r4;
shl.b32 %r6, %r62, 2;
cvt.u64.u32 %rd4, %r6;
add.s64 %rd5, %rd3, %rd4;
st.u32 [%rd5], %r63;
bar.sync 0;
cvta.to.shared.u64 %rd6, %rd5;
ld.shared.u32 %r7, [%rd6];
shl.b32 %r7, %r7, 4;
or.b32 %r5, %r5, %r7;
st.global.u32 [%rd29], %r5;""", geom((1, 1, 1), (32, 1, 1)) + "buffer in u32 32 zero\nbuffer out u32 32 fill ee\nparam buffer in\n" + OUT)
# control flow and calls
custom("call_device_functions", 80, """.func (.param .b32 r) gcd(.param .b32 a, .param .b32 b)
{
\t.reg .b32 %x<4>;
\t.reg .pred %q;
\tld.param.b32 %x1, [a];
\tld.param.b32 %x2, [b];
\tsetp.eq.u32 %q, %x2, 0;
\t@%q bra BASE;
\trem.u32 %x3, %x1, %x2;
\t{
\t.param .b32 pa;
\t.param .b32 pb;
\t.param .b32 pr;
\tst.param.b32 [pa], %x2;
\tst.param.b32 [pb], %x3;
\tcall (pr), gcd, (pa, pb);
\tld.param.b32 %x1, [pr];
\t}
BASE:
\tst.param.b32 [r], %x1;
\tret;
}

.func (.param .align 8 .b8 pair[8]) swap(.param .align 8 .b8 in[8])
{
\t.reg .b32 %y<3>;
\tld.param.v2.u32 {%y1, %y2}, [in];
\tst.param.v2.u32 [pair], {%y2, %y1};
\tret;
}

""", [".param .u64 k_in", ".param .u64 k_out"], """
ld.param.u64 %rd1, [k_in];
cvta.to.global.u64 %rd1, %rd1;
mul.wide.u32 %rd2, %r63, 8;
add.s64 %rd3, %rd1, %rd2;
ld.global.v2.u32 {%r1, %r2}, [%rd3];
and.b32 %r1, %r1, 0xffff;
and.b32 %r2, %r2, 0xfff;
{
.param .b32 a0;
.param .b32 a1;
.param .b32 ret0;
st.param.b32 [a0], %r1;
st.param.b32 [a1], %r2;
call.uni (ret0), gcd, (a0, a1);
ld.param.b32 %r3, [ret0];
}
{
.param .align 8 .b8 p[8];
.param .align 8 .b8 q[8];
st.param.v2.u32 [p], {%r3, %r1};
call (q), swap, (p);
ld.param.v2.u32 {%r4, %r5}, [q];
}
shl.b32 %r4, %r4, 16;
add.u32 %r6, %r4, %r5;
st.global.u32 [%rd29], %r6;""", geom((2, 1, 1), (64, 1, 1)) + "buffer in u32 256 random 8\nbuffer out u32 128 fill ee\nparam buffer in\n" + OUT)
custom("call_indirect_brx", 80, """.func (.param .b32 r) twice(.param .b32 a)
{
\t.reg .b32 %z<2>;
\tld.param.b32 %z1, [a];
\tadd.u32 %z1, %z1, %z1;
\tst.param.b32 [r], %z1;
\tret;
}

.func (.param .b32 r) square(.param .b32 a)
{
\t.reg .b32 %z<2>;
\tld.param.b32 %z1, [a];
\tmul.lo.u32 %z1, %z1, %z1;
\tst.param.b32 [r], %z1;
\tret;
}

.global .align 8 .u64 fns[2] = {twice, square};

""", [".param .u64 k_out"], """
and.b32 %r1, %r63, 1;
mul.wide.u32 %rd1, %r1, 8;
mov.u64 %rd2, fns;
add.s64 %rd3, %rd2, %rd1;
ld.global.u64 %rd4, [%rd3];
{
.param .b32 a0;
.param .b32 r0;
st.param.b32 [a0], %r63;
proto: .callprototype (.param .b32 _) _ (.param .b32 _);
call (r0), %rd4, (a0), proto;
ld.param.b32 %r2, [r0];
}
and.b32 %r3, %r63, 3;
ts: .branchtargets L0, L1, L2, L3;
brx.idx %r3, ts;
L0:
add.u32 %r2, %r2, 1000;
bra.uni END;
L1:
add.u32 %r2, %r2, 2000;
bra.uni END;
L2:
add.u32 %r2, %r2, 3000;
bra.uni END;
L3:
add.u32 %r2, %r2, 4000;
END:
st.global.u32 [%rd29], %r2;""", geom((1, 1, 1), (64, 1, 1)) + "buffer out u32 64 fill ee\n" + OUT)
custom("control_loop_divergent", 80, "", [".param .u64 k_out"], """
mov.u32 %r1, 0;
mov.u32 %r2, %r63;
COLLATZ:
setp.le.u32 %p1, %r2, 1;
@%p1 bra DONE_C;
and.b32 %r3, %r2, 1;
setp.eq.u32 %p2, %r3, 0;
@%p2 shr.u32 %r2, %r2, 1;
@!%p2 mad.lo.u32 %r2, %r2, 3, 1;
add.u32 %r1, %r1, 1;
bra COLLATZ;
DONE_C:
st.global.u32 [%rd29], %r1;""", geom((2, 1, 1), (128, 1, 1)) + "buffer out u32 256 fill ee\n" + OUT)
# atomics (results independent of thread order)
custom("atom_global_contended", 80, "", [".param .u64 k_acc", ".param .u64 k_out"], """
ld.param.u64 %rd1, [k_acc];
cvta.to.global.u64 %rd1, %rd1;
atom.global.add.u32 %r1, [%rd1], 1;
atom.global.add.u64 %rd2, [%rd1+8], %rd30;
atom.global.max.s32 %r2, [%rd1+16], %r63;
atom.global.min.u32 %r3, [%rd1+20], %r63;
atom.global.or.b32 %r4, [%rd1+24], %r62;
atom.global.and.b32 %r5, [%rd1+28], %r63;
atom.global.xor.b32 %r6, [%rd1+32], %r63;
atom.global.inc.u32 %r7, [%rd1+36], 100;
atom.global.dec.u32 %r8, [%rd1+40], 1000;
cvt.rn.f32.u32 %f1, %r62;
atom.global.add.f32 %f2, [%rd1+44], %f1;
red.global.add.u32 [%rd1+48], 3;
atom.global.exch.b32 %r9, [%rd1+52], 7;
CAS:
ld.volatile.global.u32 %r10, [%rd1+56];
add.u32 %r11, %r10, %r63;
atom.global.cas.b32 %r12, [%rd1+56], %r10, %r11;
setp.ne.u32 %p1, %r12, %r10;
@%p1 bra CAS;
cvt.rn.f64.u32 %fd1, %r63;
atom.global.add.f64 %fd2, [%rd1+64], %fd1;
st.global.u32 [%rd29], %r1;""", geom((4, 1, 1), (256, 1, 1)) + "buffer acc u32 18 fill 0\nbuffer out u32 1024 fill ee\nparam buffer acc\nparam buffer out\noutput acc\n")
custom("atom_shared_histogram", 80, "", [".param .u64 k_in", ".param .u64 k_out"], """
.shared .align 4 .b32 hist[16];
setp.lt.u32 %p1, %r62, 16;
mov.u32 %r1, hist;
shl.b32 %r2, %r62, 2;
add.u32 %r3, %r1, %r2;
@%p1 st.shared.u32 [%r3], 0;
bar.sync 0;
ld.param.u64 %rd1, [k_in];
cvta.to.global.u64 %rd1, %rd1;
add.s64 %rd2, %rd1, %rd30;
ld.global.u32 %r4, [%rd2];
and.b32 %r5, %r4, 15;
shl.b32 %r6, %r5, 2;
add.u32 %r7, %r1, %r6;
atom.shared.add.u32 %r8, [%r7], 1;
bar.sync 0;
ld.shared.u32 %r9, [%r3];
mad.lo.u32 %r10, %r60, 16, %r62;
mul.wide.u32 %rd3, %r10, 4;
add.s64 %rd4, %rd31, %rd3;
@%p1 st.global.u32 [%rd4], %r9;""", geom((2, 1, 1), (256, 1, 1)) + "buffer in u32 512 random 11\nbuffer out u32 32 fill ee\nparam buffer in\n" + OUT)
# warp operations
custom("warp_shfl", 80, "", [".param .u64 k_out"], """
mul.lo.u32 %r1, %r63, 7;
shfl.sync.up.b32 %r2|%p1, %r1, 3, 0, -1;
shfl.sync.down.b32 %r3|%p2, %r1, 5, 31, -1;
shfl.sync.bfly.b32 %r4|%p3, %r1, 9, 31, -1;
shfl.sync.idx.b32 %r5|%p4, %r1, 21, 31, -1;
shfl.sync.idx.b32 %r6, %r1, 2, 0x1c1f, -1;
shfl.sync.down.b32 %r7, %r1, 2, 0x1f, 0xffff;
selp.u32 %r8, 1, 0, %p1;
selp.u32 %r9, 2, 0, %p2;
or.b32 %r8, %r8, %r9;
selp.u32 %r9, 4, 0, %p3;
or.b32 %r8, %r8, %r9;
add.u32 %r10, %r2, %r3;
add.u32 %r10, %r10, %r4;
add.u32 %r10, %r10, %r5;
add.u32 %r10, %r10, %r6;
shl.b32 %r10, %r10, 3;
or.b32 %r10, %r10, %r8;
setp.lt.u32 %p5, %r62, 16;
@%p5 add.u32 %r10, %r10, %r7;
st.global.u32 [%rd29], %r10;""", geom((1, 1, 1), (64, 1, 1)) + "buffer out u32 64 fill ee\n" + OUT)
custom("warp_vote_match_redux", 80, "", [".param .u64 k_in", ".param .u64 k_out"], """
ld.param.u64 %rd1, [k_in];
cvta.to.global.u64 %rd1, %rd1;
add.s64 %rd2, %rd1, %rd30;
ld.global.u32 %r1, [%rd2];
and.b32 %r2, %r1, 3;
setp.eq.u32 %p1, %r2, 0;
vote.sync.ballot.b32 %r3, %p1, -1;
vote.sync.any.pred %p2, %p1, -1;
vote.sync.all.pred %p3, %p1, -1;
vote.sync.uni.pred %p4, %p1, -1;
match.any.sync.b32 %r4, %r2, -1;
match.all.sync.b32 %r5|%p5, %r2, -1;
redux.sync.add.u32 %r6, %r2, -1;
redux.sync.max.s32 %r7, %r1, -1;
redux.sync.or.b32 %r8, %r1, -1;
activemask.b32 %r9;
selp.u32 %r10, 1, 0, %p2;
selp.u32 %r11, 2, 0, %p3;
or.b32 %r10, %r10, %r11;
selp.u32 %r11, 4, 0, %p4;
or.b32 %r10, %r10, %r11;
xor.b32 %r12, %r3, %r4;
add.u32 %r12, %r12, %r5;
add.u32 %r12, %r12, %r6;
xor.b32 %r12, %r12, %r7;
xor.b32 %r12, %r12, %r8;
xor.b32 %r12, %r12, %r9;
shl.b32 %r12, %r12, 3;
or.b32 %r12, %r12, %r10;
st.global.u32 [%rd29], %r12;""", geom((2, 1, 1), (64, 1, 1)) + "buffer in u32 128 random 12\nbuffer out u32 128 fill ee\nparam buffer in\n" + OUT)
custom("warp_divergent_shfl", 80, "", [".param .u64 k_out"], """
and.b32 %r1, %r62, 1;
setp.eq.u32 %p1, %r1, 0;
mov.u32 %r2, 0;
@!%p1 bra ODD;
shfl.sync.bfly.b32 %r2, %r62, 2, 31, 0x55555555;
bra JOIN;
ODD:
shfl.sync.down.b32 %r2, %r62, 2, 31, 0xaaaaaaaa;
JOIN:
bar.warp.sync -1;
vote.sync.ballot.b32 %r3, %p1, -1;
xor.b32 %r4, %r2, %r3;
st.global.u32 [%rd29], %r4;""", geom((1, 1, 1), (32, 1, 1)) + "buffer out u32 32 fill ee\n" + OUT)
custom("warp_elect", 90, "", [".param .u64 k_out"], """
elect.sync %r1|%p1, -1;
selp.u32 %r2, 1, 0, %p1;
shl.b32 %r2, %r2, 8;
or.b32 %r2, %r2, %r1;
st.global.u32 [%rd29], %r2;""", geom((1, 1, 1), (64, 1, 1)) + "buffer out u32 64 fill ee\n" + OUT)
# barriers
custom("bar_reduction_loop", 80, "", [".param .u64 k_in", ".param .u64 k_out"], """
.shared .align 4 .b32 s[1024];
ld.param.u64 %rd1, [k_in];
cvta.to.global.u64 %rd1, %rd1;
add.s64 %rd2, %rd1, %rd30;
ld.global.u32 %r1, [%rd2];
and.b32 %r1, %r1, 0xffff;
mov.u32 %r2, s;
shl.b32 %r3, %r62, 2;
add.u32 %r4, %r2, %r3;
st.shared.u32 [%r4], %r1;
bar.sync 0;
shr.u32 %r5, %r61, 1;
RED:
setp.eq.u32 %p1, %r5, 0;
@%p1 bra OUTRED;
setp.lt.u32 %p2, %r62, %r5;
shl.b32 %r6, %r5, 2;
add.u32 %r7, %r4, %r6;
@%p2 ld.shared.u32 %r8, [%r7];
@%p2 ld.shared.u32 %r9, [%r4];
@%p2 add.u32 %r9, %r9, %r8;
@%p2 st.shared.u32 [%r4], %r9;
bar.sync 0;
shr.u32 %r5, %r5, 1;
bra RED;
OUTRED:
ld.shared.u32 %r10, [%r2];
st.global.u32 [%rd29], %r10;""", geom((2, 1, 1), (1024, 1, 1)) + "buffer in u32 2048 random 13\nbuffer out u32 2048 fill ee\nparam buffer in\n" + OUT)
custom("bar_red_popc_and_or", 80, "", [".param .u64 k_out"], """
and.b32 %r1, %r62, 3;
setp.eq.u32 %p1, %r1, 0;
bar.red.popc.u32 %r2, 0, %p1;
setp.lt.u32 %p2, %r62, 1000;
bar.red.and.pred %p3, 1, %p2;
setp.eq.u32 %p4, %r62, 77;
bar.red.or.pred %p5, 2, %p4;
selp.u32 %r3, 0x10000, 0, %p3;
selp.u32 %r4, 0x20000, 0, %p5;
or.b32 %r5, %r2, %r3;
or.b32 %r5, %r5, %r4;
st.global.u32 [%rd29], %r5;""", geom((2, 1, 1), (256, 1, 1)) + "buffer out u32 512 fill ee\n" + OUT)
custom("bar_partial_count", 80, "", [".param .u64 k_out"], """
.shared .align 4 .b32 s[64];
setp.lt.u32 %p1, %r62, 64;
@!%p1 bra SKIP;
mov.u32 %r1, s;
shl.b32 %r2, %r62, 2;
add.u32 %r3, %r1, %r2;
mul.lo.u32 %r4, %r62, 3;
st.shared.u32 [%r3], %r4;
bar.sync 1, 64;
xor.b32 %r5, %r62, 63;
shl.b32 %r6, %r5, 2;
add.u32 %r7, %r1, %r6;
ld.shared.u32 %r8, [%r7];
st.global.u32 [%rd29], %r8;
SKIP:""", geom((1, 1, 1), (128, 1, 1)) + "buffer out u32 128 fill ee\n" + OUT)

# ------------------------------------------------------------------ coverage: the remaining families of the ISA list
# ordered and cached accesses, prefetch, fences (values independent of timing: each thread reads its own element)
custom("mem_ordered_access", 80, "", [".param .u64 k_in", ".param .u64 k_out"], """
ld.param.u64 %rd1, [k_in];
cvta.to.global.u64 %rd1, %rd1;
add.s64 %rd2, %rd1, %rd30;
prefetch.global.L2 [%rd2];
prefetch.global.L1 [%rd2];
ldu.global.u32 %r1, [%rd1];
ld.global.nc.u32 %r2, [%rd2];
ld.relaxed.gpu.global.u32 %r3, [%rd2];
ld.acquire.gpu.global.u32 %r4, [%rd2];
fence.acq_rel.gpu;
membar.cta;
membar.gl;
fence.sc.sys;
xor.b32 %r5, %r1, %r2;
add.u32 %r5, %r5, %r3;
mad.lo.u32 %r5, %r4, 3, %r5;
st.release.gpu.global.u32 [%rd29], %r5;
st.relaxed.sys.global.u32 [%rd29+1024], %r4;""", geom((2, 1, 1), (128, 1, 1)) + "buffer in u32 256 random 21\nbuffer out u32 512 fill ee\nparam buffer in\n" + OUT)
# half-precision atomics: 256 additions of 1.0 are exact in f16 and bf16
custom("atom_half_add", 90, "", [".param .u64 k_acc", ".param .u64 k_out"], """
ld.param.u64 %rd1, [k_acc];
cvta.to.global.u64 %rd1, %rd1;
mov.b16 %h1, 0x3c00;
atom.global.add.noftz.f16 %h2, [%rd1], %h1;
mov.b32 %r1, 0x3c003c00;
atom.global.add.noftz.f16x2 %r2, [%rd1+4], %r1;
mov.b16 %h3, 0x3f80;
atom.global.add.noftz.bf16 %h4, [%rd1+8], %h3;
mov.b32 %r3, 0x3f803f80;
atom.global.add.noftz.bf16x2 %r4, [%rd1+12], %r3;
red.global.add.noftz.f16x2 [%rd1+16], %r1;
mov.f64 %fd1, 0d3FF0000000000000;
red.global.add.f64 [%rd1+24], %fd1;
st.global.u32 [%rd29], 1;""", geom((2, 1, 1), (128, 1, 1)) + "buffer acc u32 8 fill 0\nbuffer out u32 256 fill ee\nparam buffer acc\nparam buffer out\noutput acc\n")
# the other spellings of barriers and vote
custom("bar_vote_spellings", 80, "", [".param .u64 k_out"], """
barrier.sync 0;
barrier.sync.aligned 0;
bar.sync 0, 64;
mov.u32 %r6, %laneid;
setp.lt.u32 %p1, %r6, 5;
vote.ballot.sync.b32 %r1, %p1, -1;
vote.sync.ballot.b32 %r2, %p1, -1;
bar.warp.sync -1;
vote.all.sync.pred %p2, %p1, -1;
vote.any.sync.pred %p3, %p1, -1;
selp.u32 %r3, 1, 0, %p2;
selp.u32 %r4, 2, 0, %p3;
add.u32 %r5, %r1, %r2;
add.u32 %r5, %r5, %r3;
add.u32 %r5, %r5, %r4;
st.global.u32 [%rd29], %r5;""", geom((2, 1, 1), (64, 1, 1)) + "buffer out u32 128 fill ee\n" + OUT)
# nanosleep, exit of part of the block
custom("ctl_nanosleep_exit", 80, "", [".param .u64 k_out"], """
nanosleep.u32 100;
setp.ge.u32 %p1, %r62, 40;
@%p1 exit;
mul.lo.u32 %r1, %r63, 3;
st.global.u32 [%rd29], %r1;""", geom((2, 1, 1), (64, 1, 1)) + "buffer out u32 128 fill ee\n" + OUT)
# special registers whose values depend on the hardware: only their relations are compared
custom("sreg_hardware", 80, "", [".param .u64 k_out"], """
mov.u64 %rd1, %clock64;
mov.u32 %r1, %warpid;
mov.u32 %r2, %nwarpid;
mov.u32 %r3, %smid;
mov.u32 %r4, %nsmid;
mov.u32 %r5, %gridid;
mov.u64 %rd2, %globaltimer;
mov.u32 %r6, %dynamic_smem_size;
mov.u32 %r7, %total_smem_size;
mov.u32 %r8, %clock;
mov.u64 %rd3, %clock64;
setp.lt.u32 %p1, %r1, %r2;
selp.u32 %r10, 1, 0, %p1;
setp.lt.u32 %p1, %r3, %r4;
selp.u32 %r11, 2, 0, %p1;
or.b32 %r10, %r10, %r11;
setp.ge.u64 %p1, %rd3, %rd1;
selp.u32 %r11, 4, 0, %p1;
or.b32 %r10, %r10, %r11;
setp.ne.u64 %p1, %rd2, 0;
selp.u32 %r11, 8, 0, %p1;
or.b32 %r10, %r10, %r11;
setp.eq.u32 %p1, %r6, 96;
selp.u32 %r11, 16, 0, %p1;
or.b32 %r10, %r10, %r11;
setp.ge.u32 %p1, %r7, %r6;
selp.u32 %r11, 32, 0, %p1;
or.b32 %r10, %r10, %r11;
st.global.u32 [%rd29], %r10;""", geom((2, 1, 1), (128, 1, 1)) + "shared 96\nbuffer out u32 256 fill ee\n" + OUT)
# a loop under .pragma "nounroll"
custom("ctl_pragma_nounroll", 80, "", [".param .u64 k_out"], """
mov.u32 %r1, 0;
mov.u32 %r2, 0;
LOOP:
.pragma "nounroll";
mad.lo.u32 %r2, %r1, %r1, %r2;
add.u32 %r1, %r1, 1;
setp.le.u32 %p1, %r1, %r62;
@%p1 bra LOOP;
st.global.u32 [%rd29], %r2;""", geom((1, 1, 1), (128, 1, 1)) + "buffer out u32 128 fill ee\n" + OUT)
for op in ["min", "max"]:
    elementwise("f32_%s_xorsign_abs" % op, "%s.xorsign.abs.f32 $D, $A, $B;" % op, ["f32", "f32"], "f32", sm=86)
    for t in ["f16", "bf16"]:
        elementwise("%s_%s_xorsign_abs" % (t, op), "%s.xorsign.abs.%s $D, $A, $B;" % (op, t), [t, t], t, sm=86 if t == "f16" else 90)
elementwise("f16_max", "max.f16 $D, $A, $B;", ["f16", "f16"], "f16")
elementwise("f16x2_min_nan", "min.NaN.f16x2 $D, $A, $B;", ["f16x2", "f16x2"], "f16x2")
# trap: the launch fails (the expected output is NVIDIA's error)
custom("ctl_trap", 80, "", [".param .u64 k_out"], """
st.global.u32 [%rd29], %r63;
setp.eq.u32 %p1, %r63, 37;
@%p1 trap;""", geom((2, 1, 1), (64, 1, 1)) + "buffer out u32 128 fill ee\n" + OUT)
# out-of-bounds accesses (addresses that no process maps): the launch fails with NVIDIA's error
custom("mem_oob_store", 80, "", [".param .u64 k_out"], """
st.global.u32 [%rd29], %r63;
setp.eq.u32 %p1, %r63, 37;
mov.u64 %rd1, 16;
@%p1 st.global.u32 [%rd1], %r63;""", geom((2, 1, 1), (64, 1, 1)) + "buffer out u32 128 fill ee\n" + OUT)
custom("mem_oob_load", 80, "", [".param .u64 k_out"], """
setp.eq.u32 %p1, %r63, 77;
mov.u64 %rd1, 8192;
mov.u32 %r1, 0;
@%p1 ld.global.u32 %r1, [%rd1];
st.global.u32 [%rd29], %r1;""", geom((2, 1, 1), (64, 1, 1)) + "buffer out u32 128 fill ee\n" + OUT)
# division by zero and INT_MIN / -1: what NVIDIA returns (no fault); every 4th divisor is 0, every 8th pair MIN / -1
for t in ["s32", "u32", "s64", "u64"]:
    for op in ["div", "rem"]:
        bits = t[1:]
        body = ("and.b%s %%rd8, $B, 3;\nsetp.eq.u%s %%p1, %%rd8, 0;\n@%%p1 mov.b%s $B, 0;\n" % (bits, bits, bits)).replace("%rd8", "%r8" if bits == "32" else "%rd8")
        if t[0] == "s":
            body += ("and.b%s %%rd8, $A, 7;\nsetp.eq.u%s %%p2, %%rd8, 5;\n@%%p2 mov.b%s $A, %s;\n@%%p2 mov.b%s $B, -1;\n" % (
                bits, bits, bits, "0x80000000" if bits == "32" else "0x8000000000000000", bits)).replace("%rd8", "%r8" if bits == "32" else "%rd8")
        elementwise("int_%s_%s_zero" % (op, t), body + "%s.%s $D, $A, $B;" % (op, t), [t, t], t)

# approximate functions on edge values (zeros of both signs, subnormals, infinities, NaN, negatives, the largest and
# smallest normals): where .ftz flushes an input or a result, the values differ by far more than the tolerance
for op, tol in [("rsqrt", "rel 1e-6"), ("sqrt", "rel 1e-6"), ("rcp", "rel 1e-6"), ("ex2", "rel 2e-6"), ("lg2", "abs 2e-5")]:
    for ftz in ("", ".ftz"):
        elementwise("f32_%s_approx%s_edges" % (op, ftz.replace(".", "_")), "%s.approx%s.f32 $D, $A;" % (op, ftz), ["f32"],
                    "f32", sm=80, inits=["special 23"], tol=tol)
elementwise("f32_tanh_approx_edges", "tanh.approx.f32 $D, $A;", ["f32"], "f32", sm=80, inits=["special 23"], tol="rel 1e-4")
for op in ("rsqrt", "rcp"):
    elementwise("f64_%s_approx_ftz_edges" % op, "%s.approx.ftz.f64 $D, $A;" % op, ["f64"], "f64", sm=80, inits=["special 24"],
                tol="rel 2e-6")  # NVIDIA's: the high word of the result only (MUFU.RCP64H/RSQ64H)

# tanh.approx of f16 and bf16 (single and pairs): every bit pattern class from random halves, within 2 units in the
# last place of NVIDIA's (an approximation: its rounding is not the format's)
for t in ("f16", "f16x2", "bf16", "bf16x2"):
    elementwise("%s_tanh_approx" % t, "tanh.approx.%s $D, $A;" % t, [t], t, sm=90, tol="ulp16 2" if t.startswith("f") else "ulpb16 2")

# approximate functions of small arguments (every exponent below 2^1 from random bits: down to subnormals), where a
# formula that cancels loses the result's relative accuracy
# (NVIDIA's sin.approx is accurate in absolute terms only: it gives 0 for tiny arguments)
for op, tol in [("sin", "abs 2e-6"), ("cos", "rel 1e-5"), ("tanh", "rel 1e-4"), ("ex2", "rel 2e-6")]:
    for ftz in ("", ".ftz") if op != "tanh" else ("",):
        elementwise("f32_%s_approx%s_small" % (op, ftz.replace(".", "_")),
                    "mov.b32 %%r20, $A;\nand.b32 %%r20, %%r20, 0xbfffffff;\nmov.b32 %%f20, %%r20;\n%s.approx%s.f32 $D, %%f20;" % (op, ftz),
                    ["f32"], "f32", sm=80, inits=["random 25"], tol=tol)
