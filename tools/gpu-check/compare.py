#!/usr/bin/env python3
"""GPU check table: each ptx-test run natively (NVIDIA's driver, original PTX) and through ZLUDA-J's cuda backend
(our NVPTX), compared value by value with test.txt's tolerance; each CUDA program compared by exit status and its
PASS/FAIL lines. Usage: compare.py TESTS_DIR NATIVE_PTX OURS_PTX PROGRAMS_DIR [CHECKED_OUT [GPU_LINE]]
CHECKED_OUT receives the names of the ptx-tests whose expected.txt NVIDIA's own run reproduced (values within the
test's tolerance, or the same error): ptx-tests/src/test/ptx/nvidia-checked.txt, read by the ISA coverage table."""
import math, os, re, struct, sys

tests, native_file, ours_file, programs = sys.argv[1:5]

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_results import tolerance, close  # ptx-tests/compare-results.py, carried as compare_results.py

def sections(path):
    out = {}
    text = open(path, errors='replace').read() if os.path.exists(path) else ''
    for part in text.split('== ')[1:]:
        name, _, body = part.partition('\n')
        out[name.strip().rstrip('/').split('/')[-1]] = body
    return out

def summary(body):
    if body is None:
        return 'missing'
    first = body.split('\n')[0]
    return first[:40] if first.startswith('ERROR') else 'ok'

native, ours = sections(native_file), sections(ours_file)
rows, matched = [], 0
for name in sorted(native):
    nb, ob = native.get(name), ours.get(name)
    ns, os_ = summary(nb), summary(ob)
    if ns != 'ok' or os_ != 'ok':
        match = ns == os_ or (ns.startswith('ERROR') and os_.startswith('ERROR') and ns.split()[1:2] == os_.split()[1:2])
    else:
        lines_n, lines_o = nb.split('\n'), ob.split('\n')
        header = lines_n[0].split()
        t = header[1] if len(header) > 1 else 'u32'
        wv = [int(x, 16) for x in lines_n[1:] if re.fullmatch('[0-9a-f]+', x.strip())]
        gv = [int(x, 16) for x in lines_o[1:] if re.fullmatch('[0-9a-f]+', x.strip())]
        tol = tolerance(tests, name)
        differ = sum(1 for a, b in zip(wv, gv) if not close(t, a, b, tol)) + abs(len(wv) - len(gv))
        match = differ == 0
        if not match:
            os_ = '%d of %d values differ' % (differ, len(wv))
    matched += match
    rows.append((name, ns, os_, 'yes' if match else 'NO'))

prog_rows, prog_matched = [], 0
for f in sorted(os.listdir(programs)) if os.path.isdir(programs) else []:
    if not f.endswith('.native'):
        continue
    name = f[:-len('.native')]
    def read(kind):
        p = os.path.join(programs, name + '.' + kind)
        text = open(p, errors='replace').read() if os.path.exists(p) else 'exit missing\n'
        status = re.findall(r'^exit (\S+)$', text, re.M)
        lines = [l for l in text.split('\n') if l and not l.startswith(('ZLUDA-J', 'exit '))]
        # measurements (memory use) are not results: the program judges them itself in its PASS/FAIL
        # (a program may name the device it ran on: "NVIDIA H200 (ZLUDA-J cuda backend)" is the same device)
        verdict = [re.sub(r' \(ZLUDA-J [^)]*\)', '', re.sub(r'rss_growth_kib=\d+ \(rss \d+ KiB\)', 'rss_growth_kib=(measured)', l))
                   for l in lines if l.startswith(('PASS', 'FAIL'))]
        return (status[-1] if status else '?'), verdict, lines
    (ne, nv, nl), (oe, ov, ol) = read('native'), read('ours')
    if not nv:  # no verdict line (printf, wmma): the whole output is the result
        nv, ov = ['%d lines' % len(nl)], ['%d lines%s' % (len(ol), '' if sorted(ol) == sorted(nl) else ', different')]
    match = ne == oe and nv == ov and ne == '0'
    prog_matched += match
    prog_rows.append((name, 'exit %s %s' % (ne, ' '.join(nv)[:50]), 'exit %s %s' % (oe, ' '.join(ov)[:50]), 'yes' if match else 'NO'))

print('| test | native | ours | match |')
print('| --- | --- | --- | --- |')
for r in prog_rows + rows:
    print('| %s | %s | %s | %s |' % r)
print()
print('ptx-tests: %d of %d match native; CUDA programs: %d of %d match native' % (matched, len(rows), prog_matched, len(prog_rows)))

# NVIDIA's own run against each test's expected.txt (recorded earlier, or computed by an exact reference for the
# matrix tests of generate_matrix.py): this is what proves those references and their fragment layouts
agree, disagree, checked = 0, [], []
for name in sorted(native):
    path = os.path.join(tests, name, 'expected.txt')
    if not os.path.exists(path):
        continue
    if summary(native[name]) != 'ok':
        if native[name].split('\n')[0].strip() == open(path).read().split('\n')[0].strip():
            checked.append(name)  # the same error as expected (a trap, an illegal address)
        continue
    lines_e, lines_n = open(path).read().split('\n'), native[name].split('\n')
    t = lines_e[0].split()[1]
    ev = [int(x, 16) for x in lines_e[1:] if re.fullmatch('[0-9a-f]+', x.strip())]
    nv_ = [int(x, 16) for x in lines_n[1:] if re.fullmatch('[0-9a-f]+', x.strip())]
    tol = tolerance(tests, name)
    differ = sum(1 for a, b in zip(ev, nv_) if not close(t, a, b, tol)) + abs(len(ev) - len(nv_))
    if differ:
        disagree.append('%s: %d of %d' % (name, differ, len(ev)))
    else:
        agree += 1
        checked.append(name)
print('native vs expected.txt: %d of %d match%s' % (agree, agree + len(disagree), ('; differ: ' + ', '.join(disagree)) if disagree else ''))

if len(sys.argv) > 5:
    with open(sys.argv[5], 'w') as f:
        f.write('# ptx-tests whose expected.txt NVIDIA\'s own run reproduced (tools/gpu-check/compare.py), on\n')
        f.write('# %s\n' % (sys.argv[6] if len(sys.argv) > 6 else 'an NVIDIA GPU'))
        f.write(''.join(n + '\n' for n in checked))
