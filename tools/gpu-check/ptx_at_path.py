#!/usr/bin/env python3
"""Rewrites PTX that nvcc made from sources at one path into the PTX it makes from the same sources at another.
nvcc names internal-linkage symbols (_INTERNAL_<h1>_<n>_<stem>_cu_<h2>_..., _GLOBAL__N__<h1>_...) with two hashes:
h1 depends only on the source file's absolute path (not on its content or the flags), h2 on the file's content and
not on its folder, so that the kernels of a build made elsewhere differ in h1 alone. For each source file named in the
PTX, this compiles a probe at the new path (SRC_ROOT/RELATIVE, RELATIVE found under SRC_ROOT by the file's name) and
takes its h1.
Usage: ptx_at_path.py IN_DIR SRC_ROOT OUT_DIR   (nvcc on PATH; writes SRC_ROOT's probe files, then removes them)"""
import os
import re
import subprocess
import sys
import tempfile

src_dir, root, out = sys.argv[1], sys.argv[2], sys.argv[3]
NAME = re.compile(r"(_INTERNAL_|_GLOBAL__N__)([0-9a-f]{8})_(\d+)_(\w+?)_cu_([0-9a-f]{8})")
PROBE = "namespace { struct zluda_probe {}; }\ntemplate <class T> __global__ void zluda_probe_kernel() {}\n" \
        "template __global__ void zluda_probe_kernel<zluda_probe>();\n"


def where(stem):
    """The path under root of the source file whose name is stem.cu ('-' and '.' written '_' in symbols)."""
    found = [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs
             if f.endswith(".cu") and re.sub(r"[-.]", "_", f[:-3]) == stem]
    if len(found) != 1:
        sys.exit("ptx_at_path: %d files named %s.cu under %s" % (len(found), stem, root))
    return found[0]


def hashes(path):
    """h1 nvcc gives a source file at path."""
    backup = None
    if os.path.exists(path):
        backup = open(path, "rb").read()
    try:
        with open(path, "w") as f:
            f.write(PROBE)
        with tempfile.TemporaryDirectory() as t:
            subprocess.run(["nvcc", "-ptx", "-arch=compute_75", "-o", t + "/p.ptx", path], check=True)
            m = NAME.search(open(t + "/p.ptx").read())
    finally:
        if backup is None:
            os.remove(path)
        else:
            open(path, "wb").write(backup)
    return m.group(2)


os.makedirs(out, exist_ok=True)
seen = {}
for name in sorted(os.listdir(src_dir)):
    if not name.endswith(".ptx"):
        continue
    text = open(os.path.join(src_dir, name)).read()
    old = {(m.group(4), m.group(2), m.group(5)) for m in NAME.finditer(text)}
    for stem, h1, h2 in old:
        if stem not in seen:
            seen[stem] = hashes(where(stem))
        text = re.sub(r"(_INTERNAL_|_GLOBAL__N__)%s_(\d+_%s_cu_%s)" % (h1, stem, h2), r"\g<1>%s_\g<2>" % seen[stem], text)
    with open(os.path.join(out, name), "w") as f:
        f.write(text)
print("ptx_at_path: %d files, %d sources renamed: %s" % (len(os.listdir(out)), len(seen),
      " ".join("%s=%s" % kv for kv in sorted(seen.items()))))
