#!/usr/bin/env python3
"""Writes the PTX modules embedded as C string literals in a driver-API test program (adjacent literals joined, C
escapes undone; every literal run that holds a .version directive) to OUT_DIR/NAME_K.ptx, so that `zluda precompile`
can put their kernels into the GPU machine's compile cache exactly as cuModuleLoadData will ask for them.
Usage: embedded_ptx.py PROGRAM.c OUT_DIR"""
import os
import re
import sys

src, out = sys.argv[1], sys.argv[2]
text = open(src).read()
text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
text = re.sub(r'//[^\n]*', ' ', text)
literal = r'"((?:[^"\\\n]|\\.)*)"'
runs = re.finditer(r'(?:%s\s*)+' % literal, text)
escapes = {'n': '\n', 't': '\t', '"': '"', '\\': '\\', "'": "'", '0': '\0', 'r': '\r'}
name = os.path.splitext(os.path.basename(src))[0]
k = 0
for run in runs:
    s = ''.join(re.findall(literal, run.group(0)))
    s = re.sub(r'\\(.)', lambda m: escapes.get(m.group(1), m.group(1)), s)
    if '.version' in s and ('.entry' in s or '.func' in s):
        with open(os.path.join(out, '%s_%d.ptx' % (name, k)), 'w') as f:
            f.write(s)
        k += 1
print('%s: %d embedded PTX modules' % (name, k))
