#!/usr/bin/env python3
"""Compares ptxrun output (sections '== DIR') with each test's expected.txt recorded on NVIDIA's driver, with the
tolerances of test.txt. Usage: compare-results.py TESTS_DIR RESULTS_FILE"""
import math, re, struct, sys

def tolerance(tests, name):
    """The output tolerance of a test folder (test.txt: output NAME ulp|abs|rel X), or None."""
    for line in open('%s/%s/test.txt' % (tests, name)):
        f = line.split()
        if f and f[0] == 'output' and len(f) >= 4:
            return f[2], float(f[3])
    return None

def value(t, bits):
    return struct.unpack('<f', struct.pack('<I', bits))[0] if t == 'f32' else struct.unpack('<d', struct.pack('<Q', bits))[0]

def close(t, w, g, tol):
    if w == g:
        return True
    if tol and tol[0] in ('ulp16', 'ulpb16') and t in ('u16', 'u32'):
        # f16 (ulp16) or bf16 (ulpb16) values, two in a u32 word: each within N units in the last place, of the same
        # sign, and a NaN only where NVIDIA's is one (as PtxInstructionTest.close)
        inf = 0x7c00 if tol[0] == 'ulp16' else 0x7f80
        for shift in ((0, 16) if t == 'u32' else (0,)):
            a, b = w >> shift & 0xffff, g >> shift & 0xffff
            if a == b:
                continue
            nan_a, nan_b = (a & 0x7fff) > inf, (b & 0x7fff) > inf
            if nan_a and nan_b:
                continue
            if (a & 0x8000) != (b & 0x8000) or abs(a - b) > tol[1] or nan_a != nan_b:
                return False
        return True
    if t not in ('f32', 'f64'):
        return False
    wv, gv = value(t, w), value(t, g)
    if math.isnan(wv) and math.isnan(gv):
        return True
    if not tol:
        return False
    kind, x = tol
    return (kind == 'ulp' and abs(w - g) <= x) or (kind == 'abs' and abs(wv - gv) <= x) or \
           (kind == 'rel' and abs(wv - gv) <= x * max(abs(wv), 1e-300))

def main(tests, results):
  ok, bad = 0, []
  for part in open(results).read().split('== ')[1:]:
      name, body = part.split('\n', 1)
      name = name.strip().rstrip('/').split('/')[-1]
      try:
          expected = open('%s/%s/expected.txt' % (tests, name)).read()
      except FileNotFoundError:
          continue
      if expected.startswith('ERROR') or body.startswith('ERROR'):
          if expected.split('\n')[0] == body.split('\n')[0]:
              ok += 1
              continue
          bad.append('%s: NVIDIA %s, ours %s' % (name, expected.split('\n')[0], body.split('\n')[0]))
          continue
      w = expected.split('\n')
      t = w[0].split()[1]
      wv = [int(x, 16) for x in w[1:] if x.strip()]
      gv = [int(x, 16) for x in body.split('\n')[1:] if re.fullmatch('[0-9a-f]+', x.strip())]
      tol = tolerance(tests, name)
      differ = sum(1 for a, b in zip(wv, gv) if not close(t, a, b, tol)) + abs(len(wv) - len(gv))
      if differ == 0:
          ok += 1
      else:
          bad.append('%s: %d of %d values differ' % (name, differ, len(wv)))
  print('%d match NVIDIA, %d differ' % (ok, len(bad)))
  print('\n'.join(bad))

if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
