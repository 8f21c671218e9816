#!/usr/bin/env python3
"""Differential test of the PTX front end against NVIDIA's ptxas (issue 19: bad input gets NVIDIA's answer).

Mutates the ptx-tests' kernels (a token deleted, duplicated or replaced by another of the same module, after the
module's header), asks NVIDIA's ptxas (-arch=sm_90) and ZLUDA-J (`dist/bin/zluda compile --target sm_90`, one JVM for
all) whether each mutant is valid PTX, and prints how often they agree, then every mutant that one accepts and the
other refuses, with the other's message. A mutant that we accept and ptxas refuses is compiled silently where NVIDIA's
driver answers CUDA_ERROR_INVALID_PTX; one that ptxas accepts and we refuse is a refusal to fix.

    tools/ptxas_accept_diff.py [COUNT] [SEED] [--keep DIR] [--from DIR [--split]]   (needs ptxas on PATH and a built dist/)

ZLUDA_DIST names another distribution than the checkout's dist/ (tools/ptxas_verdicts.py).

--from DIR mutates the .ptx files under DIR instead (e.g. the differential corpus: tools/gpu-check/fuzz_ptx.py DIR N).
--split makes one module per kernel of each file first (its declarations, device functions and that .entry; kernels
over 30,000 characters and files over 400,000 left out): ggml's modules (`zluda extract libggml-cuda.so -o DIR`) are
too large to give to ptxas once per mutant, their kernels are not.
"""
import glob, os, random, re, sys

import ptxas_verdicts

TOKEN = re.compile(r"\.?[A-Za-z_$%][\w$.:]*|0[fFdDxX][0-9a-fA-F]+|\d+|\S")
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


DEFINITION = re.compile(r"(?m)^(?:\.visible |\.weak |\.extern )*\.(entry|func)\b")


def split_kernels(text, limit=30000):
    """One module per .entry of TEXT: every top-level declaration, every .func, then that kernel."""
    items = []
    for m in DEFINITION.finditer(text):
        brace, semi = text.find("{", m.start()), text.find(";", m.start())
        if brace < 0 or 0 <= semi < brace and text.count("(", m.start(), semi) == text.count(")", m.start(), semi):
            items.append((m.start(), semi + 1, "declaration"))
            continue
        depth, k = 0, brace
        while k < len(text):
            depth += {"{": 1, "}": -1}.get(text[k], 0)
            if depth == 0:
                break
            k += 1
        items.append((m.start(), k + 1, m.group(1)))
    rest, prev = "", 0
    for a, b, _ in items:
        rest, prev = rest + text[prev:a], b
    rest += text[prev:]
    functions = "".join(text[a:b] + "\n" for a, b, kind in items if kind != "entry")
    return [rest + functions + text[a:b] + "\n" for a, b, kind in items if kind == "entry" and b - a <= limit]


def mutants(count, seed, base=None, split=False):
    rng = random.Random(seed)
    files = sorted(glob.glob(os.path.join(base, "**/*.ptx"), recursive=True) if base
                   else sorted(glob.glob(os.path.join(root, "ptx-tests/src/test/ptx/*/kernel.ptx"))))
    sources = None
    if split:
        sources = [k for f in files if os.path.getsize(f) <= 400000 for k in split_kernels(open(f).read())]
    out = []
    while len(out) < count:
        src = rng.choice(sources) if sources else open(rng.choice(files)).read()
        start = src.find(".address_size")
        spans = [m.span() for m in TOKEN.finditer(src) if m.start() > start + 20]
        a, b = rng.choice(spans), rng.choice(spans)
        op = rng.randrange(3)
        if op == 0:
            text = src[:a[0]] + src[a[1]:]
        elif op == 1:
            text = src[:a[0]] + src[a[0]:a[1]] + " " + src[a[0]:]
        else:
            text = src[:a[0]] + src[b[0]:b[1]] + src[a[1]:]
        if text != src:
            out.append(text)
    return out


def main():
    args, keep, base = ptxas_verdicts.arguments(sys.argv)
    count = int(args[0]) if args else 500
    seed = int(args[1]) if len(args) > 1 else 1
    if not ptxas_verdicts.available("ptxas_accept_diff"):
        return 0
    d, names = ptxas_verdicts.write(mutants(count, seed, base, "--split" in sys.argv), keep, "ptxas-diff")
    ptxas = ptxas_verdicts.ptxas(names, d)
    ours = ptxas_verdicts.zluda(names)
    both = sum(1 for n in names if ptxas[n][0] and n not in ours)
    neither = sum(1 for n in names if not ptxas[n][0] and n in ours)
    only_ours = [n for n in names if not ptxas[n][0] and n not in ours]
    only_ptxas = [n for n in names if ptxas[n][0] and n in ours]
    print("%d mutants (seed %d): both accept %d, both refuse %d, only ZLUDA-J accepts %d, only ptxas accepts %d"
          % (len(names), seed, both, neither, len(only_ours), len(only_ptxas)))
    for n in only_ours:
        print("  accepted by ZLUDA-J only: %s: ptxas: %s" % (os.path.basename(n), ptxas[n][1]))
    for n in only_ptxas:
        print("  accepted by ptxas only:   %s: ZLUDA-J: %s" % (os.path.basename(n), ours[n]))
    ptxas_verdicts.finish(d, keep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
