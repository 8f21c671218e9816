#!/usr/bin/env python3
"""Differential test of the PTX front end against NVIDIA's ptxas (issue 19: bad input gets NVIDIA's answer).

Mutates the ptx-tests' kernels (a token deleted, duplicated or replaced by another of the same module, after the
module's header), asks NVIDIA's ptxas (-arch=sm_90) and ZLUDA-J (`dist/bin/zluda compile --target sm_90`, one JVM for
all) whether each mutant is valid PTX, and prints how often they agree, then every mutant that one accepts and the
other refuses, with the other's message. A mutant that we accept and ptxas refuses is compiled silently where NVIDIA's
driver answers CUDA_ERROR_INVALID_PTX; one that ptxas accepts and we refuse is a refusal to fix.

    tools/ptxas_accept_diff.py [COUNT] [SEED] [--keep DIR] [--from DIR]   (needs ptxas on PATH and a built dist/)

--from DIR mutates the .ptx files under DIR instead (e.g. the differential corpus: tools/gpu-check/fuzz_ptx.py DIR N).
"""
import glob, os, random, re, shutil, subprocess, sys, tempfile

TOKEN = re.compile(r"\.?[A-Za-z_$%][\w$.:]*|0[fFdDxX][0-9a-fA-F]+|\d+|\S")
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def mutants(count, seed, base=None):
    rng = random.Random(seed)
    files = sorted(glob.glob(os.path.join(base, "**/*.ptx"), recursive=True) if base
                   else glob.glob(os.path.join(root, "ptx-tests/src/test/ptx/*/kernel.ptx")))
    out = []
    while len(out) < count:
        src = open(rng.choice(files)).read()
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
    args = [a for k, a in enumerate(sys.argv[1:], 1) if not a.startswith("--") and sys.argv[k - 1] not in ("--keep", "--from")]
    count = int(args[0]) if args else 500
    seed = int(args[1]) if len(args) > 1 else 1
    keep = sys.argv[sys.argv.index("--keep") + 1] if "--keep" in sys.argv else None
    base = sys.argv[sys.argv.index("--from") + 1] if "--from" in sys.argv else None
    if not shutil.which("ptxas"):
        print("ptxas_accept_diff: ptxas not on PATH (the CUDA toolkit): skipped")
        return 0
    d = keep or tempfile.mkdtemp(prefix="ptxas-diff")
    os.makedirs(d, exist_ok=True)
    names = []
    for k, text in enumerate(mutants(count, seed, base)):
        n = os.path.join(d, "m%05d.ptx" % k)
        open(n, "w").write(text)
        names.append(n)
    ptxas = {}
    for n in names:
        r = subprocess.run(["ptxas", "-arch=sm_90", n, "-o", os.path.join(d, "x.cubin")], capture_output=True, text=True)
        ptxas[n] = (r.returncode == 0, (r.stderr.strip().splitlines() or [""])[0])
    r = subprocess.run([os.path.join(root, "dist/bin/zluda"), "compile", *names, "--target", "sm_90", "--suffix", ".sm"],
                       capture_output=True, text=True)
    ours = {}
    for line in r.stderr.splitlines():
        m = re.match(r"^(\S+\.ptx): (.*)$", line)
        if m and m.group(1) not in ours:
            ours[m.group(1)] = m.group(2)
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
    if not keep:
        shutil.rmtree(d)
    return 0


if __name__ == "__main__":
    sys.exit(main())
