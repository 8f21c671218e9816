#!/usr/bin/env python3
"""Probes for narrowing a wrong result down inside one kernel (docs/gpu-check.md, "Narrowing a wrong result down"):
the same instrumented PTX runs on the host backend and natively on the GPU, and the dumps are compared.

  probe_ptx.py IN.ptx OUT.ptx LINE:REGS:PARAM:OFFSET:SLOT ...

inserts before LINE (1-based) a store of the 32-bit registers REGS (comma list) of every thread, per visit (a
per-thread counter at word SLOT*512 + ctaid*256 + tid of kernel parameter 4), into the buffer of kernel parameter
PARAM at word OFFSET + (visit*512 + ctaid*256 + tid) * len(REGS) + k, for the first 3 visits. Both buffers must be
ones the kernel does not otherwise use (for CUB's segmented-sort fallback kernel: its unused "out" pointers), zeroed,
and blocks of at most 256 threads, at most 2 blocks. A register is read where the probe stands: probe after its
definition."""
import re, sys
src, dst = sys.argv[1], sys.argv[2]
lines = open(src).read().split('\n')
name = re.search(r'\.entry (\S+)\(', '\n'.join(lines)).group(1)
inserts = {}
for spec in sys.argv[3:]:
    line, regs, param, off, slot = spec.split(':')
    regs = regs.split(',')
    n = len(regs)
    stores = ' '.join(f'st.global.u32 [%dbg6+{4*k}], {r};' for k, r in enumerate(regs))
    inserts.setdefault(int(line), []).append(f'''	{{ .reg .u64 %dbg<8>; .reg .u32 %dbgr<6>; .reg .pred %dbgp;
	ld.param.u64 %dbg1, [{name}_param_{param}]; ld.param.u64 %dbg2, [{name}_param_4];
	cvta.to.global.u64 %dbg1, %dbg1; cvta.to.global.u64 %dbg2, %dbg2;
	mov.u32 %dbgr1, %tid.x; mov.u32 %dbgr2, %ctaid.x; mad.lo.u32 %dbgr3, %dbgr2, 256, %dbgr1; add.u32 %dbgr4, %dbgr3, {int(slot)*512};
	mul.wide.u32 %dbg3, %dbgr4, 4; add.s64 %dbg4, %dbg2, %dbg3; atom.global.add.u32 %dbgr0, [%dbg4], 1;
	setp.lt.u32 %dbgp, %dbgr0, 3;
	mad.lo.u32 %dbgr0, %dbgr0, 512, %dbgr3; mul.lo.u32 %dbgr0, %dbgr0, {n}; add.u32 %dbgr0, %dbgr0, {off};
	mul.wide.u32 %dbg5, %dbgr0, 4; add.s64 %dbg6, %dbg1, %dbg5;
	@%dbgp bra.uni DBGW{line}_{slot}; bra.uni DBGS{line}_{slot};
	DBGW{line}_{slot}: {stores}
	DBGS{line}_{slot}: }}''')
out = []
for i, l in enumerate(lines, 1):
    out.extend(inserts.get(i, []))
    out.append(l)
open(dst, 'w').write('\n'.join(out))
