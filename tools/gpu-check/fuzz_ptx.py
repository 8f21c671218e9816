#!/usr/bin/env python3
"""Random, well-defined PTX kernels for differential testing against NVIDIA (issue 19): each is a ptx-test folder
(kernel.ptx, test.txt; no expected.txt) that tools/gpu-check runs natively and through ZLUDA-J and compares bit for
bit, like every ptx-test. A kernel loads edge values and random words per thread into eight 32-bit registers and
four f32 registers, runs a random straight-line sequence of integer and float instructions (every operand form that
has one defined result: no division by zero, no .approx), and stores every register.
Usage: fuzz_ptx.py OUT_DIR COUNT [SEED]  (folders fuzz_SEED_K)"""
import os
import random
import sys

R = ["%r{}".format(i) for i in range(8)]
F = ["%f{}".format(i) for i in range(4)]
ROUND = [".rn", ".rz", ".rm", ".rp"]
CMP_I = [".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".lo", ".ls", ".hi", ".hs"]
CMP_F = [".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".equ", ".neu", ".ltu", ".leu", ".gtu", ".geu", ".num", ".nan"]


def instruction(rng):
    """One random instruction (a list of PTX lines)."""
    r = lambda: rng.choice(R)
    f = lambda: rng.choice(F)
    it = rng.choice([".u32", ".s32"])
    k = rng.randrange(34)
    if k == 0: return ["add%s %s, %s, %s;" % (it, r(), r(), r())]
    if k == 1: return ["sub%s %s, %s, %s;" % (it, r(), r(), r())]
    if k == 2: return ["mul.%s%s %s, %s, %s;" % (rng.choice(["lo", "hi"]), it, r(), r(), r())]
    if k == 3: return ["mad.%s%s %s, %s, %s, %s;" % (rng.choice(["lo", "hi"]), it, r(), r(), r(), r())]
    if k == 4: return ["%s%s %s, %s, %s;" % (rng.choice(["min", "max"]), it, r(), r(), r())]
    if k == 5: return ["%s.b32 %s, %s, %s;" % (rng.choice(["and", "or", "xor"]), r(), r(), r())]
    if k == 6:
        if rng.random() < 0.5: return ["shl.b32 %s, %s, %s;" % (r(), r(), r())]
        return ["shr%s %s, %s, %s;" % (rng.choice([".b32", it]), r(), r(), r())]
    if k == 7: return ["%s.s32 %s, %s;" % (rng.choice(["neg", "abs"]), r(), r()), "not.b32 %s, %s;" % (r(), r())]
    if k == 8: return ["%s.b32 %s, %s;" % (rng.choice(["popc", "clz", "brev"]), r(), r())]
    if k == 9: return ["bfe%s %s, %s, %s, %s;" % (it, r(), r(), r(), r())]
    if k == 10: return ["bfi.b32 %s, %s, %s, %s, %s;" % (r(), r(), r(), r(), r())]
    if k == 11: return ["prmt.b32%s %s, %s, %s, %s;" % (rng.choice(["", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"]), r(), r(), r(), r())]
    if k == 12: return ["sad%s %s, %s, %s, %s;" % (it, r(), r(), r(), r())]
    if k == 13: return ["%s.sat.s32 %s, %s, %s;" % (rng.choice(["add", "sub"]), r(), r(), r())]
    if k == 14:  # a carry chain
        return ["add.cc.u32 %s, %s, %s;" % (r(), r(), r()), "addc.cc.u32 %s, %s, %s;" % (r(), r(), r()),
                "subc.u32 %s, %s, %s;" % (r(), r(), r())]
    if k == 15:
        return ["setp%s%s %%p1, %s, %s;" % (rng.choice(CMP_I[:6]) if it == ".s32" else rng.choice(CMP_I), it, r(), r()),
                "selp.b32 %s, %s, %s, %%p1;" % (r(), r(), r())]
    if k == 16:  # division by a divisor made nonzero (and INT_MIN / -1 avoided for s32 by the low bit set... and > 1)
        d = r()
        return ["or.b32 %%r8, %s, 3;" % d, "%s.u32 %s, %s, %%r8;" % (rng.choice(["div", "rem"]), r(), r())]
    if k == 17:
        if rng.random() < 0.5: return ["mul24.lo%s %s, %s, %s;" % (it, r(), r(), r())]
        return ["mad24.lo%s %s, %s, %s, %s;" % (it, r(), r(), r(), r())]
    if k == 18: return ["lop3.b32 %s, %s, %s, %s, %d;" % (r(), r(), r(), r(), rng.randrange(256))]
    if k == 19: return ["shf.%s.%s.b32 %s, %s, %s, %s;" % (rng.choice(["l", "r"]), rng.choice(["wrap", "clamp"]), r(), r(), r(), r())]
    if k == 20: return ["cvt.%s %s, %s;" % (rng.choice(["s32.s8", "s32.s16", "u32.u8", "u32.u16"]), r(), r())]
    if k == 21: return ["dp4a%s%s %s, %s, %s, %s;" % (it, rng.choice([".u32", ".s32"]), r(), r(), r(), r())]
    if k == 22: return ["mov.b32 %s, %s;" % (f(), r())]  # fresh float bits (NaNs, subnormals, infinities)
    if k == 23: return ["mov.b32 %s, %s;" % (r(), f())]
    # f32
    rnd = rng.choice(ROUND)
    ftz = rng.choice(["", ".ftz"])
    sat = rng.choice(["", "", ".sat"])
    if k == 24: return ["%s%s%s%s.f32 %s, %s, %s;" % (rng.choice(["add", "sub", "mul"]), rnd, ftz, sat, f(), f(), f())]
    if k == 25: return ["fma%s%s%s.f32 %s, %s, %s, %s;" % (rnd, ftz, sat, f(), f(), f(), f())]
    if k == 26: return ["%s%s%s.f32 %s, %s, %s;" % (rng.choice(["min", "max"]), ftz, rng.choice(["", ".NaN"]), f(), f(), f())]
    if k == 27: return ["%s%s.f32 %s, %s;" % (rng.choice(["abs", "neg"]), ftz, f(), f())]
    if k == 28: return ["div%s%s.f32 %s, %s, %s;" % (rnd, ftz, f(), f(), f())]
    if k == 29: return ["%s%s%s.f32 %s, %s;" % (rng.choice(["sqrt", "rcp"]), rnd, ftz, f(), f())]
    if k == 30: return ["cvt%s%s.sat.%s.f32 %s, %s;" % (rng.choice([".rni", ".rzi", ".rmi", ".rpi"]), ftz, rng.choice(["s32", "u32"]), r(), f())]
    if k == 31: return ["cvt%s.f32.%s %s, %s;" % (rnd, rng.choice(["s32", "u32"]), f(), r())]
    if k == 32:
        return ["setp%s%s.f32 %%p1, %s, %s;" % (rng.choice(CMP_F), ftz, f(), f()), "selp.b32 %s, %s, %s, %%p1;" % (r(), r(), r())]
    return ["testp.%s.f32 %%p1, %s;" % (rng.choice(["finite", "infinite", "number", "notanumber", "normal", "subnormal"]), f()),
            "selp.b32 %s, %s, %s, %%p1;" % (r(), r(), r())]


def kernel(rng, n):
    body = []
    for _ in range(n):
        body += instruction(rng)
    lines = [".version 7.8", ".target sm_80", ".address_size 64", "",
             "// a random kernel of tools/gpu-check/fuzz_ptx.py: compared bit for bit with NVIDIA's execution",
             ".visible .entry k(.param .u64 k_a, .param .u64 k_b, .param .u64 k_out)", "{",
             "\t.reg .pred %p<2>;", "\t.reg .b32 %r<10>;", "\t.reg .f32 %f<4>;", "\t.reg .b64 %rd<8>;",
             "\tmov.u32 %r9, %tid.x;", "\tmul.wide.u32 %rd6, %r9, 8;",
             "\tld.param.u64 %rd1, [k_a];", "\tadd.s64 %rd1, %rd1, %rd6;", "\tld.global.v2.u32 {%r0, %r1}, [%rd1];",
             "\tld.param.u64 %rd2, [k_b];", "\tadd.s64 %rd2, %rd2, %rd6;", "\tld.global.v2.u32 {%r2, %r3}, [%rd2];",
             "\txor.b32 %r4, %r0, %r3;", "\tmov.u32 %r5, -2147483648;", "\tadd.u32 %r6, %r1, %r2;", "\tsub.u32 %r7, %r2, %r0;",
             "\tmov.b32 %f0, %r0;", "\tmov.b32 %f1, %r1;", "\tmov.b32 %f2, %r2;", "\tmov.b32 %f3, %r3;"]
    lines += ["\t" + l for l in body]
    lines += ["\tld.param.u64 %rd5, [k_out];", "\tmul.wide.u32 %rd6, %r9, 48;", "\tadd.s64 %rd5, %rd5, %rd6;"]
    for i, reg in enumerate(R + F):
        lines.append("\tst.global.b32 [%%rd5+%d], %s;" % (4 * i, reg))
    lines += ["\tret;", "}"]
    return "\n".join(lines) + "\n"


def main():
    out, count = sys.argv[1], int(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    threads = 64
    for k in range(count):
        rng = random.Random(seed * 100003 + k)
        d = os.path.join(out, "fuzz_%d_%03d" % (seed, k))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "kernel.ptx"), "w") as f:
            f.write(kernel(rng, 40))
        with open(os.path.join(d, "test.txt"), "w") as f:
            f.write("kernel k\ngrid 1 1 1\nblock %d 1 1\n" % threads)
            f.write("buffer a u32 %d special %d\n" % (2 * threads, rng.randrange(1 << 30)))
            f.write("buffer b u32 %d random %d\n" % (2 * threads, rng.randrange(1 << 30)))
            f.write("buffer out u32 %d fill ee\n" % (12 * threads))
            f.write("param buffer a\nparam buffer b\nparam buffer out\noutput out\n")
    print("fuzz_ptx: %d kernels in %s" % (count, out))


if __name__ == "__main__":
    main()
