#!/usr/bin/env python3
"""On the GPU machine (no Java needed): reduces a ptxrun folder (kernel.ptx, test.txt) whose output differs between
NVIDIA's JIT at -O0 and at its default level, for kernels where our NVPTX is right at -O0 only (ptxas-on-ours in
ptx-tests/src/test/fuzz/cuda-differences.txt). It replaces instructions by constant moves of their destinations and
deletes global stores, in chunks that halve, while the difference stays; the registers that global and shared
addresses are computed from are kept (a constant address would make threads race), predicates too (loops must end).
Candidates run 12 at a time in one ptxrun process per level; a test that hangs past 15 s counts as not reproducing.

  jit_reduce.py PTXRUN WORK KERNEL_DIR      -> WORK/NAME.reduced.ptx, WORK/NAME.log (rounds, the differing words)
  REDUCE_DEADLINE=EPOCH_SECONDS stops it with what it has (several kernels reduce in parallel within one device call).

Check a reduced kernel by hand before believing it: a constant can expose another optimizer defect than the kernel's
own (fuzz_1_19768's reduction ended on a multiplication by a zero NVIDIA's optimizer knew from a branch)."""
import os, re, subprocess, sys, shutil, time
deadline = float(os.environ.get('REDUCE_DEADLINE', '1e18'))
ptxrun, work, kdir = sys.argv[1], sys.argv[2], sys.argv[3]
name = os.path.basename(kdir.rstrip('/'))
W = os.path.join(work, name); os.makedirs(W, exist_ok=True)
test = open(os.path.join(kdir, 'test.txt')).read()
lines = open(os.path.join(kdir, 'kernel.ptx')).read().split('\n')
log = open(os.path.join(work, name + '.log'), 'w')
MOV = {'p': 'mov.pred %s, 0;', 'r': 'mov.b32 %s, 0;', 'rd': 'mov.b64 %s, 0;', 'f': 'mov.f32 %s, 0f3F800000;',
       'fd': 'mov.f64 %s, 0d3FF0000000000000;', 'rs': 'mov.b16 %s, 0;', 'h': 'mov.b16 %s, 0;'}
def regclass(r):
    m = re.match(r'%([a-z]+)\d+$', r); return m.group(1) if m else None
def dests(stmt):
    stmt = stmt.strip()
    m = re.match(r'(@!?%p\d+\s+)?([a-z][\w.]*)\s+(.*)', stmt)
    if not m: return None
    op, rest = m.group(2), m.group(3)
    if op.startswith(('st.', 'bra', 'ret', 'barrier', 'bar.', 'membar', 'fence', 'red.', '.reg')) or op == 'st':
        return None
    first = rest.split(',')[0].strip() if not rest.startswith('{') else rest[1:rest.index('}')]
    regs = [x.strip() for x in re.split(r'[,|]', first) if x.strip().startswith('%')]
    return regs
def addr_slice():
    regs = set()
    for l in lines:
        if re.search(r'\b(st|ld)\.(global|shared)|\batom\.|\bred\.', l):
            for a in re.findall(r'\[([^\]]*)\]', l): regs |= set(re.findall(r'%\w+', a))
    prot = set()
    while True:
        n = len(prot)
        for i, l in enumerate(lines):
            s = l.strip()
            if s.startswith(('//', '.', '$')) or i in prot: continue
            d = dests(s.split('//')[0]) or []
            if any(r in regs for r in d):
                prot.add(i); regs |= set(re.findall(r'%\w+', s))
        if len(prot) == n: return prot
PROTECTED = None
def edit_for(i):
    global PROTECTED
    if PROTECTED is None: PROTECTED = addr_slice()
    if i in PROTECTED: return None
    l = lines[i]; s = l.strip()
    if not s or s.startswith(('//', '.', '$', '{', '}')) and not s.startswith('{ .reg') or s.endswith(':'):
        return None
    if re.match(r'(@!?%p\d+\s+)?st\.global', s): return ''
    if re.match(r'(@!?%p\d+\s+)?st\.', s): return None
    if 'bra' in s.split()[0:2] or s.startswith('bra') or ' bra' in s or s.startswith('ret'): return None
    if s.startswith('{ .reg'):  # inline asm block: the outputs that are not scoped inside it
        scoped = set(re.findall(r'\.reg \.\w+ ([^;]+);', s)[0].replace(' ', '').split(',')) if '.reg' in s else set()
        regs = []
        for st in s.strip('{} ').split(';'):
            d = dests(st)
            if d: regs += [r for r in d if r not in scoped]
    else:
        regs = dests(s.split('//')[0])
    if not regs or any(regclass(r) == 'p' for r in regs): return None  # predicates kept: loops must end
    out = []
    for r in regs:
        c = regclass(r)
        if c not in MOV: return None
        out.append(MOV[c] % r)
    return '\t' + ' '.join(out)
def run(cands, jit):
    env = dict(os.environ); env.pop('PTXRUN_JIT_O', None)
    if jit is not None: env['PTXRUN_JIT_O'] = str(jit)
    dirs = [c for c in cands]
    if len(dirs) == 1: dirs = dirs * 2
    try:
        p = subprocess.run(['timeout', '-k', '3', '15', ptxrun] + dirs, capture_output=True, text=True, env=env)
        out = p.stdout
        if p.returncode in (124, 137):  # the last test named hung: no result for it
            last = [l for l in out.split('\n') if l.startswith('== ')]
            if last: out = out[:out.rindex(last[-1])]
    except Exception as e:
        out = ''
    res = {}; cur = None
    for l in out.split('\n'):
        if l.startswith('== '): cur = l[3:].strip(); res[cur] = []
        elif cur is not None: res[cur].append(l)
    return res
def write(idx, text):
    d = os.path.join(W, 'c%d' % idx); os.makedirs(d, exist_ok=True)
    open(os.path.join(d, 'kernel.ptx'), 'w').write(text); open(os.path.join(d, 'test.txt'), 'w').write(test)
    return d
def interesting_batch(variants):
    ds = [write(j, '\n'.join(v)) for j, v in enumerate(variants)]
    a = run(ds, None); b = run(ds, 0)
    ok = []
    for d in ds:
        x, y = a.get(d), b.get(d)
        good = x is not None and y is not None and not any('ERROR' in l for l in x + y) and x != y and len(x) > 2
        ok.append(good)
    return ok
base_ok = interesting_batch([lines])[0]
print(name, 'base interesting', base_ok, file=log, flush=True)
if not base_ok: sys.exit(0)
done = set(); n = 64; rounds = 0
while n >= 1:
    cands = [i for i in range(len(lines)) if i not in done and edit_for(i) is not None]
    chunks = [cands[k:k + n] for k in range(0, len(cands), n)]
    accepted = False
    if time.time() > deadline: break
    for b in range(0, len(chunks), 12):
        if time.time() > deadline: break
        batch = chunks[b:b + 12]
        vs = []
        for ch in batch:
            v = list(lines)
            for i in ch: v[i] = edit_for(i)
            vs.append(v)
        rounds += 1
        ok = interesting_batch(vs)
        if any(ok):
            j = ok.index(True); lines = vs[j]; done.update(batch[j]); accepted = True
            print('round %d n=%d accepted %d lines' % (rounds, n, len(batch[j])), file=log, flush=True)
            break
    if not accepted: n //= 2
open(os.path.join(work, name + '.reduced.ptx'), 'w').write('\n'.join(lines))
ds = write(9999, '\n'.join(lines))
ra = run([ds], None).get(ds, []); rb = run([ds], 0).get(ds, [])
print('== differing words (index: default, -O0):', [(i, ra[i], rb[i]) for i in range(min(len(ra), len(rb))) if ra[i] != rb[i]][:40], file=log)
shutil.rmtree(W)
