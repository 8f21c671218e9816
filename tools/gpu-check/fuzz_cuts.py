#!/usr/bin/env python3
"""Narrows a differential-corpus mismatch down to the instructions that cause it: for each fuzz_ptx.py kernel given,
writes one variant per point of its body that no branch region spans (outside every if/else, loop and skipped
block), which jumps from that point straight to the kernel's epilogue (every register is stored as it is there).
Run the variants natively and through ZLUDA-J; the first cut whose outputs differ follows the culprit, which lies
between it and the cut before (fuzz_cuts.py first NATIVE_OUTPUT OURS_OUTPUT prints that per kernel).

  fuzz_cuts.py make OUT_DIR KERNEL_DIR...
  fuzz_cuts.py first NATIVE_OUTPUT OURS_OUTPUT"""
import os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz_corpus


def cuts(lines):
    """Line indexes after which the body can jump to the epilogue: the prologue done, no branch region open."""
    start = max(i for i, l in enumerate(lines) if 'st.local.v2.u32 [lm+' in l) + 1
    end = next(i for i, l in enumerate(lines) if 'ld.param.u64 %rd5, [k_out]' in l)
    labels = {l.strip()[:-1]: i for i, l in enumerate(lines) if re.match(r'^[A-Z_0-9]+:$', l.strip())}
    spans = []  # (first, last) line of every region a branch makes
    for i, l in enumerate(lines):
        m = re.search(r'\bbra(?:\.uni)?\s+([A-Z_0-9]+);', l)
        if m and m.group(1) in labels:
            j = labels[m.group(1)]
            spans.append((min(i, j), max(i, j)))
    return [i for i in range(start, end) if not any(a <= i < b for a, b in spans)], end


def make(out, kernels):
    for k in kernels:
        name = os.path.basename(k.rstrip('/'))
        lines = open(os.path.join(k, 'kernel.ptx')).read().split('\n')
        points, end = cuts(lines)
        for i in points:
            v = lines[:i + 1] + ['\tbra.uni ZCUT;'] + lines[i + 1:end] + ['ZCUT:'] + lines[end:]
            d = os.path.join(out, '%s_c%04d' % (name, i + 1))
            os.makedirs(d, exist_ok=True)
            open(os.path.join(d, 'kernel.ptx'), 'w').write('\n'.join(v))
            open(os.path.join(d, 'test.txt'), 'w').write(open(os.path.join(k, 'test.txt')).read())


def first(native, ours):
    a, b = fuzz_corpus.blocks([native]), fuzz_corpus.blocks([ours])
    by_kernel = {}
    for n in sorted(a):
        kernel, cut = n.rsplit('_c', 1)
        by_kernel.setdefault(kernel, []).append((int(cut), n))
    for kernel, variants in sorted(by_kernel.items()):
        prev = None
        for cut, n in variants:
            why = 'no output' if n not in b else (None if a[n] == b[n] else fuzz_corpus.nan_only(a[n], b[n]))
            if why is not None:
                print('%s: right up to line %s, wrong after line %d (%s)' % (kernel, prev or 'the prologue', cut, why))
                break
            prev = cut
        else:
            print('%s: every cut right' % kernel)


if __name__ == '__main__':
    if len(sys.argv) > 3 and sys.argv[1] == 'make':
        make(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 4 and sys.argv[1] == 'first':
        first(sys.argv[2], sys.argv[3])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
