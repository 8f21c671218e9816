#!/usr/bin/env python3
"""Writes ZLUDA-J's declaration source of the CUDA driver API (zluda-native/src/main/api/cuda-driver.api).

Inputs: CUDA 13's public headers (cuda.h, cudaGL.h, cudaEGL.h, cudaVDPAU.h, cudaProfiler.h) and the export list
recorded from NVIDIA's driver 580 (exports-580.txt). The headers are read through gcc's preprocessor three times
(default names, per-thread-stream names, legacy names) so every exported name finds its prototype; each parameter
type is classified by ABI (integer width, pointer, float) by compiling a probe with gcc. Run once when the API
changes; the build reads only the .api file. Usage: tools/extract-api.py CUDA_INCLUDE_DIR API_DIR
"""
import re, subprocess, sys, os, tempfile, collections
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdecl import split_params, parse_param  # noqa: E402

inc, apidir = sys.argv[1], sys.argv[2]
VDP = "#include <stdint.h>\ntypedef uint32_t VdpDevice, VdpVideoSurface, VdpOutputSurface, VdpFuncId;\ntypedef int VdpGetProcAddress(VdpDevice, VdpFuncId, void **);\n"
HDRS = VDP + "#include <cuda.h>\n#include <cudaGL.h>\n#include <cudaEGL.h>\n#include <cudaVDPAU.h>\n#include <cudaProfiler.h>\n"
exports = [l.split()[1] for l in open(os.path.join(apidir, "exports-580.txt")) if l.startswith("F ")]

def pre(defs):
    return subprocess.run(["gcc", "-E", "-P", *defs, "-I", inc, "-x", "c", "-"], input=HDRS, capture_output=True,
                          text=True, check=True).stdout

protos = {}
for defs in ([], ["-D__CUDA_API_PER_THREAD_DEFAULT_STREAM"], ["-D__CUDA_API_VERSION_INTERNAL"]):
    text = re.sub(r"\s+", " ", pre(defs))
    for m in re.finditer(r"(?:extern )?(\w[\w ]*?\**) ?\b(cu\w+) ?\(([^()]*(?:\([^()]*\)[^()]*)*)\) ?;", text):
        ret, name, params = m.group(1).strip(), m.group(2), m.group(3).strip()
        if name not in protos:
            protos[name] = (ret, params)

def base(n):
    while True:
        m = re.match(r"(.*?)(_ptds|_ptsz|_v\d+)$", n)
        if not m: return n
        n = m.group(1)

# groups from the header's \defgroup blocks, by reading cuda.h in source order
group_of = {}
cur = "misc"
src = open(os.path.join(inc, "cuda.h")).read()
for m in re.finditer(r"\\defgroup (CUDA_\w+)|CUDAAPI\s+(cu[A-Z]\w+)\s*\(", src):
    if m.group(1): cur = m.group(1)
    elif base(m.group(2)) not in group_of: group_of[base(m.group(2))] = cur
GROUPS = {  # CUDA's doxygen group -> ZLUDA-J API class group
    "CUDA_ERROR": "error", "CUDA_INITIALIZE": "init", "CUDA_VERSION": "init", "CUDA_DEVICE": "device",
    "CUDA_DEVICE_DEPRECATED": "device", "CUDA_PRIMARY_CTX": "context", "CUDA_CTX": "context",
    "CUDA_CTX_DEPRECATED": "context", "CUDA_MODULE": "module", "CUDA_MODULE_DEPRECATED": "module",
    "CUDA_LIBRARY": "library", "CUDA_MEM": "memory", "CUDA_VA": "virtualMemory", "CUDA_MALLOC_ASYNC": "memoryPool",
    "CUDA_MULTICAST": "memory", "CUDA_UNIFIED": "memory", "CUDA_STREAM": "stream", "CUDA_EVENT": "event",
    "CUDA_EXTRES_INTEROP": "interop", "CUDA_MEMOP": "stream", "CUDA_EXEC": "launch", "CUDA_EXEC_DEPRECATED": "launch",
    "CUDA_GRAPH": "graph", "CUDA_OCCUPANCY": "launch", "CUDA_TEXREF_DEPRECATED": "texture",
    "CUDA_SURFREF_DEPRECATED": "texture", "CUDA_TEXOBJECT": "texture", "CUDA_SURFOBJECT": "texture",
    "CUDA_TENSOR_MEMORY": "texture", "CUDA_PEER_ACCESS": "context", "CUDA_GRAPHICS": "interop",
    "CUDA_DRIVER_ENTRY_POINT": "init", "CUDA_COREDUMP": "misc", "CUDA_GREEN_CONTEXTS": "context",
    "CUDA_CHECKPOINT": "misc", "CUDA_LOGS": "misc", "CUDA_PROFILER": "misc", "CUDA_PROFILER_DEPRECATED": "misc",
    "CUDA_MEM_PROFILER": "misc",
}



missing, entries, types = [], [], set()
for n in exports:
    if not n.startswith("cu"): continue
    if n not in protos:
        missing.append(n); entries.append(("misc", n, "CUresult", [])); continue
    ret, params = protos[n]
    ps = [parse_param(p, i) for i, p in enumerate(split_params(params))]
    for t, _ in ps: types.add(t)
    types.add(ret)
    g = GROUPS.get(group_of.get(base(n)) or "", None)
    if g is None or (g == "misc" and (re.match(r"cuGraph(?!ics)", n) or n == "cuGetExportTable")):
        g = "graph" if re.match(r"cuGraph(?!ics)", n) else "init" if n == "cuGetExportTable" else "interop" if re.match(r"cu(GL|EGL|VDPAU|Graphics)", n) else ("misc" if n.startswith("cuProfiler") else "misc")
    if g in ("memory", "memoryPool") and n.startswith("cuDevice"): g = "device"   # cuDeviceGetPCIBusId & co.: documented under memory
    entries.append((g, n, ret, ps))

# ABI class of every type, measured by gcc
probe = HDRS + "#include <stdio.h>\nint main(void){\n"
for t in sorted(types):
    if t == "void": continue
    probe += f'{{ {t} v; printf("%s %d %zu\\n", "{t}", __builtin_classify_type(v), sizeof(v)); }}\n'
probe += "return 0;}\n"
with tempfile.TemporaryDirectory() as d:
    open(f"{d}/p.c", "w").write(probe)
    r = subprocess.run(["gcc", "-w", "-D__CUDA_API_VERSION_INTERNAL", "-I", inc, "-o", f"{d}/p", f"{d}/p.c"], capture_output=True, text=True)
    if r.returncode: sys.exit(r.stderr[:3000])
    out = subprocess.run([f"{d}/p"], capture_output=True, text=True, check=True).stdout
abi = {}
for line in out.splitlines():
    t, cls, size = line.rsplit(" ", 2); cls, size = int(cls), int(size)
    if cls == 5: abi[t] = "ptr"
    elif cls in (1, 3, 4, 2): abi[t] = {1: "i8", 2: "i16", 4: "i32", 8: "i64"}[size]  # integer, enum, bool, char
    elif cls == 8: abi[t] = {4: "f32", 8: "f64"}[size]
    else: abi[t] = f"struct{size}"

with open(os.path.join(apidir, "cuda-driver.api"), "w") as f:
    f.write("# ZLUDA-J declaration source of the CUDA driver API: every function NVIDIA's driver 580 exports.\n"
            "# Written by tools/extract-api.py from CUDA 13.0's headers; read by the build (GenApi), which generates\n"
            "# the C exports of libcuda.so.1, the JNI dispatch and the Java API interfaces from it.\n"
            "#   @abi TYPE CLASS           how a C type crosses the ABI: i8 i16 i32 i64 ptr f32 f64\n"
            "#   GROUP RET NAME(TYPE name, ...)   one exported function; GROUP is the Java API class\n")
    for t in sorted(abi): f.write(f"@abi {t} {abi[t]}\n")
    for g, n, ret, ps in entries:
        f.write(f"{g} {ret} {n}(" + ", ".join(f"{t} {nm}" for t, nm in ps) + ")\n")
print(f"{len(entries)} functions, {len(missing)} without prototype: {missing}", file=sys.stderr)
print("struct-by-value types:", [t for t in abi if abi[t].startswith('struct')], file=sys.stderr)
print("groups:", collections.Counter(e[0] for e in entries), file=sys.stderr)
