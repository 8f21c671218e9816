#!/usr/bin/env python3
"""Writes the ptx-tests of PTX's SIMD video instructions (video_simd: vadd2/vsub2/vavrg2/vabsdiff2/vmin2/vmax2/vset2
and their four-byte forms) and of vmad (video_mad), from the forms the PTX ISA lists: every operation with the
default and explicit selectors, .sat, partial masks, the secondary .add, mixed signedness; vmad with each operand
type, negated operands, .po, .sat and .shr7/.shr15. Each thread takes a, b, c from edge values (bytes and half-words
0x00, 0x01, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff ...) and random words. expected.txt is NVIDIA's output (recorded
on an H100 by tools/gpu-check): the ISA's pseudo-code leaves details open that the hardware decides.
Run from anywhere: python3 generate_video.py"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
THREADS = 128


def write(name, comment, forms):
    """forms: PTX instruction lines writing %r4 from %r1 (a), %r2 (b), %r3 (c); each stores one word."""
    s = "// " + comment.replace("\n", "\n// ") + "\n"
    s += ".version 7.8\n.target sm_80\n.address_size 64\n\n"
    s += ".visible .entry k(\n\t.param .u64 k_a,\n\t.param .u64 k_b,\n\t.param .u64 k_c,\n\t.param .u64 k_out\n)\n{\n"
    s += "\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n"
    s += "\tmov.u32 %r5, %tid.x;\n\tmul.wide.u32 %rd6, %r5, 4;\n"
    for reg, p in ((1, "a"), (2, "b"), (3, "c")):
        s += "\tld.param.u64 %%rd%d, [k_%s];\n\tadd.s64 %%rd%d, %%rd%d, %%rd6;\n\tld.global.u32 %%r%d, [%%rd%d];\n" % (
            reg, p, reg, reg, reg, reg)
    s += "\tld.param.u64 %%rd5, [k_out];\n\tmul.wide.u32 %%rd6, %%r5, %d;\n\tadd.s64 %%rd5, %%rd5, %%rd6;\n" % (4 * len(forms))
    for n, f in enumerate(forms):
        if "%r4." in f.split(",")[0]:  # a merge into part of d: d starts as c
            s += "\tmov.b32 %r4, %r3;\n"
        s += "\t%s\n\tst.global.u32 [%%rd5+%d], %%r4;\n" % (f, 4 * n)
    s += "\tret;\n}\n"
    test = ("kernel k\ngrid 1 1 1\nblock %d 1 1\nbuffer a u32 %d special 61\nbuffer b u32 %d random 62\n"
            "buffer c u32 %d special 63\nbuffer out u32 %d fill ee\nparam buffer a\nparam buffer b\nparam buffer c\n"
            "param buffer out\noutput out\n") % (THREADS, THREADS, THREADS, THREADS, THREADS * len(forms))
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "kernel.ptx"), "w") as f:
        f.write(s)
    with open(os.path.join(d, "test.txt"), "w") as f:
        f.write(test)


def simd_forms():
    forms = []
    ops = ["vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax"]
    # per width: (partial masks, selector pairs for a and b)
    cases = {
        2: ([".h0", ".h1"], [(".h01", ".h23"), (".h32", ".h10"), (".h00", ".h33"), (".h12", ".h21")]),
        4: ([".b0", ".b31", ".b210", ".b3"], [(".b0123", ".b4567"), (".b7654", ".b3210"), (".b0000", ".b7777"),
                                             (".b5140", ".b2736")]),
    }
    for w in (2, 4):
        masks, sels = cases[w]
        for op in ops:
            o = op + str(w)
            forms += [
                "%s.u32.u32.u32 %%r4, %%r1, %%r2, %%r3;" % o,
                "%s.s32.s32.s32 %%r4, %%r1, %%r2, %%r3;" % o,
                "%s.s32.s32.s32.sat %%r4, %%r1, %%r2, %%r3;" % o,
                "%s.u32.u32.u32.sat %%r4, %%r1, %%r2, %%r3;" % o,
                "%s.u32.s32.s32.sat %%r4, %%r1%s, %%r2%s, %%r3;" % (o, sels[0][0], sels[0][1]),
                "%s.s32.u32.u32.sat %%r4, %%r1%s, %%r2%s, %%r3;" % (o, sels[1][0], sels[1][1]),
                "%s.s32.u32.s32.sat %%r4%s, %%r1%s, %%r2%s, %%r3;" % (o, masks[0], sels[2][0], sels[2][1]),
                "%s.u32.s32.u32 %%r4%s, %%r1%s, %%r2%s, %%r3;" % (o, masks[1], sels[3][0], sels[3][1]),
                "%s.u32.u32.u32.add %%r4, %%r1, %%r2, %%r3;" % o,
                "%s.s32.s32.s32.add %%r4, %%r1, %%r2, %%r3;" % o,
                "%s.s32.s32.u32.add %%r4%s, %%r1%s, %%r2%s, %%r3;" % (o, masks[-1], sels[1][0], sels[0][1]),
            ]
            if w == 4:
                forms.append("%s.u32.u32.s32.sat %%r4%s, %%r1, %%r2, %%r3;" % (o, masks[2]))
        for cmp in ("eq", "ne", "lt", "le", "gt", "ge"):
            o = "vset" + str(w)
            forms += [
                "%s.u32.u32.%s %%r4, %%r1, %%r2, %%r3;" % (o, cmp),
                "%s.s32.s32.%s %%r4, %%r1, %%r2, %%r3;" % (o, cmp),
                "%s.s32.u32.%s %%r4%s, %%r1%s, %%r2%s, %%r3;" % (o, cmp, masks[0], sels[2][0], sels[2][1]),
                "%s.u32.s32.%s.add %%r4, %%r1%s, %%r2%s, %%r3;" % (o, cmp, sels[1][0], sels[3][1]),
                "%s.s32.s32.%s.add %%r4%s, %%r1, %%r2, %%r3;" % (o, cmp, masks[1]),
            ]
    return forms


def mad_forms():
    forms = []
    types = [("u32", "u32"), ("u32", "s32"), ("s32", "u32"), ("s32", "s32")]
    for at, bt in types:
        signed = "s32" if "s32" in (at, bt) else "u32"
        forms += [
            "vmad.%s.%s.%s %%r4, %%r1, %%r2, %%r3;" % (signed, at, bt),
            "vmad.%s.%s.%s.sat %%r4, %%r1, %%r2, %%r3;" % (signed, at, bt),
            "vmad.u32.%s.%s.sat %%r4, %%r1.h0, %%r2.h1, %%r3;" % (at, bt),
            "vmad.s32.%s.%s.sat %%r4, %%r1.b1, %%r2.b3, %%r3;" % (at, bt),
            "vmad.s32.%s.%s %%r4, -%%r1, %%r2, %%r3;" % (at, bt),
            "vmad.s32.%s.%s.sat %%r4, %%r1.h1, -%%r2.h0, %%r3;" % (at, bt),
            "vmad.s32.%s.%s %%r4, %%r1.b0, %%r2.b2, -%%r3;" % (at, bt),
            "vmad.s32.%s.%s.sat %%r4, %%r1, %%r2, -%%r3;" % (at, bt),
            "vmad.u32.%s.%s.sat %%r4, %%r1.h0, -%%r2.b3, %%r3;" % (at, bt),
            "vmad.%s.%s.%s.po %%r4, %%r1.h0, %%r2.h1, %%r3;" % (signed, at, bt),
            "vmad.%s.%s.%s.po.sat %%r4, %%r1, %%r2, %%r3;" % (signed, at, bt),
            "vmad.%s.%s.%s.shr7 %%r4, %%r1.h1, %%r2.b1, %%r3;" % (signed, at, bt),
            "vmad.%s.%s.%s.sat.shr15 %%r4, %%r1, %%r2, %%r3;" % (signed, at, bt),
            "vmad.s32.%s.%s.sat.shr7 %%r4, -%%r1.b2, %%r2.h1, %%r3;" % (at, bt),
            "vmad.%s.%s.%s.po.shr15 %%r4, %%r1.h1, %%r2.h1, %%r3;" % (signed, at, bt),
        ]
    return forms


write("video_simd", "PTX's SIMD video instructions: vadd2/vsub2/vavrg2/vabsdiff2/vmin2/vmax2/vset2 and the four-byte\n"
      "forms, default and explicit selectors, .sat, partial masks (merge into c), the secondary .add, mixed types\n"
      "(generate_video.py; expected.txt is NVIDIA's H100 output)", simd_forms())
write("video_mad", "vmad: each operand type, negated a/b/c, .po, .sat, .shr7/.shr15, byte and half-word selectors\n"
      "(generate_video.py; expected.txt is NVIDIA's H100 output)", mad_forms())
