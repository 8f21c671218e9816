#!/usr/bin/env python3
"""Writes ZLUDA-J's matrix-instruction tests (mma.sync, wmma, ldmatrix, stmatrix, movmatrix, cp.async): one folder
each with kernel.ptx, test.txt and expected.txt. Unlike generate.py's tests, the expected outputs are computed here:
inputs come from ptxrun's generator (splitmix64, reproduced below), results from an exact reference (float64 sums
of exact products, rounded once; exact integers). NVIDIA's GPU is checked against the same files (gpu-check), which
is what proves the fragment layouts written below. Run: python3 generate_matrix.py"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
MASK = (1 << 64) - 1
WARPS = 2            # two warps per test: each its own matrices
THREADS = 32 * WARPS


# ------------------------------------------------------------------------------------------ ptxrun's inputs

def splitmix(seed):
    s = seed
    while True:
        s = (s + 0x9e3779b97f4a7c15) & MASK
        z = s
        z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & MASK
        z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & MASK
        yield z ^ (z >> 31)


def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]


def f32bits(x):
    return struct.unpack('<I', struct.pack('<f', x))[0]


def floats(seed, count, lo=-1.0, hi=1.0):
    g = splitmix(seed)
    return [f32(lo + (hi - lo) * ((next(g) >> 11) * (1.0 / 9007199254740992.0))) for _ in range(count)]


def half_bits(x):
    return struct.unpack('<H', struct.pack('<e', x))[0]


def half_value(bits):
    return struct.unpack('<e', struct.pack('<H', bits))[0]


def bhalf_bits(x):
    b = f32bits(x)
    h, rem = b >> 16, b & 0xffff
    if rem > 0x8000 or (rem == 0x8000 and h & 1):
        h += 1
    return h


def bhalf_value(bits):
    return struct.unpack('<f', struct.pack('<I', bits << 16))[0]


def tf32_value(x):  # cvt.rna.tf32.f32: half an ulp added to the bits, low 13 bits cleared
    b = (f32bits(x) + 0x1000) & 0xffffe000
    return struct.unpack('<f', struct.pack('<I', b))[0]


def randoms(seed, count, bits):
    g = splitmix(seed)
    return [next(g) & ((1 << bits) - 1) for _ in range(count)]


def s8(x):
    return x - 256 if x >= 128 else x


def s32(x):
    x &= 0xffffffff
    return x - (1 << 32) if x >= (1 << 31) else x


# ------------------------------------------------------------------------------------------ NVIDIA's fragments

# (row, col) of element v held by lane (g = lane // 4, t = lane % 4); B's "row" is k, its "col" is n.
A16K16 = (8, lambda g, t, v: g + 8 * ((v >> 1) & 1), lambda g, t, v: 2 * t + (v & 1) + 8 * (v >> 2))
B16K16 = (4, lambda g, t, v: 2 * t + (v & 1) + 8 * (v >> 1), lambda g, t, v: g)
C16N8 = (4, lambda g, t, v: g + 8 * (v >> 1), lambda g, t, v: 2 * t + (v & 1))
C8N8 = (2, lambda g, t, v: g, lambda g, t, v: 2 * t + v)

MMA = {  # (shape, A type class) -> (A, B, C) fragments
    ('m16n8k16', '16'): (A16K16, B16K16, C16N8),
    ('m16n8k8', '16'): ((4, lambda g, t, v: g + 8 * (v >> 1), lambda g, t, v: 2 * t + (v & 1)),
                        (2, lambda g, t, v: 2 * t + v, lambda g, t, v: g), C16N8),
    ('m16n8k8', 'tf32'): ((4, lambda g, t, v: g + 8 * (v & 1), lambda g, t, v: t + 4 * (v >> 1)),
                          (2, lambda g, t, v: t + 4 * v, lambda g, t, v: g), C16N8),
    ('m16n8k4', 'tf32'): ((2, lambda g, t, v: g + 8 * v, lambda g, t, v: t), (1, lambda g, t, v: t, lambda g, t, v: g), C16N8),
    ('m16n8k32', '8'): ((16, lambda g, t, v: g + 8 * ((v >> 2) & 1), lambda g, t, v: 4 * t + (v & 3) + 16 * (v >> 3)),
                        (8, lambda g, t, v: 4 * t + (v & 3) + 16 * (v >> 2), lambda g, t, v: g), C16N8),
    ('m16n8k16', '8'): ((8, lambda g, t, v: g + 8 * ((v >> 2) & 1), lambda g, t, v: 4 * t + (v & 3)),
                        (4, lambda g, t, v: 4 * t + v, lambda g, t, v: g), C16N8),
    ('m8n8k16', '8'): ((4, lambda g, t, v: g, lambda g, t, v: 4 * t + v), (4, lambda g, t, v: 4 * t + v, lambda g, t, v: g), C8N8),
}


def cls(t):
    return '16' if t in ('f16', 'bf16') else '8' if t in ('s8', 'u8') else 'tf32'


PER_WORD = {'f16': 2, 'bf16': 2, 's8': 4, 'u8': 4, 'tf32': 1, 'f32': 1, 's32': 1}

REGS = """\t.reg .pred %p<4>;
\t.reg .b16 %h<8>;
\t.reg .b32 %r<64>;
\t.reg .b32 %ra<16>;
\t.reg .b32 %rb<16>;
\t.reg .b32 %rc<8>;
\t.reg .b32 %rd<8>;
\t.reg .f32 %f<16>;
\t.reg .f32 %fc<8>;
\t.reg .f32 %fd<8>;
\t.reg .b64 %q<16>;
"""


def header(sm, version="7.8"):
    return ".version %s\n.target sm_%d\n.address_size 64\n\n" % (version, sm)


def write(name, ptx, test, expected):
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    for f, text in (("kernel.ptx", ptx), ("test.txt", test), ("expected.txt", expected)):
        with open(os.path.join(d, f), "w") as out:
            out.write(text)


def expected(name, typ, values):
    return "%s %s %d\n" % (name, typ, len(values)) + "".join("%x\n" % v for v in values)


def params(names):
    s = ".visible .entry k(\n" + ",\n".join("\t.param .u64 p_%s" % n for n in names) + "\n)\n{\n" + REGS
    s += "\tmov.u32 %r60, %tid.x;\n"
    for j, n in enumerate(names):
        s += "\tld.param.u64 %%q%d, [p_%s];\n\tcvta.to.global.u64 %%q%d, %%q%d;\n" % (j, n, j, j)
    return s


def base(q, words):
    """%q[q+8] = %q[q] + tid * words * 4"""
    return "\tmul.wide.u32 %%q15, %%r60, %d;\n\tadd.s64 %%q%d, %%q%d, %%q15;\n" % (words * 4, q + 8, q)


# ------------------------------------------------------------------------------------------ mma.sync

def warp_matrix(values, frag, rows, cols, warp):
    """The matrix a warp's fragments hold: values[(32 * warp + lane) * elements + v] at frag's (row, col)."""
    M = [[0] * cols for _ in range(rows)]
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        for v in range(frag[0]):
            M[frag[1](g, t, v)][frag[2](g, t, v)] = values[(32 * warp + lane) * frag[0] + v]
    return M


def mma_test(shape, dt, at, bt, ct, satfinite=False):
    m, n, k = [int(x) for x in shape[1:].replace('n', ' ').replace('k', ' ').split()]
    fa, fb, fc = MMA[(shape, cls(at))]
    wa, wb = fa[0] // PER_WORD[at], fb[0] // PER_WORD[bt]
    ec = fc[0]
    name = "mma_%s_%s_%s_%s_%s%s" % (shape, dt, at, bt, ct, "_satfinite" if satfinite else "")
    seed = sum(map(ord, name)) & 0xffff
    # inputs: A/B as 16-bit floats (half/bhalf buffers) or raw words; tf32 from f32 floats; C as f32 or words
    def operand_buffer(t, words, tag, s):
        count = THREADS * words
        if t == 'f16':
            return "buffer %s u16 %d half %d -1 1\n" % (tag, 2 * count, s), [half_value(x) for x in half_list(s, 2 * count)]
        if t == 'bf16':
            return "buffer %s u16 %d bhalf %d -1 1\n" % (tag, 2 * count, s), [bhalf_value(bhalf_bits(x)) for x in floats(s, 2 * count)]
        if t == 'tf32':
            return "buffer %s f32 %d float %d -1 1\n" % (tag, count, s), [tf32_value(x) for x in floats(s, count)]
        raw = randoms(s, count, 32)
        vals = []
        for w in raw:
            for j in range(4):
                b = w >> (8 * j) & 0xff
                vals.append(s8(b) if t == 's8' else b)
        return "buffer %s u32 %d random %d\n" % (tag, count, s), vals

    def half_list(s, count):
        return [half_bits(x) for x in floats(s, count)]

    ta, va = operand_buffer(at, wa, "a", seed + 1)
    tb, vb = operand_buffer(bt, wb, "b", seed + 2)
    if ct == 'f32':
        tc, vc = "buffer c f32 %d float %d -4 4\n" % (THREADS * ec, seed + 3), floats(seed + 3, THREADS * ec, -4, 4)
    elif ct == 'f16':
        tc, vc = "buffer c u16 %d half %d -4 4\n" % (THREADS * ec, seed + 3), [half_value(half_bits(x)) for x in floats(seed + 3, THREADS * ec, -4, 4)]
    else:
        # full-range accumulators: .satfinite saturates and plain s32 wraps for some elements
        tc = "buffer c u32 %d random %d\n" % (THREADS * ec, seed + 3)
        vc = [s32(x) for x in randoms(seed + 3, THREADS * ec, 32)]
    # reference
    out = []
    for w in range(WARPS):
        A, B, C = warp_matrix(va, fa, m, k, w), warp_matrix(vb, fb, k, n, w), warp_matrix(vc, fc, m, n, w)
        for lane in range(32):
            g, t = lane >> 2, lane & 3
            for v in range(ec):
                r, c = fc[1](g, t, v), fc[2](g, t, v)
                acc = sum(A[r][x] * B[x][c] for x in range(k)) + C[r][c]
                if dt == 'f32':
                    out.append(f32bits(f32(acc)))
                elif dt == 'f16':
                    out.append(f32bits(half_value(half_bits(acc))))
                else:
                    if satfinite:
                        acc = max(-(1 << 31), min((1 << 31) - 1, acc))
                    out.append(acc & 0xffffffff)
    otype = 'u32' if dt == 's32' else 'f32'
    tol = {'f32': " abs 0.0001", 'f16': " abs 0.02"}.get(dt, "")
    test = "kernel k\ngrid 1 1 1\nblock %d 1 1\n" % THREADS + ta + tb + tc + \
           "buffer out %s %d fill ee\n" % (otype, THREADS * ec) + \
           "param buffer a\nparam buffer b\nparam buffer c\nparam buffer out\noutput out%s\n" % tol
    sm = 75 if shape in ('m16n8k8', 'm8n8k16') and at in ('f16', 's8', 'u8') else 80
    s = header(sm) + params(["a", "b", "c", "out"])
    s += base(0, wa) + base(1, wb)
    for j in range(wa):
        if at == 'tf32':
            s += "\tld.global.f32 %%f0, [%%q8+%d];\n\tcvt.rna.tf32.f32 %%ra%d, %%f0;\n" % (4 * j, j)
        else:
            s += "\tld.global.b32 %%ra%d, [%%q8+%d];\n" % (j, 4 * j)
    for j in range(wb):
        if bt == 'tf32':
            s += "\tld.global.f32 %%f0, [%%q9+%d];\n\tcvt.rna.tf32.f32 %%rb%d, %%f0;\n" % (4 * j, j)
        else:
            s += "\tld.global.b32 %%rb%d, [%%q9+%d];\n" % (j, 4 * j)
    if ct == 'f32':
        s += base(2, ec) + "".join("\tld.global.f32 %%fc%d, [%%q10+%d];\n" % (v, 4 * v) for v in range(ec))
        cregs = ["%%fc%d" % v for v in range(ec)]
    elif ct == 'f16':
        s += base(2, ec // 2) + "".join("\tld.global.b32 %%rc%d, [%%q10+%d];\n" % (v, 4 * v) for v in range(ec // 2))
        cregs = ["%%rc%d" % v for v in range(ec // 2)]
    else:
        s += base(2, ec) + "".join("\tld.global.b32 %%rc%d, [%%q10+%d];\n" % (v, 4 * v) for v in range(ec))
        cregs = ["%%rc%d" % v for v in range(ec)]
    dregs = ["%%fd%d" % v for v in range(ec)] if dt == 'f32' else ["%%rd%d" % v for v in range(ec // 2 if dt == 'f16' else ec)]
    s += "\tmma.sync.aligned.%s.row.col%s.%s.%s.%s.%s {%s}, {%s}, {%s}, {%s};\n" % (
        shape, ".satfinite" if satfinite else "", dt, at, bt, ct, ", ".join(dregs),
        ", ".join("%%ra%d" % j for j in range(wa)), ", ".join("%%rb%d" % j for j in range(wb)), ", ".join(cregs))
    s += base(3, ec)
    for v in range(ec):
        if dt == 'f32':
            s += "\tst.global.f32 [%%q11+%d], %%fd%d;\n" % (4 * v, v)
        elif dt == 'f16':
            if v % 2 == 0:
                s += "\tmov.b32 {%%h0, %%h1}, %%rd%d;\n" % (v // 2)
            s += "\tcvt.f32.f16 %%f1, %%h%d;\n\tst.global.f32 [%%q11+%d], %%f1;\n" % (v % 2, 4 * v)
        else:
            s += "\tst.global.b32 [%%q11+%d], %%rd%d;\n" % (4 * v, v)
    s += "\tret;\n}\n"
    write(name, s, test, expected("out", otype, out))


# ------------------------------------------------------------------------------------------ wmma

def wmma_test(shape, at, ct, alayout, blayout, satfinite=False, cdlayout='row'):
    """Whole matrices in memory: wmma.load (each warp its own tile, leading dimension padded), mma, wmma.store."""
    m, n, k = [int(x) for x in shape[1:].replace('n', ' ').replace('k', ' ').split()]
    dt = ct
    name = "wmma_%s_%s_%s_%s_%s%s%s" % (shape, at, ct, alayout, blayout, "_satfinite" if satfinite else "",
                                        "" if cdlayout == 'row' else "_cd_" + cdlayout)
    seed = sum(map(ord, name)) & 0xffff
    unit = 16 if at in ('s8', 'u8') else 8      # leading dimensions: multiples of 16 bytes, with padding
    lda = ((k if alayout == 'row' else m) // unit + 1) * unit
    ldb = ((n if blayout == 'row' else k) // unit + 1) * unit
    ldc = (n if cdlayout == 'row' else m) + (8 if ct == 'f16' else 4)
    sa = m * lda if alayout == 'row' else k * lda
    sb = k * ldb if blayout == 'row' else n * ldb
    sc = (m if cdlayout == 'row' else n) * ldc
    esz = 1 if at in ('s8', 'u8') else 2
    test = "kernel k\ngrid 1 1 1\nblock %d 1 1\n" % THREADS
    # element values in memory order
    if at == 'f16':
        mem_a = [half_value(half_bits(x)) for x in floats(seed + 1, WARPS * sa)]
        mem_b = [half_value(half_bits(x)) for x in floats(seed + 2, WARPS * sb)]
        test += "buffer a u16 %d half %d -1 1\nbuffer b u16 %d half %d -1 1\n" % (WARPS * sa, seed + 1, WARPS * sb, seed + 2)
    elif at == 'bf16':
        mem_a = [bhalf_value(bhalf_bits(x)) for x in floats(seed + 1, WARPS * sa)]
        mem_b = [bhalf_value(bhalf_bits(x)) for x in floats(seed + 2, WARPS * sb)]
        test += "buffer a u16 %d bhalf %d -1 1\nbuffer b u16 %d bhalf %d -1 1\n" % (WARPS * sa, seed + 1, WARPS * sb, seed + 2)
    else:
        conv = s8 if at == 's8' else (lambda x: x)
        mem_a = [conv(x) for x in randoms(seed + 1, WARPS * sa, 8)]
        mem_b = [conv(x) for x in randoms(seed + 2, WARPS * sb, 8)]
        test += "buffer a u8 %d random %d\nbuffer b u8 %d random %d\n" % (WARPS * sa, seed + 1, WARPS * sb, seed + 2)
    if ct == 'f32':
        mem_c = floats(seed + 3, WARPS * sc, -4, 4)
        test += "buffer c f32 %d float %d -4 4\n" % (WARPS * sc, seed + 3)
    elif ct == 'f16':
        mem_c = [half_value(half_bits(x)) for x in floats(seed + 3, WARPS * sc, -4, 4)]
        test += "buffer c u16 %d half %d -4 4\n" % (WARPS * sc, seed + 3)
    else:
        mem_c = [s32(x) for x in randoms(seed + 3, WARPS * sc, 32)]
        test += "buffer c u32 %d random %d\n" % (WARPS * sc, seed + 3)
    out = []
    for w in range(WARPS):
        def A(r, c):
            return mem_a[w * sa + (r * lda + c if alayout == 'row' else c * lda + r)]

        def B(r, c):
            return mem_b[w * sb + (r * ldb + c if blayout == 'row' else c * ldb + r)]
        for idx in range(sc):  # memory order of C/D
            if cdlayout == 'row':
                r, c = idx // ldc, idx % ldc
                valid = c < n
            else:
                c, r = idx // ldc, idx % ldc
                valid = r < m
            cv = mem_c[w * sc + idx]
            if not valid:  # padding: D's store leaves it alone; the output reads it back from C's copy
                acc = cv
            else:
                acc = sum(A(r, x) * B(x, c) for x in range(k)) + cv
            if dt == 'f32':
                out.append(f32bits(f32(acc)))
            elif dt == 'f16':
                out.append(f32bits(half_value(half_bits(acc))))
            else:
                if satfinite and valid:
                    acc = max(-(1 << 31), min((1 << 31) - 1, acc))
                out.append(acc & 0xffffffff)
    otype = 'u32' if dt == 's32' else 'f32'
    tol = {'f32': " abs 0.0001", 'f16': " abs 0.02"}.get(dt, "")
    # d: D as stored (C's type); out: D widened to f32 for f16 (the checker's tolerance works on f32)
    dsz = 2 if dt == 'f16' else 4
    test += "buffer d u%d %d fill 0\nbuffer out %s %d fill ee\n" % (dsz * 8, WARPS * sc, otype, WARPS * sc)
    test += "param buffer a\nparam buffer b\nparam buffer c\nparam buffer d\nparam buffer out\noutput out%s\n" % tol
    s = header(80 if at == 'bf16' else 72, "7.8") + params(["a", "b", "c", "d", "out"])
    # warp w's tiles
    s += "\tshr.u32 %r59, %r60, 5;\n"
    for q, size in ((0, sa * esz), (1, sb * esz), (2, sc * (2 if ct == 'f16' else 4)), (3, sc * dsz)):
        s += "\tmul.wide.u32 %%q15, %%r59, %d;\n\tadd.s64 %%q%d, %%q%d, %%q15;\n" % (size, q + 8, q)
    na = {'f16': 8, 'bf16': {16: 4, 32: 8, 8: 2}[m], 's8': {16: 2, 32: 4, 8: 1}[m], 'u8': {16: 2, 32: 4, 8: 1}[m]}[at]
    nb = {'f16': 8, 'bf16': {16: 4, 8: 2, 32: 8}[n], 's8': {16: 2, 8: 1, 32: 4}[n], 'u8': {16: 2, 8: 1, 32: 4}[n]}[at]
    nc = 4 if ct == 'f16' else 8
    ra = ", ".join("%%ra%d" % j for j in range(na))
    rb = ", ".join("%%rb%d" % j for j in range(nb))
    rc = ", ".join(("%%fc%d" if ct == 'f32' else "%%rc%d") % j for j in range(nc))
    rd = ", ".join(("%%fd%d" if ct == 'f32' else "%%rd%d") % j for j in range(nc))
    s += "\twmma.load.a.sync.aligned.%s.%s.global.%s {%s}, [%%q8], %d;\n" % (alayout, shape, at, ra, lda)
    s += "\twmma.load.b.sync.aligned.%s.%s.global.%s {%s}, [%%q9], %d;\n" % (blayout, shape, at, rb, ldb)
    s += "\twmma.load.c.sync.aligned.%s.%s.global.%s {%s}, [%%q10], %d;\n" % (cdlayout, shape, ct, rc, ldc)
    types = "%s.%s" % (dt, ct) if at == 'f16' else "%s.%s.%s.%s" % (dt, at, at, ct)
    s += "\twmma.mma.sync.aligned.%s.%s.%s.%s%s {%s}, {%s}, {%s}, {%s};\n" % (
        alayout, blayout, shape, types, ".satfinite" if satfinite else "", rd, ra, rb, rc)
    # D goes over a copy of C (so the padding columns keep C's values), then each thread widens its part
    csz = 2 if ct == 'f16' else 4
    s += "\tmov.u32 %r58, %r60;\n\tand.b32 %r58, %r58, 31;\n"
    s += "LOOP:\n\tsetp.ge.u32 %%p1, %%r58, %d;\n\t@%%p1 bra COPIED;\n" % sc
    s += "\tmul.wide.u32 %%q14, %%r58, %d;\n\tadd.s64 %%q12, %%q10, %%q14;\n\tadd.s64 %%q13, %%q11, %%q14;\n" % csz
    s += ("\tld.global.b16 %h2, [%q12];\n\tst.global.b16 [%q13], %h2;\n" if csz == 2 else
          "\tld.global.b32 %r57, [%q12];\n\tst.global.b32 [%q13], %r57;\n")
    s += "\tadd.u32 %r58, %r58, 32;\n\tbra LOOP;\nCOPIED:\n\tbar.warp.sync -1;\n"
    s += "\twmma.store.d.sync.aligned.%s.%s.global.%s [%%q11], {%s}, %d;\n" % (cdlayout, shape, dt, rd, ldc)
    s += "\tbar.warp.sync -1;\n"
    s += "\tmul.wide.u32 %%q15, %%r59, %d;\n\tadd.s64 %%q12, %%q4, %%q15;\n" % (sc * 4)
    s += "\tand.b32 %r58, %r60, 31;\n"
    s += "WIDEN:\n\tsetp.ge.u32 %%p1, %%r58, %d;\n\t@%%p1 bra DONE;\n" % sc
    s += "\tmul.wide.u32 %%q14, %%r58, %d;\n\tadd.s64 %%q13, %%q11, %%q14;\n" % dsz
    s += "\tmul.wide.u32 %q14, %r58, 4;\n\tadd.s64 %q14, %q12, %q14;\n"
    if dt == 'f16':
        s += "\tld.global.b16 %h2, [%q13];\n\tcvt.f32.f16 %f2, %h2;\n\tst.global.f32 [%q14], %f2;\n"
    else:
        s += "\tld.global.b32 %r57, [%q13];\n\tst.global.b32 [%q14], %r57;\n"
    s += "\tadd.u32 %r58, %r58, 32;\n\tbra WIDEN;\nDONE:\n\tret;\n}\n"
    write(name, s, test, expected("out", otype, out))


# ------------------------------------------------------------------------------------------ ldmatrix / stmatrix / movmatrix

PERM = [(5 * r + 3) % 8 for r in range(8)]   # the rows are given out of order: lane 8j+r points at stored row PERM[r]


def ldmatrix_test(count, trans):
    name = "ldmatrix_x%d%s" % (count, "_trans" if trans else "")
    src = randoms(sum(map(ord, name)), 4 * 64, 16)        # 4 matrices of 8x8 b16 in shared memory, rows of 16 bytes
    out = []
    for w in range(WARPS):
        mats = [[[src[(j * 8 + PERM[r]) * 8 + c] ^ (w * 0x1111) for c in range(8)] for r in range(8)] for j in range(4)]
        for lane in range(32):
            g, t = lane >> 2, lane & 3
            for j in range(4):
                if j >= count:
                    out.append(0xeeeeeeee)
                    continue
                M = mats[j]
                lo, hi = (M[g][2 * t], M[g][2 * t + 1]) if not trans else (M[2 * t][g], M[2 * t + 1][g])
                out.append(lo | hi << 16)
    s = header(75) + ".shared .align 16 .b8 sm[1024];\n\n" + params(["src", "out"])
    # each warp copies the 512 bytes into its half of shared memory, xor-ing with its warp number
    s += "\tshr.u32 %r59, %r60, 5;\n\tand.b32 %r58, %r60, 31;\n\tmul.lo.u32 %r56, %r59, 4369;\n\tmov.u32 %r55, sm;\n"
    s += "\tshl.b32 %r54, %r59, 9;\n\tadd.u32 %r55, %r55, %r54;\n"
    s += "\tmul.wide.u32 %q15, %r58, 16;\n\tadd.s64 %q8, %q0, %q15;\n\tshl.b32 %r53, %r58, 4;\n\tadd.u32 %r53, %r55, %r53;\n"
    for h in range(8):
        s += "\tld.global.b16 %%h1, [%%q8+%d];\n\tcvt.u16.u32 %%h2, %%r56;\n\txor.b16 %%h1, %%h1, %%h2;\n\tst.shared.b16 [%%r53+%d], %%h1;\n" % (2 * h, 2 * h)
    s += "\tbar.sync 0;\n"
    # lane 8j + r gives stored row PERM[r] of matrix j: address = base + (8j + PERM[r]) * 16
    s += "\tand.b32 %r52, %r58, 7;\n\tmul.lo.u32 %r51, %r52, 5;\n\tadd.u32 %r51, %r51, 3;\n\trem.u32 %r51, %r51, 8;\n"
    s += "\tshr.u32 %r50, %r58, 3;\n\tshl.b32 %r50, %r50, 3;\n\tadd.u32 %r50, %r50, %r51;\n\tshl.b32 %r50, %r50, 4;\n\tadd.u32 %r50, %r55, %r50;\n"
    regs = ["%%r%d" % j for j in range(count)]
    for j in range(4):
        s += "\tmov.u32 %%r%d, -286331154;\n" % j
    s += "\tldmatrix.sync.aligned.m8n8.x%d%s.shared.b16 {%s}, [%%r50];\n" % (count, ".trans" if trans else "", ", ".join(regs))
    s += base(1, 4) + "".join("\tst.global.b32 [%%q9+%d], %%r%d;\n" % (4 * j, j) for j in range(4)) + "\tret;\n}\n"
    test = "kernel k\ngrid 1 1 1\nblock %d 1 1\nbuffer src u16 256 random %d\nbuffer out u32 %d fill ee\n" % (
        THREADS, sum(map(ord, name)), THREADS * 4) + "param buffer src\nparam buffer out\noutput out\n"
    write(name, s, test, expected("out", "u32", out))


def stmatrix_test(count, trans):
    name = "stmatrix_x%d%s" % (count, "_trans" if trans else "")
    seed = sum(map(ord, name))
    regs_in = randoms(seed, THREADS * 4, 32)
    out = []
    for w in range(WARPS):
        mem = [0xeeee] * (4 * 64)   # each warp's 512 bytes, rows given out of order as in ldmatrix_test
        for j in range(count):
            # fragment matrix j: element (r, c) in lane 4r + c/2, register j, half c%2
            F = [[(regs_in[(32 * w + 4 * r + c // 2) * 4 + j] >> (16 * (c % 2))) & 0xffff for c in range(8)] for r in range(8)]
            for r in range(8):
                row = F[r] if not trans else [F[c][r] for c in range(8)]
                for c in range(8):
                    mem[(j * 8 + PERM[r]) * 8 + c] = row[c]
        out += [mem[2 * i] | mem[2 * i + 1] << 16 for i in range(128)]
    s = header(90) + ".shared .align 16 .b8 sm[1024];\n\n" + params(["in", "out"])
    s += "\tshr.u32 %r59, %r60, 5;\n\tand.b32 %r58, %r60, 31;\n\tmov.u32 %r55, sm;\n\tshl.b32 %r54, %r59, 9;\n\tadd.u32 %r55, %r55, %r54;\n"
    # fill this warp's shared memory with 0xeeee: 16 bytes per lane
    s += "\tshl.b32 %r53, %r58, 4;\n\tadd.u32 %r53, %r55, %r53;\n\tmov.u32 %r49, -286331154;\n"
    s += "".join("\tst.shared.b32 [%%r53+%d], %%r49;\n" % (4 * q) for q in range(4))
    s += "\tbar.sync 0;\n"
    s += base(0, 4) + "".join("\tld.global.b32 %%r%d, [%%q8+%d];\n" % (j, 4 * j) for j in range(4))
    s += "\tand.b32 %r52, %r58, 7;\n\tmul.lo.u32 %r51, %r52, 5;\n\tadd.u32 %r51, %r51, 3;\n\trem.u32 %r51, %r51, 8;\n"
    s += "\tshr.u32 %r50, %r58, 3;\n\tshl.b32 %r50, %r50, 3;\n\tadd.u32 %r50, %r50, %r51;\n\tshl.b32 %r50, %r50, 4;\n\tadd.u32 %r50, %r55, %r50;\n"
    s += "\tstmatrix.sync.aligned.m8n8.x%d%s.shared.b16 [%%r50], {%s};\n" % (count, ".trans" if trans else "", ", ".join("%%r%d" % j for j in range(count)))
    s += "\tbar.sync 0;\n"
    s += "\tmul.wide.u32 %q15, %r60, 16;\n\tadd.s64 %q9, %q1, %q15;\n"
    s += "".join("\tld.shared.b32 %%r49, [%%r53+%d];\n\tst.global.b32 [%%q9+%d], %%r49;\n" % (4 * q, 4 * q) for q in range(4))
    s += "\tret;\n}\n"
    test = "kernel k\ngrid 1 1 1\nblock %d 1 1\nbuffer in u32 %d random %d\nbuffer out u32 %d fill ee\n" % (
        THREADS, THREADS * 4, seed, THREADS * 4) + "param buffer in\nparam buffer out\noutput out\n"
    write(name, s, test, expected("out", "u32", out))


def movmatrix_test():
    name = "movmatrix_trans"
    seed = sum(map(ord, name))
    vin = randoms(seed, THREADS, 32)
    out = []
    for w in range(WARPS):
        F = [[(vin[32 * w + 4 * r + c // 2] >> (16 * (c % 2))) & 0xffff for c in range(8)] for r in range(8)]
        for lane in range(32):
            g, t = lane >> 2, lane & 3
            out.append(F[2 * t][g] | F[2 * t + 1][g] << 16)
    s = header(80) + params(["in", "out"]) + base(0, 1) + "\tld.global.b32 %r1, [%q8];\n"
    s += "\tmovmatrix.sync.aligned.m8n8.trans.b16 %r2, %r1;\n" + base(1, 1) + "\tst.global.b32 [%q9], %r2;\n\tret;\n}\n"
    test = "kernel k\ngrid 1 1 1\nblock %d 1 1\nbuffer in u32 %d random %d\nbuffer out u32 %d fill ee\n" % (
        THREADS, THREADS, seed, THREADS) + "param buffer in\nparam buffer out\noutput out\n"
    write(name, s, test, expected("out", "u32", out))


# ------------------------------------------------------------------------------------------ cp.async

def cp_async_test():
    """Each thread copies 4, 8 and 16 bytes (ca/cg), some with src-size < cp-size or ignore-src, in two groups."""
    name = "cp_async_groups"
    seed = sum(map(ord, name))
    src = randoms(seed, THREADS * 8, 32)
    out = []
    for tid in range(THREADS):
        words = src[tid * 8: tid * 8 + 8]
        s_size = tid % 17            # src-size for the 16-byte copy: 0..16
        ignore = tid % 3 == 0
        b16 = b"".join(struct.pack('<I', x) for x in words[4:8])
        b16 = b16[:s_size] + b"\0" * (16 - s_size)         # +0: 16 bytes .cg from src+16 with src-size
        row = list(struct.unpack('<4I', b16))
        row += words[2:4]                                 # +16: 8 bytes .ca from src+8
        row += [words[0]]                                 # +24: 4 bytes .ca from src+0
        row += [0] if ignore else [words[1]]              # +28: 4 bytes .ca from src+4 with ignore-src
        out += row
    s = header(80) + ".shared .align 16 .b8 sm[2048];\n\n" + params(["src", "out"])
    s += base(0, 8) + "\tmov.u32 %r55, sm;\n\tshl.b32 %r54, %r60, 5;\n\tadd.u32 %r55, %r55, %r54;\n"
    s += "\trem.u32 %r53, %r60, 17;\n\trem.u32 %r52, %r60, 3;\n\tsetp.eq.u32 %p1, %r52, 0;\n"
    s += "\tcp.async.cg.shared.global [%r55], [%q8+16], 16, %r53;\n"
    s += "\tcp.async.ca.shared.global [%r55+16], [%q8+8], 8;\n"
    s += "\tcp.async.commit_group;\n"
    s += "\tcp.async.ca.shared.global [%r55+24], [%q8], 4;\n"
    s += "\tcp.async.ca.shared.global [%r55+28], [%q8+4], 4, %p1;\n"
    s += "\tcp.async.commit_group;\n\tcp.async.wait_group 1;\n\tcp.async.wait_all;\n\tbar.sync 0;\n"
    s += base(1, 8) + "".join("\tld.shared.b32 %%r1, [%%r55+%d];\n\tst.global.b32 [%%q9+%d], %%r1;\n" % (4 * q, 4 * q) for q in range(8))
    s += "\tret;\n}\n"
    test = "kernel k\ngrid 1 1 1\nblock %d 1 1\nbuffer src u32 %d random %d\nbuffer out u32 %d fill ee\n" % (
        THREADS, THREADS * 8, seed, THREADS * 8) + "param buffer src\nparam buffer out\noutput out\n"
    write(name, s, test, expected("out", "u32", out))


def mma_pair_chain_test(t):
    """Four mma: D1 = A1 B1 + C1, D2 = A1 B2 + C2 (sharing A: one WMMA pair on AMD), then E1 = A2 B3 + D1 and
    E2 = A2 B4 + D2 in the same registers (the accumulators stay in the WMMA layout there). t: f16, bf16 (m16n8k16,
    f32 accumulators) or 's8_u8' (m16n8k32 s8 x u8, s32 accumulators, .satfinite on the second pair)."""
    integer = t == 's8_u8'
    shape, k = ('m16n8k32', 32) if integer else ('m16n8k16', 16)
    name = "mma_pair_chain_%s_%s" % (shape, t)
    seed = sum(map(ord, name))
    fa, fb, fc = MMA[(shape, '8' if integer else '16')]
    words = {'a1': 4, 'a2': 4, 'b1': 2, 'b2': 2, 'b3': 2, 'b4': 2}
    vals, test = {}, "kernel k\ngrid 1 1 1\nblock %d 1 1\n" % THREADS
    for j, (n, w) in enumerate(words.items()):
        if integer:
            raw = randoms(seed + j, THREADS * w, 32)
            signed = n.startswith('a')
            vals[n] = [(s8(x >> (8 * b) & 0xff) if signed else x >> (8 * b) & 0xff) for x in raw for b in range(4)]
            test += "buffer %s u32 %d random %d\n" % (n, THREADS * w, seed + j)
        else:
            value, conv = (half_value, half_bits) if t == 'f16' else (bhalf_value, bhalf_bits)
            vals[n] = [value(conv(x)) for x in floats(seed + j, THREADS * w * 2)]
            test += "buffer %s u16 %d %s %d -1 1\n" % (n, THREADS * w * 2, 'half' if t == 'f16' else 'bhalf', seed + j)
    for j, n in enumerate(('c1', 'c2')):
        if integer:
            vals[n] = [s32(x) for x in randoms(seed + 10 + j, THREADS * 4, 32)]
            test += "buffer %s u32 %d random %d\n" % (n, THREADS * 4, seed + 10 + j)
        else:
            vals[n] = floats(seed + 10 + j, THREADS * 4, -4, 4)
            test += "buffer %s f32 %d float %d -4 4\n" % (n, THREADS * 4, seed + 10 + j)
    otype = 'u32' if integer else 'f32'
    test += "buffer out %s %d fill ee\n" % (otype, THREADS * 8)
    names = ['out'] + list(words) + ['c1', 'c2']
    test += "".join("param buffer %s\n" % n for n in names) + "output out%s\n" % ("" if integer else " abs 0.0001")
    out = []
    for w in range(WARPS):
        A1, A2 = warp_matrix(vals['a1'], fa, 16, k, w), warp_matrix(vals['a2'], fa, 16, k, w)
        B = [warp_matrix(vals[n], fb, k, 8, w) for n in ('b1', 'b2', 'b3', 'b4')]
        C1, C2 = warp_matrix(vals['c1'], fc, 16, 8, w), warp_matrix(vals['c2'], fc, 16, 8, w)

        def mm(A, Bm, C, sat=False):
            r = [[sum(A[i][x] * Bm[x][c] for x in range(k)) + C[i][c] for c in range(8)] for i in range(16)]
            if not integer:
                return [[f32(x) for x in row] for row in r]
            return [[max(-(1 << 31), min((1 << 31) - 1, x)) if sat else s32(x) for x in row] for row in r]
        E1 = mm(A2, B[2], mm(A1, B[0], C1), True)
        E2 = mm(A2, B[3], mm(A1, B[1], C2), True)
        for lane in range(32):
            g, tt = lane >> 2, lane & 3
            for E in (E1, E2):
                for v in range(4):
                    x = E[fc[1](g, tt, v)][fc[2](g, tt, v)]
                    out.append(x & 0xffffffff if integer else f32bits(x))
    s = header(80) + params(names)
    regs = {'a1': ["%%ra%d" % x for x in range(4)], 'a2': ["%%ra%d" % x for x in range(4, 8)]}
    for j, n in enumerate(('b1', 'b2', 'b3', 'b4')):
        regs[n] = ["%%rb%d" % (2 * j), "%%rb%d" % (2 * j + 1)]
    for j, (n, wd) in enumerate(words.items()):
        s += base(j + 1, wd)      # %q(j+9): this thread's words of operand j
    for j, (n, wd) in enumerate(words.items()):
        s += "".join("\tld.global.b32 %s, [%%q%d+%d];\n" % (r, j + 9, 4 * x) for x, r in enumerate(regs[n]))
    acc = "%rc" if integer else "%fc"
    s += "\tmul.wide.u32 %q15, %r60, 16;\n\tadd.s64 %q14, %q7, %q15;\n\tadd.s64 %q13, %q8, %q15;\n"
    ld = "b32" if integer else "f32"
    s += "".join("\tld.global.%s %s%d, [%%q14+%d];\n" % (ld, acc, x, 4 * x) for x in range(4))
    s += "".join("\tld.global.%s %s%d, [%%q13+%d];\n" % (ld, acc, x + 4, 4 * x) for x in range(4))
    types = "s32.s8.u8.s32" if integer else "f32.%s.%s.f32" % (t, t)
    mma = "\tmma.sync.aligned.%s.row.col%%s.%s {%%s}, {%%s}, {%%s}, {%%s};\n" % (shape, types)
    d1, d2 = ", ".join("%s%d" % (acc, x) for x in range(4)), ", ".join("%s%d" % (acc, x) for x in range(4, 8))
    sat = ".satfinite" if integer else ""
    s += mma % ("", d1, ", ".join(regs['a1']), ", ".join(regs['b1']), d1)
    s += mma % ("", d2, ", ".join(regs['a1']), ", ".join(regs['b2']), d2)
    s += mma % (sat, d1, ", ".join(regs['a2']), ", ".join(regs['b3']), d1)
    s += mma % (sat, d2, ", ".join(regs['a2']), ", ".join(regs['b4']), d2)
    s += "\tmul.wide.u32 %q15, %r60, 32;\n\tadd.s64 %q12, %q0, %q15;\n"
    s += "".join("\tst.global.%s [%%q12+%d], %s%d;\n" % (ld, 4 * x, acc, x) for x in range(8)) + "\tret;\n}\n"
    write(name, s, test, expected("out", otype, out))


def mbarrier_test():
    """mbarrier: init by one thread, a phase completed by arrive + test_wait, the next by cp.async.mbarrier.arrive.noinc
    + try_wait.parity, each followed by reading what other threads wrote."""
    name = "mbarrier_phases_cp_async"
    seed = sum(map(ord, name))
    a, b = randoms(seed, THREADS, 32), randoms(seed + 1, THREADS, 32)
    out = []
    for tid in range(THREADS):
        out += [a[(tid + 1) % THREADS], b[(tid + 5) % THREADS]]
    s = header(90, "8.0") + ".shared .align 8 .b64 bar;\n.shared .align 16 .b32 data[64];\n.shared .align 16 .b32 data2[64];\n\n"
    s += params(["a", "b", "out"])
    s += "\tmov.u32 %r1, bar;\n\tmov.u32 %r2, data;\n\tmov.u32 %r3, data2;\n"
    s += "\tsetp.ne.u32 %p1, %r60, 0;\n\t@%p1 bra INITED;\n\tmbarrier.init.shared.b64 [%r1], 64;\nINITED:\n\tbar.sync 0;\n"
    s += base(0, 1) + "\tld.global.b32 %r4, [%q8];\n\tshl.b32 %r5, %r60, 2;\n\tadd.u32 %r6, %r2, %r5;\n\tst.shared.b32 [%r6], %r4;\n"
    s += "\tmbarrier.arrive.shared.b64 %q12, [%r1];\nWAIT0:\n\tmbarrier.test_wait.shared.b64 %p2, [%r1], %q12;\n\t@!%p2 bra WAIT0;\n"
    s += "\tadd.u32 %r7, %r60, 1;\n\trem.u32 %r7, %r7, 64;\n\tshl.b32 %r7, %r7, 2;\n\tadd.u32 %r7, %r2, %r7;\n\tld.shared.b32 %r8, [%r7];\n"
    s += base(2, 2) + "\tst.global.b32 [%q10], %r8;\n"
    s += base(1, 1) + "\tadd.u32 %r9, %r3, %r5;\n\tcp.async.ca.shared.global [%r9], [%q9], 4;\n"
    s += "\tcp.async.mbarrier.arrive.noinc.shared.b64 [%r1];\nWAIT1:\n\tmbarrier.try_wait.parity.shared.b64 %p3, [%r1], 1;\n\t@!%p3 bra WAIT1;\n"
    s += "\tadd.u32 %r11, %r60, 5;\n\trem.u32 %r11, %r11, 64;\n\tshl.b32 %r11, %r11, 2;\n\tadd.u32 %r11, %r3, %r11;\n\tld.shared.b32 %r12, [%r11];\n"
    s += "\tst.global.b32 [%q10+4], %r12;\n\tret;\n}\n"
    test = "kernel k\ngrid 1 1 1\nblock %d 1 1\nbuffer a u32 %d random %d\nbuffer b u32 %d random %d\nbuffer out u32 %d fill ee\n" % (
        THREADS, THREADS, seed, THREADS, seed + 1, THREADS * 2) + "param buffer a\nparam buffer b\nparam buffer out\noutput out\n"
    write(name, s, test, expected("out", "u32", out))


def shfl_per_lane_test():
    """shfl.sync.idx and .up whose source lane / delta differs from lane to lane (the matrix lowerings' permutes)."""
    name = "warp_shfl_per_lane_source"
    seed = sum(map(ord, name))
    vin = randoms(seed, THREADS, 32)
    out = []
    for tid in range(THREADS):
        w, lane = tid // 32, tid % 32
        src = (lane * 7 + 3) % 32
        out.append(vin[32 * w + src])
        delta = lane % 5                                      # shfl.up: lanes below delta keep their own value
        out.append(vin[tid - delta] if lane >= delta else vin[tid])
    s = header(70) + params(["in", "out"]) + base(0, 1) + "\tld.global.b32 %r1, [%q8];\n\tand.b32 %r2, %r60, 31;\n"
    s += "\tmul.lo.u32 %r3, %r2, 7;\n\tadd.u32 %r3, %r3, 3;\n\tand.b32 %r3, %r3, 31;\n"
    s += "\tshfl.sync.idx.b32 %r4, %r1, %r3, 31, -1;\n"
    s += "\trem.u32 %r5, %r2, 5;\n\tshfl.sync.up.b32 %r6, %r1, %r5, 0, -1;\n"
    s += base(1, 2) + "\tst.global.b32 [%q9], %r4;\n\tst.global.b32 [%q9+4], %r6;\n\tret;\n}\n"
    test = "kernel k\ngrid 1 1 1\nblock %d 1 1\nbuffer in u32 %d random %d\nbuffer out u32 %d fill ee\n" % (
        THREADS, THREADS, seed, THREADS * 2) + "param buffer in\nparam buffer out\noutput out\n"
    write(name, s, test, expected("out", "u32", out))


def main():
    for dt, ct in (('f32', 'f32'), ('f16', 'f16')):  # f16 A/B: .dtype = .ctype for these shapes
        mma_test('m16n8k16', dt, 'f16', 'f16', ct)
        mma_test('m16n8k8', dt, 'f16', 'f16', ct)
    mma_test('m16n8k16', 'f32', 'bf16', 'bf16', 'f32')
    mma_test('m16n8k8', 'f32', 'bf16', 'bf16', 'f32')
    mma_test('m16n8k8', 'f32', 'tf32', 'tf32', 'f32')
    mma_test('m16n8k4', 'f32', 'tf32', 'tf32', 'f32')
    for a, b in (('s8', 's8'), ('u8', 'u8'), ('s8', 'u8'), ('u8', 's8')):
        mma_test('m16n8k32', 's32', a, b, 's32')
        mma_test('m8n8k16', 's32', a, b, 's32')
    mma_test('m16n8k32', 's32', 's8', 's8', 's32', satfinite=True)
    mma_test('m16n8k16', 's32', 'u8', 's8', 's32', satfinite=True)
    mma_test('m8n8k16', 's32', 'u8', 'u8', 's32', satfinite=True)
    for shape in ('m16n16k16', 'm32n8k16', 'm8n32k16'):
        wmma_test(shape, 'f16', 'f32', 'row', 'col')
        wmma_test(shape, 'f16', 'f16', 'col', 'row')
        wmma_test(shape, 'bf16', 'f32', 'row', 'row')
        wmma_test(shape, 's8', 's32', 'col', 'col')
        wmma_test(shape, 'u8', 's32', 'row', 'col', satfinite=True)
        wmma_test(shape, 'f16', 'f32', 'col', 'col', cdlayout='col')
    wmma_test('m16n16k16', 'f16', 'f16', 'row', 'col', cdlayout='col')
    wmma_test('m16n16k16', 's8', 's32', 'row', 'row', cdlayout='col')
    for count in (1, 2, 4):
        for trans in (False, True):
            ldmatrix_test(count, trans)
            stmatrix_test(count, trans)
    movmatrix_test()
    cp_async_test()
    shfl_per_lane_test()
    mma_pair_chain_test('f16')
    mma_pair_chain_test('bf16')
    mma_pair_chain_test('s8_u8')
    mbarrier_test()


if __name__ == "__main__":
    main()
