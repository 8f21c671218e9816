#!/usr/bin/env python3
"""Writes ptx-test forms_more: valid PTX forms that the compiler accepts and that no NVIDIA-checked test used
(docs/isa-coverage.md's last column): 64-bit bfind and sad, 16-bit sad/div/rem/neg/abs/mul/mad, mul24/mad24 .hi
(.sat), slct (.ftz), carry chains in .s32/.u64/.s64 (add/sub/mad .cc, addc/subc/madc), set with unordered float
comparisons, f64 and unsigned integer comparisons, mad.f64 roundings, cnot/not.b16, isspacep of .const/.local/
.shared/.global addresses (in ptx-test isspacep_spaces), max/min .relu and 16x2 forms, .xorsign.abs, ld.global.nc and ldu, match.sync.b64, and
atomics: atom 64-bit cas/exch/min/max/and/or/xor/add, f64 add, inc/dec (one address per thread, so the old values
are deterministic), red f32/f64/u64/s64/f16/f16x2/inc/dec onto shared counters (exact sums: the order of the
additions cannot change them). expected.txt is NVIDIA's output (H100, tools/gpu-check).
Run from anywhere: python3 generate_forms.py"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
GRID, BLOCK = 2, 32
THREADS = GRID * BLOCK

body = []   # instruction lines; %rd9 is the thread's output pointer
words = 0


def out(reg):
    """Stores a 32-bit register as the thread's next output word."""
    global words
    body.append("st.global.u32 [%%rd9+%d], %s;" % (4 * words, reg))
    words += 1


def out64(reg):
    body.append("mov.b64 {%%r50, %%r51}, %s;" % reg)
    out("%r50")
    out("%r51")


def out16x2(lo, hi):
    body.append("mov.b32 %%r52, {%s, %s};" % (lo, hi))
    out("%r52")


def outp(*preds):
    """Predicates as bits of one word."""
    body.append("mov.u32 %r53, 0;")
    for n, p in enumerate(preds):
        body.append("selp.u32 %%r54, %d, 0, %s;\nor.b32 %%r53, %%r53, %%r54;" % (1 << n, p))
    out("%r53")


def ins(text):
    body.extend(l.strip() for l in text.strip().split("\n"))


# inputs: %r1 = a[t] (edge values), %r2 = b[t] (random), %r3 = a[t + 64], %r4 = b[t + 64];
# %rd1 = {a, b} as 64 bits (a low), %rd2 = {%r3, %r4}, %rd3 = {%r2, %r3}; %h1..%h4 their low/high halves
ins("""
mov.b64 %rd1, {%r1, %r2};
mov.b64 %rd2, {%r3, %r4};
mov.b64 %rd3, {%r2, %r3};
mov.b32 {%h1, %h2}, %r1;
mov.b32 {%h3, %h4}, %r2;
""")
# bfind 64-bit
ins("bfind.u64 %r10, %rd1;\nbfind.s64 %r11, %rd2;\nbfind.shiftamt.u64 %r12, %rd3;\nbfind.shiftamt.s64 %r13, %rd1;")
for r in ("%r10", "%r11", "%r12", "%r13"):
    out(r)
# sad 64-bit and 16-bit
ins("sad.u64 %rd10, %rd1, %rd2, %rd3;\nsad.s64 %rd11, %rd1, %rd2, %rd3;")
out64("%rd10")
out64("%rd11")
ins("sad.u16 %h10, %h1, %h3, %h2;\nsad.s16 %h11, %h2, %h4, %h1;")
out16x2("%h10", "%h11")
# 16-bit division (divisors made odd: never zero), remainder, negation, absolute value
ins("""
or.b16 %h5, %h3, 1;
or.b16 %h6, %h4, 1;
div.s16 %h10, %h2, %h5;
div.u16 %h11, %h1, %h6;
rem.s16 %h12, %h2, %h6;
rem.u16 %h13, %h1, %h5;
neg.s16 %h14, %h2;
abs.s16 %h15, %h2;
""")
out16x2("%h10", "%h11")
out16x2("%h12", "%h13")
out16x2("%h14", "%h15")
div_min = "mov.b16 %h7, 0x8000;\nmov.b16 %h8, 0xffff;\ndiv.s16 %h10, %h7, %h8;\nrem.s16 %h11, %h7, %h8;"
ins(div_min)
out16x2("%h10", "%h11")
# 16-bit multiplies
ins("""
mul.hi.s16 %h10, %h1, %h3;
mul.lo.u16 %h11, %h2, %h4;
mad.hi.u16 %h12, %h1, %h4, %h2;
mad.lo.s16 %h13, %h2, %h3, %h1;
mad.hi.sat.s32 %r14, %r1, %r2, %r3;
mul.wide.s16 %r10, %h2, %h4;
mad.wide.u16 %r11, %h1, %h3, %r3;
""")
out16x2("%h10", "%h11")
out16x2("%h12", "%h13")
out("%r10")
out("%r11")
out("%r14")
# 24-bit multiplies
ins("""
mul24.hi.s32 %r10, %r1, %r2;
mul24.hi.u32 %r11, %r1, %r2;
mad24.hi.s32 %r12, %r1, %r2, %r3;
mad24.hi.sat.s32 %r13, %r2, %r3, %r4;
mad24.lo.s32 %r14, %r1, %r4, %r2;
""")
for r in ("%r10", "%r11", "%r12", "%r13", "%r14"):
    out(r)
# slct: integer, f32 with .ftz (c: a signed subnormal or zero, a's sign and mantissa)
ins("""
slct.u32.s32 %r10, %r1, %r2, %r3;
slct.s64.s32 %rd10, %rd1, %rd2, %r4;
and.b32 %r11, %r1, 0x807fffff;
mov.b32 %f10, %r11;
mov.b32 %f11, %r2;
mov.b32 %f12, %r3;
slct.ftz.f32.f32 %f13, %f11, %f12, %f10;
slct.f32.f32 %f14, %f11, %f12, %f10;
cvt.rn.f32.s32 %f15, %r4;
slct.u32.f32 %r12, %r1, %r2, %f15;
mov.b32 %r13, %f13;
mov.b32 %r14, %f14;
""")
out("%r10")
out64("%rd10")
out("%r12")
out("%r13")
out("%r14")
# carry chains: s32, u64, s64
ins("""
add.cc.s32 %r10, %r1, %r2;
addc.cc.s32 %r11, %r3, %r4;
addc.s32 %r12, %r1, 0;
sub.cc.s32 %r13, %r1, %r2;
subc.cc.s32 %r14, %r3, %r4;
subc.s32 %r15, %r2, 0;
""")
for r in ("%r10", "%r11", "%r12", "%r13", "%r14", "%r15"):
    out(r)
ins("""
add.cc.u64 %rd10, %rd1, %rd2;
addc.cc.s64 %rd11, %rd3, %rd1;
addc.u64 %rd12, %rd2, 0;
sub.cc.u64 %rd13, %rd1, %rd2;
subc.cc.s64 %rd14, %rd3, %rd2;
subc.u64 %rd15, %rd1, 0;
""")
for r in ("%rd10", "%rd11", "%rd12", "%rd13", "%rd14", "%rd15"):
    out64(r)
ins("""
mad.lo.cc.u64 %rd10, %rd1, %rd2, %rd3;
madc.hi.cc.u64 %rd11, %rd1, %rd2, %rd3;
madc.lo.cc.s64 %rd12, %rd2, %rd3, %rd1;
madc.hi.s64 %rd13, %rd3, %rd1, %rd2;
mad.hi.cc.s32 %r10, %r1, %r2, %r3;
madc.lo.cc.s32 %r11, %r2, %r3, %r4;
madc.hi.u32 %r12, %r3, %r4, %r1;
""")
for r in ("%rd10", "%rd11", "%rd12", "%rd13"):
    out64(r)
for r in ("%r10", "%r11", "%r12"):
    out(r)
# set: unordered float comparisons, integer and float results, f64 and unsigned integer operands
ins("""
mov.b32 %f1, %r1;
mov.b32 %f2, %r3;
set.equ.u32.f32 %r10, %f1, %f2;
set.neu.s32.f32 %r11, %f1, %f2;
set.geu.f32.f32 %f3, %f1, %f2;
set.ltu.ftz.u32.f32 %r12, %f1, %f2;
set.num.u32.f32 %r13, %f1, %f2;
set.nan.f32.f32 %f4, %f1, %f2;
mov.b32 %r14, %f3;
mov.b32 %r15, %f4;
""")
for r in ("%r10", "%r11", "%r12", "%r13", "%r14", "%r15"):
    out(r)
ins("""
mov.b64 %fd1, %rd1;
mov.b64 %fd2, %rd2;
set.gt.u32.f64 %r10, %fd1, %fd2;
set.leu.s32.f64 %r11, %fd1, %fd2;
set.hi.u32.u32 %r12, %r1, %r2;
set.ls.s32.u64 %r13, %rd1, %rd2;
set.lo.f32.u32 %f5, %r1, %r3;
setp.ne.u32 %p1, %r3, 0;
set.hs.and.u32.u32 %r14, %r2, %r4, %p1;
mov.b32 %r15, %f5;
""")
for r in ("%r10", "%r11", "%r12", "%r13", "%r14", "%r15"):
    out(r)
# mad.f64 with each rounding (operands: edge doubles, random doubles)
ins("""
mov.b64 %fd3, %rd3;
mad.rn.f64 %fd4, %fd1, %fd2, %fd3;
mad.rz.f64 %fd5, %fd2, %fd3, %fd1;
mad.rm.f64 %fd6, %fd3, %fd1, %fd2;
mad.rp.f64 %fd7, %fd1, %fd3, %fd2;
mov.b64 %rd10, %fd4;
mov.b64 %rd11, %fd5;
mov.b64 %rd12, %fd6;
mov.b64 %rd13, %fd7;
""")
for r in ("%rd10", "%rd11", "%rd12", "%rd13"):
    out64(r)
# cnot/not of 16 bits
ins("cnot.b16 %h10, %h1;\nnot.b16 %h11, %h2;")
out16x2("%h10", "%h11")
# max/min .relu, 16x2, .xorsign.abs
ins("""
max.relu.s32 %r10, %r1, %r2;
min.relu.s32 %r11, %r1, %r3;
max.s16x2 %r12, %r1, %r2;
min.u16x2 %r13, %r1, %r2;
max.relu.s16x2 %r14, %r3, %r2;
min.relu.s16x2 %r15, %r1, %r4;
""")
for r in ("%r10", "%r11", "%r12", "%r13", "%r14", "%r15"):
    out(r)
ins("""
max.xorsign.abs.f16 %h10, %h1, %h3;
min.xorsign.abs.f16 %h11, %h2, %h4;
max.xorsign.abs.f16x2 %r10, %r1, %r2;
min.xorsign.abs.bf16x2 %r11, %r3, %r2;
max.NaN.xorsign.abs.bf16 %h12, %h2, %h3;
""")
out16x2("%h10", "%h11")
out("%r10")
out("%r11")
out16x2("%h12", "%h12")
# ld.global.nc (vectors) and ldu of an address common to the warp
ins("""
ld.param.u64 %rd10, [k_a];
cvta.to.global.u64 %rd10, %rd10;
ld.global.nc.v2.u32 {%r10, %r11}, [%rd10+8];
ld.global.nc.v4.f32 {%f10, %f11, %f12, %f13}, [%rd10+16];
ldu.global.u64 %rd11, [%rd10+32];
ldu.global.v2.f32 {%f14, %f15}, [%rd10+40];
ld.global.nc.s16 %r12, [%rd10+6];
mov.b32 %r13, %f11;
mov.b32 %r14, %f13;
mov.b32 %r15, %f15;
""")
for r in ("%r10", "%r11", "%r12", "%r13", "%r14", "%r15"):
    out(r)
out64("%rd11")
# match.sync of 64-bit values: four groups by lane, a fifth value on odd lanes
ins("""
mov.u32 %r10, %laneid;
and.b32 %r11, %r10, 3;
cvt.u64.u32 %rd10, %r11;
shl.b64 %rd10, %rd10, 40;
match.any.sync.b64 %r12, %rd10, 0xffffffff;
mov.u64 %rd11, 0x123456789;
match.all.sync.b64 %r13|%p1, %rd11, 0xffffffff;
and.b32 %r14, %r10, 1;
cvt.u64.u32 %rd12, %r14;
mov.u32 %r15, 0xdead;
setp.ne.u32 %p2, %r10, %r10;
setp.eq.u32 %p3, %r14, 0;
@%p3 match.all.sync.b64 %r15|%p2, %rd12, 0x55555555;
shr.u32 %r16, %r10, 3;
cvt.u64.u32 %rd13, %r16;
mov.u32 %r17, 0xbeef;
@!%p3 match.any.sync.b64 %r17, %rd13, 0xaaaaaaaa;
""")
out("%r12")
out("%r13")
out("%r15")
out("%r17")
outp("%p1", "%p2")
# atomics, one address per thread (old values are deterministic): its four 64-bit slots in the scratch buffer
ins("""
ld.param.u64 %rd20, [k_s];
cvta.to.global.u64 %rd20, %rd20;
mul.wide.u32 %rd21, %r63, 64;
add.s64 %rd20, %rd20, %rd21;
st.global.u64 [%rd20], %rd1;
st.global.u64 [%rd20+8], %rd2;
st.global.u64 [%rd20+16], %rd1;
st.global.u32 [%rd20+24], %r1;
atom.global.cas.b64 %rd10, [%rd20], %rd1, %rd3;
atom.global.cas.b64 %rd11, [%rd20+8], %rd1, %rd3;
atom.global.exch.b64 %rd12, [%rd20], %rd2;
atom.global.min.s64 %rd13, [%rd20+8], %rd3;
atom.global.max.s64 %rd14, [%rd20+16], %rd3;
atom.global.and.b64 %rd15, [%rd20], %rd3;
atom.global.or.b64 %rd16, [%rd20+8], %rd1;
atom.global.xor.b64 %rd17, [%rd20+16], %rd2;
atom.global.add.u64 %rd18, [%rd20], %rd2;
atom.global.inc.u32 %r10, [%rd20+24], %r2;
atom.global.dec.u32 %r11, [%rd20+24], %r3;
atom.global.max.u64 %rd19, [%rd20+16], %rd1;
""")
for r in ("%rd10", "%rd11", "%rd12", "%rd13", "%rd14", "%rd15", "%rd16", "%rd17", "%rd18", "%rd19"):
    out64(r)
out("%r10")
out("%r11")
ins("""
ld.global.u64 %rd10, [%rd20];
ld.global.u64 %rd11, [%rd20+8];
ld.global.u64 %rd12, [%rd20+16];
ld.global.u32 %r10, [%rd20+24];
""")
out64("%rd10")
out64("%rd11")
out64("%rd12")
out("%r10")
# atom.add.f64 on a per-thread double: edge doubles plus random ones
ins("""
st.global.u64 [%rd20+32], %rd1;
mov.b64 %fd5, %rd2;
atom.global.add.f64 %fd6, [%rd20+32], %fd5;
ld.global.u64 %rd10, [%rd20+32];
mov.b64 %rd11, %fd6;
""")
out64("%rd10")
out64("%rd11")
# reductions onto shared counters, exact whatever the order: small integers in f32/f64/f16, integers
ins("""
setp.eq.u32 %p10, %r62, 0;
@%p10 st.shared.u64 [sh], 0;
@%p10 st.shared.u64 [sh+8], 0;
@%p10 st.shared.u64 [sh+16], 0;
@%p10 st.shared.u64 [sh+24], 0;
@%p10 st.shared.u64 [sh+32], 0;
@%p10 st.shared.u64 [sh+40], 0;
bar.sync 0;
cvt.rn.f32.u32 %f20, %r62;
red.shared.add.f32 [sh], %f20;
cvt.rn.f64.u32 %fd20, %r62;
red.shared.add.f64 [sh+8], %fd20;
cvt.u64.u32 %rd22, %r2;
red.shared.add.u64 [sh+16], %rd22;
cvt.s64.s32 %rd23, %r1;
red.shared.min.s64 [sh+24], %rd23;
and.b32 %r20, %r62, 7;
cvt.rn.f16.u32 %h20, %r20;
red.shared.add.noftz.f16 [sh+32], %h20;
mov.b32 %r21, {%h20, %h20};
red.shared.add.noftz.f16x2 [sh+36], %r21;
red.shared.inc.u32 [sh+40], 20;
red.shared.dec.u32 [sh+44], 1000;
bar.sync 0;
ld.shared.u32 %r22, [sh];
ld.shared.u64 %rd24, [sh+8];
ld.shared.u64 %rd25, [sh+16];
ld.shared.u64 %rd26, [sh+24];
ld.shared.u32 %r23, [sh+32];
ld.shared.u32 %r24, [sh+36];
ld.shared.u32 %r25, [sh+40];
ld.shared.u32 %r26, [sh+44];
""")
out("%r22")
out64("%rd24")
out64("%rd25")
out64("%rd26")
for r in ("%r23", "%r24", "%r25", "%r26"):
    out(r)



def emit(name, comment, jit=None, version="8.0"):
    """Writes the kernel of the instructions collected in body (then starts a new body); jit: NVIDIA's JIT level for
    the native run (ptxrun's 'jit LEVEL'), where NVIDIA's optimizer gets the kernel wrong."""
    global body, words
    ptx = "// " + comment.replace("\n", "\n// ") + "\n" + """.version VERSION
.target sm_90
.address_size 64

.const .align 8 .u32 cv[4] = {1, 2, 3, 4};

.visible .entry k(
\t.param .u64 k_a,
\t.param .u64 k_b,
\t.param .u64 k_s,
\t.param .u64 k_out
)
{
\t.shared .align 8 .b8 sh[64];
\t.local .align 8 .b8 lv[16];
\t.reg .pred %p<16>;
\t.reg .b16 %h<24>;
\t.reg .b32 %r<64>;
\t.reg .b64 %rd<32>;
\t.reg .f32 %f<24>;
\t.reg .f64 %fd<24>;
REG128\tmov.u32 %r60, %ctaid.x;
\tmov.u32 %r61, %ntid.x;
\tmov.u32 %r62, %tid.x;
\tmad.lo.u32 %r63, %r60, %r61, %r62;
\tmul.wide.u32 %rd30, %r63, 4;
\tld.param.u64 %rd31, [k_a];
\tcvta.to.global.u64 %rd31, %rd31;
\tadd.s64 %rd29, %rd31, %rd30;
\tld.global.u32 %r1, [%rd29];
\tld.global.u32 %r3, [%rd29+256];
\tld.param.u64 %rd31, [k_b];
\tcvta.to.global.u64 %rd31, %rd31;
\tadd.s64 %rd29, %rd31, %rd30;
\tld.global.u32 %r2, [%rd29];
\tld.global.u32 %r4, [%rd29+256];
\tld.param.u64 %rd31, [k_out];
\tcvta.to.global.u64 %rd31, %rd31;
\tmul.wide.u32 %rd30, %r63, WORDS;
\tadd.s64 %rd9, %rd31, %rd30;
""".replace("WORDS", str(4 * words)).replace("VERSION", version).replace("REG128", "\t.reg .b128 %q<8>;\n" if version >= "8.3" else "")
    ptx += "\t" + "\n".join(body).replace("\n", "\n\t") + "\n\tret;\n}\n"
    test = ("kernel k\ngrid %d 1 1\nblock %d 1 1\nbuffer a u32 %d special 71\nbuffer b u32 %d random 72\n"
            "buffer s u32 %d fill 0\nbuffer out u32 %d fill ee\nparam buffer a\nparam buffer b\nparam buffer s\n"
            "param buffer out\noutput out\n") % (GRID, BLOCK, 2 * THREADS, 2 * THREADS, 16 * THREADS, words * THREADS)
    if jit is not None:
        test += "jit %d\n" % jit
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "kernel.ptx"), "w") as f:
        f.write(ptx)
    with open(os.path.join(d, "test.txt"), "w") as f:
        f.write(test)
    body, words = [], 0


emit("forms_more", "Valid PTX forms the compiler accepts that no NVIDIA-checked test used before (generate_forms.py;\n"
     "expected.txt is NVIDIA's H100 output).")

# isspacep of generic addresses of each space (NVIDIA: a .const variable's generic address is .const, not .global)
ins("""
mov.u64 %rd10, cv;
cvta.const.u64 %rd10, %rd10;
mov.u64 %rd11, sh;
cvta.shared.u64 %rd11, %rd11;
mov.u64 %rd12, lv;
cvta.local.u64 %rd12, %rd12;
isspacep.const %p1, %rd10;
isspacep.global %p2, %rd10;
isspacep.shared %p3, %rd11;
isspacep.global %p4, %rd11;
isspacep.local %p5, %rd12;
isspacep.global %p6, %rd12;
isspacep.global %p7, %rd9;
isspacep.shared %p8, %rd9;
isspacep.local %p9, %rd11;
isspacep.local %p10, %rd9;
""")
outp("%p1", "%p2", "%p3", "%p4", "%p5", "%p6", "%p7", "%p8", "%p9", "%p10")
emit("isspacep_spaces", "isspacep of the generic addresses of a .const, .shared, .local and .global object, each\n"
     "against every space (generate_forms.py; expected.txt is NVIDIA's H100 output).")

# fns.b32: the n-th set bit from a base, forwards and backwards, every base 0..31, offsets -33..33, 0, INT_MIN,
# bases outside 0..31, sparse and dense masks
ins("""
and.b32 %r10, %r2, 31;
shr.u32 %r11, %r2, 5;
and.b32 %r11, %r11, 63;
sub.s32 %r11, %r11, 32;
and.b32 %r12, %r1, %r4;
shr.u32 %r13, %r2, 11;
and.b32 %r13, %r13, 31;
shr.u32 %r14, %r4, 20;
and.b32 %r14, %r14, 7;
sub.s32 %r14, %r14, 4;
""")
for args in ("%r1, %r10, %r11", "%r12, %r10, %r11", "%r2, %r13, %r14", "%r12, %r13, %r14", "%r1, %r13, 1",
             "%r1, 0, 1", "%r1, 31, -1", "%r12, %r10, 0", "%r2, 32, 1", "%r2, 40, -1", "%r2, 0xffffffff, 1",
             "%r2, %r10, 0x80000000", "%r2, 5, 33", "0xf0f0f0f0, %r10, 2", "%r4, %r13, -3", "%r3, %r10, 7"):
    ins("fns.b32 %%r20, %s;" % args)
    out("%r20")
emit("fns_b32", "fns.b32 (find the n-th set bit) with bases inside and outside 0..31, offsets of both signs, 0 and\n"
     "INT_MIN, on edge, sparse and random masks (generate_forms.py; expected.txt is NVIDIA's H100 output).")

# alloca / stacksave / stackrestore: per-thread sizes, an alignment, local and generic accesses, a loop that
# allocates in every iteration and gives the memory back
ins("""
mov.u32 %r10, %tid.x;
rem.u32 %r11, %r10, 7;
add.u32 %r11, %r11, 1;
shl.b32 %r11, %r11, 2;
cvt.u64.u32 %rd10, %r11;
stacksave.u64 %rd11;
alloca.u64 %rd12, %rd10, 16;
and.b64 %rd13, %rd12, 15;
cvt.u32.u64 %r12, %rd13;
mov.u32 %r13, 0;
mov.u32 %r14, 0;
FILL:
add.u32 %r15, %r13, %r1;
cvt.u64.u32 %rd14, %r13;
add.u64 %rd15, %rd12, %rd14;
st.local.u32 [%rd15], %r15;
add.u32 %r13, %r13, 4;
setp.lt.u32 %p1, %r13, %r11;
@%p1 bra FILL;
cvta.local.u64 %rd16, %rd12;
mov.u32 %r13, 0;
SUM:
cvt.u64.u32 %rd14, %r13;
add.u64 %rd15, %rd16, %rd14;
ld.u32 %r15, [%rd15];
add.u32 %r14, %r14, %r15;
add.u32 %r13, %r13, 4;
setp.lt.u32 %p1, %r13, %r11;
@%p1 bra SUM;
stackrestore.u64 %rd11;
mov.u32 %r16, 0;
mov.u32 %r17, 0;
AGAIN:
stacksave.u64 %rd17;
alloca.u64 %rd18, 64;
add.u32 %r18, %r16, %r2;
st.local.u32 [%rd18+60], %r18;
ld.local.u32 %r19, [%rd18+60];
xor.b32 %r17, %r17, %r19;
stackrestore.u64 %rd17;
add.u32 %r16, %r16, 1;
setp.lt.u32 %p2, %r16, 100;
@%p2 bra AGAIN;
""")
for r in ("%r12", "%r14", "%r17"):
    out(r)
emit("alloca_stack", "alloca (per-thread sizes, 16-byte alignment), stacksave/stackrestore around allocations in a\n"
     "loop; the memory read back through .local and generic addresses (generate_forms.py; expected.txt is NVIDIA's\n"
     "H100 output).")

# the 32-bit forms: a .local address in a 32-bit register
ins("""
stacksave.u32 %r20;
alloca.u32 %r21, 8;
st.local.u32 [%r21], %r3;
and.b32 %r26, %r1, 60;
add.u32 %r26, %r26, 8;
alloca.u32 %r23, %r26, 32;
and.b32 %r24, %r23, 31;
st.local.u32 [%r23+4], %r1;
ld.local.u32 %r22, [%r21];
ld.local.u32 %r25, [%r23+4];
stackrestore.u32 %r20;
""")
for r in ("%r22", "%r24", "%r25"):
    out(r)
emit("alloca_stack_u32", "alloca.u32, stacksave.u32, stackrestore.u32: .local addresses in 32-bit registers\n"
     "(generate_forms.py; expected.txt is NVIDIA's H100 output at JIT -O0: at its default, NVIDIA's optimizer reads 0\n"
     "back from [alloca+4] where the kernel has just stored a; our NVPTX gives the stored value at every level).", jit=0)

# more forms no NVIDIA-checked test used: setp's .xor combination and 16-bit compares, selp of every width, lop3 with
# a predicate result, 16-bit and ordered/scoped atomics, bf16 reductions, 64-bit logical reductions, barrier.red,
# 32-bit shared addresses, cache operators on loads and stores, an indirect branch through a table
ins("""
mov.b64 %rd1, {%r1, %r2};
mov.b64 %rd2, {%r3, %r4};
mov.b32 {%h1, %h2}, %r1;
mov.b32 {%h3, %h4}, %r2;
mov.b32 %f1, %r3;
setp.ne.u32 %p1, %r3, 0;
setp.lt.xor.s32 %p2, %r1, %r2, %p1;
setp.ge.and.u16 %p3, %h1, %h3, %p1;
setp.gt.or.s16 %p4, %h2, %h4, %p2;
setp.ne.xor.f32 %p5, %f1, %f1, %p3;
mov.b32 %f2, %r1;
setp.equ.xor.f32 %p6, %f2, %f1, %p1;
""")
outp("%p2", "%p3", "%p4", "%p5", "%p6")
ins("""
selp.s32 %r10, %r1, %r2, %p2;
selp.s64 %rd10, %rd1, %rd2, %p3;
mov.b64 %fd1, %rd1;
mov.b64 %fd2, %rd2;
selp.f64 %fd3, %fd1, %fd2, %p4;
mov.b64 %rd11, %fd3;
selp.u16 %h10, %h1, %h2, %p2;
selp.s16 %h11, %h3, %h4, %p3;
selp.b16 %h12, %h1, %h4, %p6;
selp.b32 %r11, %r1, %r2, %p1;
""")
out("%r10")
out64("%rd10")
out64("%rd11")
out16x2("%h10", "%h11")
out16x2("%h12", "%h12")
out("%r11")
ins("""
lop3.or.b32 %r10|%p7, %r1, %r2, %r3, 0x96, %p1;
lop3.and.b32 %r11|%p8, %r2, %r3, %r4, 0x80, %p2;
lop3.or.b32 %r12|%p9, %r1, 0, 0, 0xf0, %p3;
""")
out("%r10")
out("%r11")
out("%r12")
outp("%p7", "%p8", "%p9")
# 32-bit shared addresses: the same word through a 32-bit and a 64-bit shared address
ins("""
mov.u32 %r10, sh;
add.u32 %r10, %r10, 48;
add.u32 %r13, %r60, 0x1234;
st.shared.u32 [%r10], %r13;
cvta.shared.u64 %rd10, sh;
cvta.to.shared.u64 %rd11, %rd10;
cvt.u32.u64 %r11, %rd11;
add.u32 %r11, %r11, 48;
bar.sync 0;
ld.shared.u32 %r12, [%r11];
bar.sync 0;
""")
out("%r12")
# 16-bit compare-and-swap, ordered and scoped atomics on the thread's own words, a bf16 pair reduction
ins("""
ld.param.u64 %rd20, [k_s];
cvta.to.global.u64 %rd20, %rd20;
mul.wide.u32 %rd21, %r63, 64;
add.s64 %rd20, %rd20, %rd21;
st.global.u32 [%rd20], %r1;
atom.global.cas.b16 %h10, [%rd20], %h1, %h3;
atom.global.cas.b16 %h11, [%rd20+2], %h4, %h2;
ld.global.u32 %r10, [%rd20];
st.global.u32 [%rd20+8], %r2;
atom.acquire.gpu.global.add.u32 %r11, [%rd20+8], %r3;
atom.release.sys.global.exch.b32 %r12, [%rd20+8], %r4;
atom.relaxed.cta.global.max.s32 %r13, [%rd20+8], %r1;
atom.acq_rel.gpu.global.xor.b32 %r14, [%rd20+8], %r2;
ld.global.u32 %r15, [%rd20+8];
""")
out16x2("%h10", "%h11")
for r in ("%r10", "%r11", "%r12", "%r13", "%r14", "%r15"):
    out(r)
ins("""
setp.eq.u32 %p10, %r62, 0;
@%p10 st.shared.u32 [sh], 0;
@%p10 st.shared.u64 [sh+8], -1;
@%p10 st.shared.u64 [sh+16], 0;
@%p10 st.shared.u64 [sh+24], 0;
bar.sync 0;
and.b32 %r20, %r62, 3;
cvt.rn.f32.u32 %f20, %r20;
cvt.rn.bf16x2.f32 %r21, %f20, %f20;
red.shared.add.noftz.bf16x2 [sh], %r21;
mov.u64 %rd22, 1;
shl.b64 %rd23, %rd22, %r62;
not.b64 %rd24, %rd23;
red.shared.and.b64 [sh+8], %rd24;
red.shared.or.b64 [sh+16], %rd23;
red.shared.xor.b64 [sh+24], %rd1;
bar.sync 0;
ld.shared.u32 %r22, [sh];
ld.shared.u64 %rd25, [sh+8];
ld.shared.u64 %rd26, [sh+16];
ld.shared.u64 %rd27, [sh+24];
bar.sync 0;
""")
out("%r22")
out64("%rd25")
out64("%rd26")
out64("%rd27")
# barrier.red: population count and the and/or of a predicate over the block
ins("""
and.b32 %r23, %r1, 1;
setp.ne.u32 %p11, %r23, 0;
barrier.red.popc.u32 %r24, 0, %p11;
barrier.red.and.pred %p12, 0, %p11;
barrier.red.or.pred %p13, 0, %p11;
barrier.sync.aligned 0;
""")
out("%r24")
outp("%p12", "%p13")
# cache operators (hints: the values are the memory's)
ins("""
ld.param.u64 %rd10, [k_a];
cvta.to.global.u64 %rd10, %rd10;
ld.global.cg.u32 %r10, [%rd10+4];
ld.global.cs.u32 %r11, [%rd10+8];
ld.global.lu.u32 %r12, [%rd10+12];
ld.global.cv.u32 %r13, [%rd10+16];
ld.global.ca.s64 %rd11, [%rd10+24];
st.global.wb.u32 [%rd20+16], %r10;
st.global.cg.u32 [%rd20+20], %r11;
st.global.cs.u32 [%rd20+24], %r12;
st.global.wt.u32 [%rd20+28], %r13;
ld.global.v4.u32 {%r14, %r15, %r16, %r17}, [%rd20+16];
xor.b32 %r14, %r14, %r15;
xor.b32 %r16, %r16, %r17;
""")
out("%r14")
out("%r16")
out64("%rd11")
# brx.idx through a table of labels
ins("""
and.b32 %r10, %r2, 3;
mov.u32 %r11, 100;
ts: .branchtargets L0, L1, L2, L3;
brx.idx.uni %r10, ts;
L0:
add.u32 %r11, %r11, 1;
bra.uni LEND;
L1:
add.u32 %r11, %r11, 20;
bra.uni LEND;
L2:
add.u32 %r11, %r11, 300;
bra.uni LEND;
L3:
add.u32 %r11, %r11, 4000;
LEND:
""")
out("%r11")
emit("forms_more2", "More valid PTX forms that no NVIDIA-checked test used (generate_forms.py; expected.txt is NVIDIA's\n"
     "H100 output).", version="8.2")

# 128-bit values (PTX 8.3): moves between a .b128 register and two 64-bit ones, 16-byte loads and stores (atom.cas and
# exch.b128, sm_90 only, are not compiled yet: refused with their line)
ins("""
mov.b64 %rd1, {%r1, %r2};
mov.b64 %rd2, {%r3, %r4};
mov.b128 %q1, {%rd1, %rd2};
ld.param.u64 %rd20, [k_s];
cvta.to.global.u64 %rd20, %rd20;
mul.wide.u32 %rd21, %r63, 64;
add.s64 %rd20, %rd20, %rd21;
st.global.b128 [%rd20], %q1;
ld.global.b128 %q2, [%rd20];
mov.b128 {%rd10, %rd11}, %q2;
mov.b128 %q3, {%rd2, %rd1};
mov.b128 {%rd12, %rd13}, %q3;
st.global.b128 [%rd20], %q3;
ld.global.b128 %q5, [%rd20];
mov.b128 {%rd14, %rd15}, %q5;
ld.global.v2.u64 {%rd16, %rd17}, [%rd20];
st.global.b128 [%rd20+16], %q3;
ld.global.u64 %rd18, [%rd20+16];
ld.global.u64 %rd19, [%rd20+24];
""")
for r in ("%rd10", "%rd11", "%rd12", "%rd13", "%rd14", "%rd15", "%rd16", "%rd17", "%rd18", "%rd19"):
    out64(r)
emit("b128_forms", "128-bit values: mov.b128 both ways, ld/st.global.b128 (generate_forms.py;\n"
     "expected.txt is NVIDIA's H100 output).", version="8.3")

# 16-bit min/max and shifts, signed moves, ldu of every width (an address common to the warp)
ins("""
mov.b32 {%h1, %h2}, %r1;
mov.b32 {%h3, %h4}, %r2;
min.s16 %h10, %h1, %h3;
max.s16 %h11, %h2, %h4;
min.u16 %h12, %h1, %h4;
max.u16 %h13, %h2, %h3;
and.b32 %r10, %r2, 31;
shr.b16 %h14, %h1, %r10;
shr.s16 %h15, %h2, %r10;
mov.s16 %h16, %h15;
mov.s32 %r11, %r1;
mov.b64 %rd10, {%r1, %r2};
mov.s64 %rd11, %rd10;
""")
out16x2("%h10", "%h11")
out16x2("%h12", "%h13")
out16x2("%h14", "%h16")
out("%r11")
out64("%rd11")
ins("""
ld.param.u64 %rd10, [k_a];
cvta.to.global.u64 %rd10, %rd10;
ldu.global.v4.f32 {%f10, %f11, %f12, %f13}, [%rd10+16];
ldu.global.f64 %fd10, [%rd10+40];
ldu.global.s32 %r12, [%rd10+4];
ldu.global.v2.u64 {%rd12, %rd13}, [%rd10+48];
ldu.global.s16 %h17, [%rd10+66];
ldu.global.v4.u16 {%h18, %h19, %h20, %h21}, [%rd10+72];
mov.b32 %r13, %f10;
mov.b32 %r14, %f13;
mov.b64 %rd14, %fd10;
""")
for r in ("%r12", "%r13", "%r14"):
    out(r)
out64("%rd14")
out64("%rd12")
out64("%rd13")
out16x2("%h17", "%h18")
out16x2("%h19", "%h21")
emit("forms_more3", "16-bit min/max (signed and unsigned) and shifts, signed moves, ldu of every width\n"
     "(generate_forms.py; expected.txt is NVIDIA's H100 output).")
