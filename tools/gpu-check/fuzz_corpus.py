#!/usr/bin/env python3
"""The differential corpus (issue 19): NVIDIA's results for fuzz_ptx.py's random kernels, kept in the repo.

  fuzz_corpus.py record KDIR OUT.tsv.gz VALUES.txt.gz VALUES_COUNT PTXRUN_OUTPUT...
      from ptxrun's output of the kernels in KDIR (run natively on an NVIDIA GPU): one line per kernel
      "name<TAB>kernel digest<TAB>output digest" (digests: the first 16 hex digits of SHA-256; the kernel digest covers
      kernel.ptx and test.txt, so a changed generator is noticed), and ptxrun's whole output of the first VALUES_COUNT
      kernels (to show which word differs)
  fuzz_corpus.py check CORPUS.tsv.gz VALUES.txt.gz KDIR PTXRUN_OUTPUT...
      compares another run (ZLUDA-J on any backend) with the corpus; prints "fuzz corpus: N of M match" and each
      mismatch (with the first differing words where the values are kept); exit status 1 on any mismatch or missing
      kernel, 2 where a kernel differs from the recorded one (the generator changed: record the corpus again)
  fuzz_corpus.py classify NVIDIA_OUTPUT OURS_OUTPUT [KEEP]   (KEEP: both outputs of each non-NaN difference)
      two runs of the same kernels: equal bit for bit, different only where both words are NaNs (payload, sign), or
      different otherwise (each listed)
  fuzz_corpus.py sweep OUT TAG SUFFIX PTXRUN_OUTPUT...
      for a sweep with another seed (fuzz_ptx.py DIR COUNT SEED), run natively where the outputs are too large to
      bring back: appends "name TAG digest" per block to OUT, and writes to OUT.TAG.xz the blocks of every kernel K
      whose K+SUFFIX (e.g. _ours: our NVPTX of K run natively in the same run) differs from K, with K and K+SUFFIX;
      the digests then compare a host run with NVIDIA's (docs/gpu-check.md)
"""
import gzip
import hashlib
import os
import sys


def digest(data):
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()[:16]


def blocks(paths):
    """ptxrun output: name -> the lines of its block (a later block of the same name replaces an earlier one)."""
    found, name, lines = {}, None, []
    for path in paths:
        with (gzip.open(path, "rt", errors="replace") if path.endswith(".gz") else open(path, errors="replace")) as f:
            for line in f:
                line = line.rstrip("\n")
                if line.startswith("== "):
                    if name is not None: found[name] = lines
                    name, lines = os.path.basename(line[3:].rstrip("/")), []
                elif name is not None:
                    lines.append(line)
    if name is not None: found[name] = lines
    return found


def kernel_digest(kdir, name):
    with open(os.path.join(kdir, name, "kernel.ptx"), "rb") as a, open(os.path.join(kdir, name, "test.txt"), "rb") as b:
        return digest(a.read() + b"\0" + b.read())


def record(kdir, out, values, count, outputs):
    got = blocks(outputs)
    names = sorted(d for d in os.listdir(kdir) if os.path.isfile(os.path.join(kdir, d, "kernel.ptx")))
    missing = [n for n in names if n not in got]
    with gzip.open(out, "wt") as f:
        for n in names:
            if n in got: f.write("%s\t%s\t%s\n" % (n, kernel_digest(kdir, n), digest("\n".join(got[n]))))
    with gzip.open(values, "wt") as f:
        for n in names[:count]:
            if n in got: f.write("== %s\n%s\n" % (n, "\n".join(got[n])))
    errors = sum(1 for n in names if n in got and any(l.startswith("ERROR") for l in got[n]))
    print("fuzz corpus: %d kernels recorded (%d with an ERROR line), %d missing, values of the first %d" % (
        len(names) - len(missing), errors, len(missing), count))
    return 0


def check(corpus, values, kdir, outputs):
    want = {}
    with gzip.open(corpus, "rt") as f:
        for line in f:
            n, k, o = line.split()
            want[n] = (k, o)
    kept = blocks([values]) if values and os.path.exists(values) else {}
    got = blocks(outputs)
    names = sorted(d for d in os.listdir(kdir) if os.path.isfile(os.path.join(kdir, d, "kernel.ptx")))
    changed = [n for n in names if n in want and kernel_digest(kdir, n) != want[n][0]]
    if changed:
        print("fuzz corpus: %d kernels differ from the recorded ones (first %s): the generator changed; record the corpus again"
              % (len(changed), changed[0]))
        return 2
    ok, bad = 0, []
    for n in names:
        if n not in want: continue
        if n in got and digest("\n".join(got[n])) == want[n][1]:
            ok += 1
        else:
            bad.append(n)
    print("fuzz corpus: %d of %d match" % (ok, len([n for n in names if n in want])))
    for n in bad[:50]:
        if n not in got:
            print("  %s: no output" % n)
            continue
        ours = got[n]
        err = [l for l in ours if l.startswith("ERROR")]
        if n in kept:
            ref = kept[n]
            diff = [(i, a, b) for i, (a, b) in enumerate(zip(ref, ours)) if a != b]
            words = ", ".join("line %d: NVIDIA %s, ours %s" % d for d in diff[:4])
            print("  %s: %d lines differ (%s)%s" % (n, len(diff) + abs(len(ref) - len(ours)), words, (" " + err[0]) if err else ""))
        else:
            print("  %s: output differs%s" % (n, (" " + err[0]) if err else ""))
    if len(bad) > 50: print("  ... and %d more" % (len(bad) - 50))
    if bad: print("differing: " + " ".join(bad))
    return 1 if bad else 0


def diff(index, first, second):
    """Two runs of the same kernels (NVIDIA's, ours): the kernels whose outputs differ, with their form."""
    forms = dict(l.rstrip("\n").split("\t", 1) for l in open(index) if "\t" in l)
    a, b = blocks([first]), blocks([second])
    bad = [n for n in sorted(a) if a[n] != b.get(n)]
    print("forms: %d of %d match" % (len(a) - len(bad), len(a)))
    for n in bad:
        ours = b.get(n, [])
        d = [(i, x, y) for i, (x, y) in enumerate(zip(a[n], ours)) if x != y]
        print("  %s %s: %d differ (%s) %s" % (n, forms.get(n, "?"), len(d) + abs(len(a[n]) - len(ours)),
                                            ", ".join("word %d: %s vs %s" % (i - 1, x, y) for i, x, y in d[:3]),
                                            next((l for l in ours if l.startswith("ERROR")), "")))
    return 0


def nan_only(want, got):
    """None when two outputs (ptxrun blocks of 32-bit words) differ only where both words are NaNs: as f32, as both
    f16 halves (or equal halves), or as an f64 stored at an even word; else the first other difference (the
    tolerance FuzzCorpusTest states for host-differences.txt's "nan" kernels)."""
    nan32 = lambda w: (w & 0x7f800000) == 0x7f800000 and (w & 0x7fffff) != 0
    nan16 = lambda h: (h & 0x7c00) == 0x7c00 and (h & 0x3ff) != 0
    nan64 = lambda hi, lo: (hi & 0x7ff00000) == 0x7ff00000 and ((hi & 0xfffff) | lo) != 0
    if len(want) != len(got):
        return "line count %d against %d" % (len(want), len(got))
    for k in range(1, len(want)):
        if want[k] == got[k]:
            continue
        try:
            x, y = int(want[k], 16), int(got[k], 16)
        except ValueError:
            return "line %d: NVIDIA %s, ours %s" % (k, want[k], got[k])
        if nan32(x) and nan32(y):
            continue
        if all(((x >> s) & 0xffff) == ((y >> s) & 0xffff) or (nan16((x >> s) & 0xffff) and nan16((y >> s) & 0xffff)) for s in (0, 16)):
            continue
        if (k - 1) % 2 == 0 and k + 1 < len(want):
            try:
                if nan64(int(want[k + 1], 16), x) and nan64(int(got[k + 1], 16), y):
                    continue
            except ValueError:
                pass
        return "line %d: NVIDIA %s, ours %s" % (k, want[k], got[k])
    return None


def classify(first, second, keep=None):
    """NVIDIA's run and ours of the same kernels: how many are equal bit for bit, how many differ only in NaN payloads
    or signs (nan_only, named on one line), and the others with their first difference; keep: a file that receives
    both outputs of every other difference (native first, then ours, as ptxrun blocks)."""
    a, b = blocks([first]), blocks([second])
    exact, nan, other = 0, [], []
    for n in sorted(a):
        if n not in b:
            other.append("%s: no output" % n)
        elif a[n] == b[n]:
            exact += 1
        else:
            why = nan_only(a[n], b[n])
            if why is None:
                nan.append(n)
            else:
                other.append("%s: %s" % (n, why))
    print("kernels: %d; equal bit for bit %d; only NaN payloads or signs differ %d; other differences %d"
          % (len(a), exact, len(nan), len(other)))
    for o in other:
        print("  " + o)
    print("NaN-only: " + " ".join(nan))
    if keep:
        with open(keep, "w") as f:
            for o in other:
                n = o.split(":")[0]
                for side in (a, b):
                    f.write("== %s\n" % n)
                    f.write("".join(line + "\n" for line in side.get(n, [])))
    return 0


def sweep(out, tag, suffix, outputs):
    import lzma
    found = blocks(outputs)
    with open(out, "a") as f:
        for n in sorted(found):
            f.write("%s %s %s\n" % (n, tag, digest("\n".join(found[n]))))
    with lzma.open("%s.%s.xz" % (out, tag), "wt") as g:
        for n in sorted(found):
            if n.endswith(suffix) or found.get(n + suffix, found[n]) == found[n]:
                continue
            for k in (n, n + suffix):
                g.write("== %s\n" % k)
                g.write("".join(line + "\n" for line in found[k]))
    return 0


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "diff":
        return diff(sys.argv[2], sys.argv[3], sys.argv[4])
    if len(sys.argv) in (4, 5) and sys.argv[1] == "classify":
        return classify(*sys.argv[2:])
    if len(sys.argv) > 5 and sys.argv[1] == "sweep":
        return sweep(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    if len(sys.argv) > 5 and sys.argv[1] == "record":
        return record(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6:])
    if len(sys.argv) > 5 and sys.argv[1] == "check":
        return check(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
