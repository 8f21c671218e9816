#!/usr/bin/env python3
"""One kernel per instruction form of fuzz_ptx.py (issue 19): the fuzzer's items are drawn many times, each is
normalized (registers and immediates replaced by their class) and the first item of every distinct form becomes a
kernel with the fuzzer's prologue (the same edge values and random words per thread) and epilogue (every register
stored). Recorded on NVIDIA's GPU, a mismatch names the form that is wrong, where a random kernel of forty items
only says that something is.
Usage: forms_ptx.py OUT_DIR [DRAWS [VARIANTS]]   (folders form_NNNNN; OUT_DIR/forms.txt lists each folder's form;
VARIANTS > 1 adds each form again with its registers rotated along their class, so other inputs reach it)"""
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz_ptx  # noqa: E402


def normalize(lines):
    text = "\n".join(l for l in lines if not l.endswith(":"))
    text = re.sub(r"%(rd|fd|r|f|h|p)\d+", r"%\1", text)
    text = re.sub(r"(?<![\w.%])-?\d+", "N", text)
    text = re.sub(r"\b[A-Z]+_N\b", "L", text)
    return text


def rotate(item, v):
    """The item with its registers renamed v steps along their class (%r0-7, %f0-3, %fd0-1, %h0-1, %rd10-11)."""
    if v == 0: return item
    classes = {"r": 8, "f": 4, "fd": 2, "h": 2}

    def sub(m):
        kind, k = m.group(1), int(m.group(2))
        if kind == "rd":
            return "%%rd%d" % (10 + (k - 10 + v) % 2) if k in (10, 11) else m.group(0)
        if kind == "r" and k >= 8: return m.group(0)  # scratch registers keep their roles
        return "%%%s%d" % (kind, (k + v) % classes[kind])
    return [re.sub(r"%(rd|fd|r|f|h)(\d+)\b", sub, l) for l in item]


def main():
    out = sys.argv[1]
    draws = int(sys.argv[2]) if len(sys.argv) > 2 else 300000
    variants = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    rng = random.Random(20261125)
    seen = {}
    k = fuzz_ptx.Kernel(rng)
    makers = [lambda: fuzz_ptx.int32(rng), lambda: fuzz_ptx.int64(rng), lambda: fuzz_ptx.f32(rng), lambda: fuzz_ptx.f64(rng),
              lambda: fuzz_ptx.f16(rng), k.shuffle_full, k.group, k.shared, k.local]
    per_maker = {}
    for i in range(draws):
        m = i % len(makers)
        item = makers[m]()
        form = normalize(item)
        if form not in seen and per_maker.get(m, 0) < (400 if m >= 5 else 10 ** 6):  # groups combine several ops: a sample
            seen[form] = item
            per_maker[m] = per_maker.get(m, 0) + 1
    os.makedirs(out, exist_ok=True)
    index = []
    items = []
    for form, item in sorted(seen.items()):  # each form with its registers, then rotated: other inputs reach it
        for v in range(variants):
            items.append((form + ("" if v == 0 else " [v%d]" % v), rotate(item, v)))
    for n, (form, item) in enumerate(items):
        d = os.path.join(out, "form_%05d" % n)
        os.makedirs(d, exist_ok=True)
        ksrc = fuzz_ptx.kernel(random.Random(n), 0).replace("\tld.param.u64 %rd5, [k_out];",
                                                           "\n".join(l if l.endswith(":") else "\t" + l for l in item) +
                                                           "\n\tld.param.u64 %rd5, [k_out];", 1)
        with open(os.path.join(d, "kernel.ptx"), "w") as f:
            f.write(ksrc)
        fuzz_ptx.write_test(d, random.Random(n))
        index.append("form_%05d\t%s" % (n, form.replace("\n", " | ")))
    with open(os.path.join(out, "forms.txt"), "w") as f:
        f.write("\n".join(index) + "\n")
    print("forms_ptx: %d forms, %d kernels in %s" % (len(seen), len(items), out))


if __name__ == "__main__":
    main()
