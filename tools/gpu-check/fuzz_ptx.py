#!/usr/bin/env python3
"""Random, well-defined PTX kernels for differential testing against NVIDIA (issue 19): each is a ptx-test folder
(kernel.ptx, test.txt; no expected.txt) that runs natively and through ZLUDA-J and is compared bit for bit.

A kernel of 64 threads (two warps) loads edge values and random words per thread into eight 32-bit, four f32, two
64-bit, two f64 and two f16 registers (f64 and f16 edge values from a 64-bit buffer of them too), then runs a random sequence of items, each with one defined result:
  - integer instructions (32 and 64 bits: carry chains, saturation, bit fields, permutes, shifts past the width,
    division by nonzero divisors), f32/f64/f16/f16x2 arithmetic in every rounding with .ftz/.sat, min/max with
    NaNs, conversions between every width with rounding and saturation, comparisons, testp, predicated execution;
  - divergent if/else on data and data-dependent loops (1 to 8 trips) around such instructions;
  - warp collectives where the set of executing lanes equals the mask: shfl.sync (every mode, register lane and
    clamp/segment operands) with the full mask, and shfl (within the group), vote, redux and match in sub-warp
    groups (a prefix of lanes, even or odd lanes, or the lanes whose data predicate holds, its mask from a ballot);
  - shared memory exchanged across both warps between bar.sync, integer reductions into shared memory (red: their
    sum does not depend on order), and a local array indexed by data.
No .approx, no division by zero in integers, no read of memory not written, no race, no collective with a lane of
its mask missing. Every register is stored at the end.
Usage: fuzz_ptx.py OUT_DIR COUNT [SEED [FIRST]]  (folders fuzz_SEED_K, K from FIRST, five digits)"""
import os
import random
import sys

R = ["%r{}".format(i) for i in range(8)]
F = ["%f{}".format(i) for i in range(4)]
D = ["%rd10", "%rd11"]
FD = ["%fd0", "%fd1"]
H = ["%h0", "%h1"]
ROUND = [".rn", ".rz", ".rm", ".rp"]
IROUND = [".rni", ".rzi", ".rmi", ".rpi"]
CMP_I = [".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".lo", ".ls", ".hi", ".hs"]
CMP_F = [".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".equ", ".neu", ".ltu", ".leu", ".gtu", ".geu", ".num", ".nan"]
THREADS = 64
WORDS = 22  # stored per thread: r0-7, f0-3, rd10-11, fd0-1, {h0,h1}, predicates


def int32(rng):
    r = lambda: rng.choice(R)
    it = rng.choice([".u32", ".s32"])
    k = rng.randrange(27)
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
    if k == 16:  # division by a divisor made nonzero
        return ["or.b32 %%r8, %s, 3;" % r(), "%s.u32 %s, %s, %%r8;" % (rng.choice(["div", "rem"]), r(), r())]
    if k == 17:
        if rng.random() < 0.5: return ["mul24.lo%s %s, %s, %s;" % (it, r(), r(), r())]
        return ["mad24.lo%s %s, %s, %s, %s;" % (it, r(), r(), r(), r())]
    if k == 18: return ["lop3.b32 %s, %s, %s, %s, %d;" % (r(), r(), r(), r(), rng.randrange(256))]
    if k == 19: return ["shf.%s.%s.b32 %s, %s, %s, %s;" % (rng.choice(["l", "r"]), rng.choice(["wrap", "clamp"]), r(), r(), r(), r())]
    if k == 20: return ["cvt.%s %s, %s;" % (rng.choice(["s32.s8", "s32.s16", "u32.u8", "u32.u16"]), r(), r())]
    if k == 21: return ["dp4a%s%s %s, %s, %s, %s;" % (it, rng.choice([".u32", ".s32"]), r(), r(), r(), r())]
    if k == 22: return ["dp2a.%s%s%s %s, %s, %s, %s;" % (rng.choice(["lo", "hi"]), it, rng.choice([".u32", ".s32"]), r(), r(), r(), r())]
    if k == 23: return ["bfind%s%s %s, %s;" % (rng.choice(["", ".shiftamt"]), it, r(), r())]
    if k == 24: return ["szext.%s%s %s, %s, %s;" % (rng.choice(["wrap", "clamp"]), it, r(), r(), r())]
    if k == 25: return ["bmsk.%s.b32 %s, %s, %s;" % (rng.choice(["wrap", "clamp"]), r(), r(), r())]
    return ["slct.b32.s32 %s, %s, %s, %s;" % (r(), r(), r(), r())]


def int64(rng):
    r, d = (lambda: rng.choice(R)), (lambda: rng.choice(D))
    it = rng.choice([".u64", ".s64"])
    k = rng.randrange(14)
    if k == 0: return ["%s%s %s, %s, %s;" % (rng.choice(["add", "sub"]), it, d(), d(), d())]
    if k == 1: return ["mul.%s%s %s, %s, %s;" % (rng.choice(["lo", "hi"]), it, d(), d(), d())]
    if k == 2: return ["mad.%s%s %s, %s, %s, %s;" % (rng.choice(["lo", "hi"]), it, d(), d(), d(), d())]
    if k == 3: return ["mul.wide%s %s, %s, %s;" % (rng.choice([".u32", ".s32"]), d(), r(), r())]
    if k == 4: return ["%s%s %s, %s, %s;" % (rng.choice(["min", "max"]), it, d(), d(), d())]
    if k == 5: return ["%s.b64 %s, %s, %s;" % (rng.choice(["and", "or", "xor"]), d(), d(), d())]
    if k == 6: return [rng.choice(["shl.b64", "shr.b64", "shr.s64", "shr.u64"]) + " %s, %s, %s;" % (d(), d(), r())]
    if k == 7: return ["%s.b64 %s, %s;" % (rng.choice(["popc", "clz"]), r(), d()), "brev.b64 %s, %s;" % (d(), d())]
    if k == 8: return ["cvt%s %s, %s;" % (rng.choice([".u64.u32", ".s64.s32", ".u64.s32", ".s64.u32"]), d(), r()),
                       "cvt.u32.u64 %s, %s;" % (r(), d())]
    if k == 9:  # division by a nonzero divisor (positive for the signed forms: no INT64_MIN / -1)
        return ["and.b64 %%rd12, %s, 9223372036854775807;" % d(), "or.b64 %rd12, %rd12, 3;",
                "%s%s %s, %s, %%rd12;" % (rng.choice(["div", "rem"]), it, d(), d())]
    if k == 10: return ["bfe%s %s, %s, %s, %s;" % (it, d(), d(), r(), r())]
    if k == 11: return ["add.cc.u64 %s, %s, %s;" % (d(), d(), d()), "addc.u64 %s, %s, %s;" % (d(), d(), d())] \
        if rng.random() < 0.5 else ["sub.cc.u64 %s, %s, %s;" % (d(), d(), d()), "subc.u64 %s, %s, %s;" % (d(), d(), d())]
    if k == 12: return ["setp%s%s %%p1, %s, %s;" % (rng.choice(CMP_I[:6]) if it == ".s64" else rng.choice(CMP_I), it, d(), d()),
                        "selp.b64 %s, %s, %s, %%p1;" % (d(), d(), d())]
    return ["mov.b64 {%s, %s}, %s;" % (r(), r(), d())] if rng.random() < 0.5 else ["mov.b64 %s, {%s, %s};" % (d(), r(), r())]


def f32(rng):
    r, f = (lambda: rng.choice(R)), (lambda: rng.choice(F))
    rnd, ftz, sat = rng.choice(ROUND), rng.choice(["", ".ftz"]), rng.choice(["", "", ".sat"])
    k = rng.randrange(14)
    if k == 0: return ["%s%s%s%s.f32 %s, %s, %s;" % (rng.choice(["add", "sub", "mul"]), rnd, ftz, sat, f(), f(), f())]
    if k == 1: return ["%s%s%s%s.f32 %s, %s, %s, %s;" % (rng.choice(["fma", "mad"]), rnd, ftz, sat, f(), f(), f(), f())]
    if k == 2: return ["%s%s%s.f32 %s, %s, %s;" % (rng.choice(["min", "max"]), ftz, rng.choice(["", ".NaN"]), f(), f(), f())]
    if k == 3: return ["%s%s.f32 %s, %s;" % (rng.choice(["abs", "neg"]), ftz, f(), f())]
    if k == 4: return ["div%s%s.f32 %s, %s, %s;" % (rnd, ftz, f(), f(), f())]
    if k == 5: return ["%s%s%s.f32 %s, %s;" % (rng.choice(["sqrt", "rcp"]), rnd, ftz, f(), f())]
    if k == 6: return ["cvt%s%s.sat.%s.f32 %s, %s;" % (rng.choice(IROUND), ftz, rng.choice(["s32", "u32"]), r(), f())]
    if k == 7: return ["cvt%s.f32.%s %s, %s;" % (rnd, rng.choice(["s32", "u32"]), f(), r())]
    if k == 8: return ["setp%s%s.f32 %%p1, %s, %s;" % (rng.choice(CMP_F), ftz, f(), f()), "selp.b32 %s, %s, %s, %%p1;" % (r(), r(), r())]
    if k == 9: return ["testp.%s.f32 %%p1, %s;" % (rng.choice(["finite", "infinite", "number", "notanumber", "normal", "subnormal"]), f()),
                       "selp.b32 %s, %s, %s, %%p1;" % (r(), r(), r())]
    if k == 10: return ["cvt%s%s%s.f32.f32 %s, %s;" % (rng.choice(IROUND), ftz, sat, f(), f())]
    if k == 11: return ["copysign.f32 %s, %s, %s;" % (f(), f(), f())]
    if k == 12: return ["mov.b32 %s, %s;" % (f(), r())]  # fresh float bits (NaNs, subnormals, infinities)
    return ["mov.b32 %s, %s;" % (r(), f())]


def f64(rng):
    r, f, d, fd = (lambda: rng.choice(R)), (lambda: rng.choice(F)), (lambda: rng.choice(D)), (lambda: rng.choice(FD))
    rnd = rng.choice(ROUND)
    k = rng.randrange(13)
    if k == 0: return ["%s%s.f64 %s, %s, %s;" % (rng.choice(["add", "sub", "mul"]), rnd, fd(), fd(), fd())]
    if k == 1: return ["fma%s.f64 %s, %s, %s, %s;" % (rnd, fd(), fd(), fd(), fd())]
    if k == 2: return ["div%s.f64 %s, %s, %s;" % (rnd, fd(), fd(), fd())]
    if k == 3: return ["%s%s.f64 %s, %s;" % (rng.choice(["sqrt", "rcp"]), rnd, fd(), fd())]
    if k == 4: return ["%s.f64 %s, %s, %s;" % (rng.choice(["min", "max"]), fd(), fd(), fd())]
    if k == 5: return ["%s.f64 %s, %s;" % (rng.choice(["abs", "neg"]), fd(), fd())]
    if k == 6: return ["cvt%s%s.f32.f64 %s, %s;" % (rnd, rng.choice(["", ".ftz"]), f(), fd())]
    if k == 7: return ["cvt%s.f64.f32 %s, %s;" % (rng.choice(["", ".ftz"]), fd(), f())]
    if k == 8: return ["cvt%s.%s.f64 %s, %s;" % (rng.choice(IROUND), rng.choice(["s32", "u32"]), r(), fd())] if rng.random() < 0.5 \
        else ["cvt%s.%s.f64 %s, %s;" % (rng.choice(IROUND), rng.choice(["s64", "u64"]), d(), fd())]
    if k == 9: return ["cvt%s.f64.%s %s, %s;" % (rnd, rng.choice(["s64", "u64"]), fd(), d())]
    if k == 10: return ["setp%s.f64 %%p1, %s, %s;" % (rng.choice(CMP_F), fd(), fd()), "selp.b32 %s, %s, %s, %%p1;" % (r(), r(), r())]
    if k == 11: return ["cvt%s.f64.f64 %s, %s;" % (rng.choice(IROUND), fd(), fd())]
    return ["mov.b64 %s, %s;" % (fd(), d())] if rng.random() < 0.6 else ["mov.b64 %s, %s;" % (d(), fd())]


def f16(rng):
    r, f, h = (lambda: rng.choice(R)), (lambda: rng.choice(F)), (lambda: rng.choice(H))
    ftz, sat = rng.choice(["", ".ftz"]), rng.choice(["", "", ".sat"])
    k = rng.randrange(10)
    if k == 0: return ["%s.rn%s%s.f16 %s, %s, %s;" % (rng.choice(["add", "sub", "mul"]), ftz, sat, h(), h(), h())]
    if k == 1: return ["fma.rn%s%s.f16 %s, %s, %s, %s;" % (ftz, sat, h(), h(), h(), h())] if rng.random() < 0.7 \
        else ["fma.rn.relu.f16 %s, %s, %s, %s;" % (h(), h(), h(), h())]
    if k == 2: return ["%s%s%s.f16 %s, %s, %s;" % (rng.choice(["min", "max"]), ftz, rng.choice(["", ".NaN"]), h(), h(), h())]
    if k == 3: return ["%s%s.f16 %s, %s;" % (rng.choice(["abs", "neg"]), ftz, h(), h())]
    if k == 4: return ["cvt%s.f16.f32 %s, %s;" % (rng.choice([".rn", ".rz"]), h(), f())]
    if k == 5: return ["cvt.f32.f16 %s, %s;" % (f(), h())]
    if k == 6: return ["%s.rn%s%s.f16x2 %s, %s, %s;" % (rng.choice(["add", "sub", "mul"]), ftz, sat, r(), r(), r())]
    if k == 7: return ["setp%s%s.f16 %%p1, %s, %s;" % (rng.choice(CMP_F), ftz, h(), h()), "selp.b32 %s, %s, %s, %%p1;" % (r(), r(), r())]
    if k == 8: return ["cvt.rn%s.bf16.f32 %s, %s;" % (rng.choice(["", ".relu"]), h(), f())] if rng.random() < 0.5 \
        else ["cvt.rn%s.bf16x2.f32 %s, %s, %s;" % (rng.choice(["", ".relu"]), r(), f(), f())]
    return ["mov.b32 {%s, %s}, %s;" % (H[0], H[1], r())] if rng.random() < 0.5 else ["mov.b32 %s, {%s, %s};" % (r(), h(), h())]


def scalar(rng):
    """Instructions with no warp or memory effect, any of which may be predicated."""
    kind = rng.random()
    lines = int32(rng) if kind < 0.40 else int64(rng) if kind < 0.55 else f32(rng) if kind < 0.78 else f64(rng) if kind < 0.90 else f16(rng)
    if rng.random() < 0.12 and not any("%p1" in l or ".cc" in l or "addc" in l or "subc" in l for l in lines):
        guard = rng.choice(["@%p1 ", "@!%p1 ", "@%p2 ", "@!%p2 "])
        lines = [guard + l for l in lines]
    return lines


class Kernel:
    def __init__(self, rng):
        self.rng = rng
        self.labels = 0

    def label(self, what):
        self.labels += 1
        return "%s_%d" % (what, self.labels)

    def compare(self):
        """%p2 from data: a comparison, or one bit of a register."""
        rng = self.rng
        a, b = rng.choice(R), rng.choice(R)
        if rng.random() < 0.7:
            return ["setp%s.u32 %%p2, %s, %s;" % (rng.choice(CMP_I), a, b)]
        return ["and.b32 %%r8, %s, %d;" % (a, rng.choice([1, 2, 3, 16, 0x80000000])), "setp.ne.u32 %p2, %r8, 0;"]

    def body(self, n):
        out = []
        for _ in range(n):
            out += scalar(self.rng)
        return out

    def branch(self):
        """if/else on data (lanes diverge)."""
        rng = self.rng
        then, done = self.label("THEN"), self.label("ENDIF")
        lines = self.compare() + ["@%%p2 bra %s;" % then] + self.body(rng.randint(1, 4)) + \
            ["bra %s;" % done, "%s:" % then] + self.body(rng.randint(1, 4)) + ["%s:" % done]
        return lines

    def loop(self):
        """1 to 8 trips, the count from data (lanes leave at different trips)."""
        rng = self.rng
        top = self.label("LOOP")
        return ["and.b32 %%r11, %s, 7;" % rng.choice(R), "add.u32 %r11, %r11, 1;", "%s:" % top] + self.body(rng.randint(1, 3)) + \
            ["sub.u32 %r11, %r11, 1;", "setp.ne.u32 %p3, %r11, 0;", "@%%p3 bra %s;" % top]

    def shuffle_full(self):
        rng = self.rng
        r = lambda: rng.choice(R)
        mode = rng.choice(["up", "down", "bfly", "idx"])
        b = r() if rng.random() < 0.5 else str(rng.randrange(32))
        c = r() if rng.random() < 0.3 else str(rng.choice([0, 0x1f, 0x1f, 0x1e1f, 0x181f, 0x1c00, 0x1007]) if mode != "up" else rng.choice([0, 0, 0x1800, 0x1c00]))
        dst = r() + ("|%p1" if rng.random() < 0.4 else "")
        src = r() if rng.random() < 0.8 else rng.choice(F)
        return ["shfl.sync.%s.b32 %s, %s, %s, %s, -1;" % (mode, dst, src, b, c)]

    def group(self):
        """A sub-warp group: the lanes that run the collective are exactly its mask."""
        rng = self.rng
        skip = self.label("SKIP")
        kind = rng.randrange(3)
        if kind == 0:
            k = rng.choice([1, 2, 4, 8, 16])
            mask, enter = (1 << k) - 1, ["setp.lt.u32 %%p3, %%r10, %d;" % k]
            width = k  # shuffles stay inside lanes [0, k)
        elif kind == 1:
            parity = rng.randrange(2)
            mask = 0x55555555 if parity == 0 else 0xAAAAAAAA
            enter = ["and.b32 %r11, %r10, 1;", "setp.eq.u32 %%p3, %%r11, %d;" % parity]
            width = None  # shuffles keep the lane's parity
        else:  # the lanes whose data predicate holds; the mask is their ballot
            a = rng.choice(R)
            enter = ["and.b32 %%r11, %s, %d;" % (a, rng.choice([1, 4, 0x100, 0x80000000])), "setp.ne.u32 %p3, %r11, 0;",
                     "vote.sync.ballot.b32 %r11, %p3, -1;"]
            mask, width = "%r11", 0
        m = mask if isinstance(mask, str) else str(mask)
        r = lambda: rng.choice(R)
        ops = []
        for _ in range(rng.randint(1, 3)):
            op = rng.randrange(6 if width != 0 else 4)
            if op == 0:
                ops.append("vote.sync.%s.pred %%p1, %%p2, %s;" % (rng.choice(["all", "any", "uni"]), m))
                ops.append("selp.b32 %s, %s, %s, %%p1;" % (r(), r(), r()))
            elif op == 1:
                ops.append("vote.sync.ballot.b32 %s, %s%%p2, %s;" % (r(), rng.choice(["", "!"]), m))
            elif op == 2:
                ops.append("redux.sync.%s %s, %s, %s;" % (rng.choice(["add.u32", "add.s32", "min.u32", "min.s32", "max.u32",
                                                                     "max.s32", "and.b32", "or.b32", "xor.b32"]), r(), r(), m))
            elif op == 3:
                ops.append("match.any.sync.b32 %s, %s, %s;" % (r(), r(), m) if rng.random() < 0.6 else
                           "match.all.sync.b32 %s|%%p1, %s, %s;" % (r(), r(), m))
            elif width is None:  # even or odd lanes: an even butterfly or index stays in the group
                if op == 4:
                    ops.append("shfl.sync.bfly.b32 %s, %s, %d, 31, %s;" % (r(), r(), rng.choice([2, 4, 6, 8, 16, 30]), m))
                else:
                    ops += ["and.b32 %%r8, %s, 30;" % r(), "or.b32 %r8, %r8, %r11;",
                            "shfl.sync.idx.b32 %s, %s, %%r8, 31, %s;" % (r(), r(), m)]
            elif op == 4:
                ops.append("shfl.sync.bfly.b32 %s, %s, %d, 31, %s;" % (r(), r(), rng.randrange(width), m))
            else:
                ops += ["and.b32 %%r8, %s, %d;" % (r(), width - 1), "shfl.sync.idx.b32 %s, %s, %%r8, 31, %s;" % (r(), r(), m)]
        return enter + ["@!%%p3 bra %s;" % skip] + ops + ["%s:" % skip]

    def shared(self):
        """Every thread stores, bar.sync, reads another thread's word (the other warp too), bar.sync."""
        rng = self.rng
        r = lambda: rng.choice(R)
        at = lambda index: ["mul.wide.u32 %%rd12, %s, 4;" % index, "mov.u64 %rd13, sm;", "add.s64 %rd13, %rd13, %rd12;"]
        lines = at("%r9") + ["st.shared.u32 [%%rd13], %s;" % r(), "bar.sync 0;"]
        if rng.random() < 0.4:  # an order-independent reduction into a few words, after the stores
            lines += ["and.b32 %%r11, %s, 3;" % r()] + at("%r11") + \
                     ["red.shared.%s [%%rd13], %s;" % (rng.choice(["add.u32", "and.b32", "or.b32", "xor.b32", "min.u32", "max.s32"]), r()),
                      "bar.sync 0;"]
        lines += ["add.u32 %%r8, %%r9, %d;" % rng.randrange(1, 64), "and.b32 %r8, %r8, 63;"] + at("%r8") + \
                 ["ld.shared.u32 %s, [%%rd13];" % r(), "bar.sync 0;"]
        return lines

    def local(self):
        rng = self.rng
        r = lambda: rng.choice(R)
        return ["and.b32 %%r8, %s, 15;" % r(), "mul.wide.u32 %rd12, %r8, 4;", "mov.u64 %rd13, lm;", "add.s64 %rd13, %rd13, %rd12;",
                "st.local.u32 [%%rd13], %s;" % r(), "and.b32 %%r8, %s, 15;" % r(), "mul.wide.u32 %rd12, %r8, 4;",
                "mov.u64 %rd13, lm;", "add.s64 %rd13, %rd13, %rd12;", "ld.local.u32 %s, [%%rd13];" % r()]

    def item(self):
        x = self.rng.random()
        if x < 0.70: return scalar(self.rng)
        if x < 0.78: return self.branch()
        if x < 0.82: return self.loop()
        if x < 0.88: return self.shuffle_full()
        if x < 0.94: return self.group()
        if x < 0.97: return self.shared()
        return self.local()


def kernel(rng, n):
    k = Kernel(rng)
    body = []
    for _ in range(n):
        body += k.item()
    lines = [".version 7.8", ".target sm_80", ".address_size 64", "",
             "// a random kernel of tools/gpu-check/fuzz_ptx.py: compared bit for bit with NVIDIA's execution",
             ".visible .entry k(.param .u64 k_a, .param .u64 k_b, .param .u64 k_c, .param .u64 k_out)", "{",
             "\t.reg .pred %p<4>;", "\t.reg .b32 %r<12>;", "\t.reg .f32 %f<4>;", "\t.reg .b64 %rd<14>;",
             "\t.reg .f64 %fd<2>;", "\t.reg .b16 %h<2>;",
             "\t.shared .align 8 .b8 sm[256];", "\t.local .align 8 .b8 lm[64];",
             "\tmov.u32 %r9, %tid.x;", "\tmov.u32 %r10, %laneid;", "\tmul.wide.u32 %rd6, %r9, 8;",
             "\tld.param.u64 %rd1, [k_a];", "\tadd.s64 %rd1, %rd1, %rd6;", "\tld.global.v2.u32 {%r0, %r1}, [%rd1];",
             "\tld.param.u64 %rd2, [k_b];", "\tadd.s64 %rd2, %rd2, %rd6;", "\tld.global.v2.u32 {%r2, %r3}, [%rd2];",
             "\txor.b32 %r4, %r0, %r3;", "\tmov.u32 %r5, -2147483648;", "\tadd.u32 %r6, %r1, %r2;", "\tsub.u32 %r7, %r2, %r0;",
             "\tmov.b32 %f0, %r0;", "\tmov.b32 %f1, %r1;", "\tmov.b32 %f2, %r2;", "\tmov.b32 %f3, %r3;",
             "\tld.param.u64 %rd3, [k_c];", "\tadd.s64 %rd3, %rd3, %rd6;", "\tld.global.u64 %rd11, [%rd3];",
             "\tmov.b64 %rd10, {%r0, %r1};", "\tmov.b64 %fd0, %rd11;", "\tmov.b64 %fd1, {%r2, %r3};",
             "\tmov.b64 {%r8, %r11}, %rd11;", "\tmov.b32 {%h0, %h1}, %r11;",
             "\tsetp.lt.u32 %p1, %r0, %r1;", "\tsetp.ne.u32 %p2, %r4, 0;",
             "\tst.local.v2.u32 [lm], {%r0, %r1};", "\tst.local.v2.u32 [lm+8], {%r2, %r3};", "\tst.local.v2.u32 [lm+16], {%r4, %r5};",
             "\tst.local.v2.u32 [lm+24], {%r6, %r7};", "\tst.local.v2.u32 [lm+32], {%r3, %r2};", "\tst.local.v2.u32 [lm+40], {%r1, %r0};",
             "\tst.local.v2.u32 [lm+48], {%r9, %r10};", "\tst.local.v2.u32 [lm+56], {%r5, %r4};"]
    lines += [l if l.endswith(":") else "\t" + l for l in body]
    lines += ["\tld.param.u64 %rd5, [k_out];", "\tmul.wide.u32 %%rd6, %%r9, %d;" % (4 * WORDS), "\tadd.s64 %rd5, %rd5, %rd6;"]
    for i, reg in enumerate(R + F):
        lines.append("\tst.global.b32 [%%rd5+%d], %s;" % (4 * i, reg))
    lines += ["\tst.global.b64 [%rd5+48], %rd10;", "\tst.global.b64 [%rd5+56], %rd11;", "\tst.global.f64 [%rd5+64], %fd0;",
              "\tst.global.f64 [%rd5+72], %fd1;", "\tmov.b32 %r8, {%h0, %h1};", "\tst.global.b32 [%rd5+80], %r8;",
              "\tselp.u32 %r8, 1, 0, %p1;", "\tselp.u32 %r11, 2, 0, %p2;", "\tor.b32 %r8, %r8, %r11;", "\tst.global.b32 [%rd5+84], %r8;",
              "\tret;", "}"]
    return "\n".join(lines) + "\n"


def write_test(d, rng):
    with open(os.path.join(d, "test.txt"), "w") as f:
        f.write("kernel k\ngrid 1 1 1\nblock %d 1 1\n" % THREADS)
        f.write("buffer a u32 %d special %d\n" % (2 * THREADS, rng.randrange(1 << 30)))
        f.write("buffer b u32 %d random %d\n" % (2 * THREADS, rng.randrange(1 << 30)))
        f.write("buffer c u64 %d special %d\n" % (THREADS, rng.randrange(1 << 30)))
        f.write("buffer out u32 %d fill ee\n" % (WORDS * THREADS))
        f.write("param buffer a\nparam buffer b\nparam buffer c\nparam buffer out\noutput out\n")


def write(out, seed, k):
    rng = random.Random(seed * 100003 + k)
    d = os.path.join(out, "fuzz_%d_%05d" % (seed, k))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "kernel.ptx"), "w") as f:
        f.write(kernel(rng, 40))
    write_test(d, rng)


def main():
    out, count = sys.argv[1], int(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    first = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    for k in range(first, first + count):
        write(out, seed, k)
    print("fuzz_ptx: %d kernels in %s" % (count, out))


if __name__ == "__main__":
    main()
