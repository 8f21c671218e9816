#!/usr/bin/env python3
"""Writes ZLUDA-J's declaration sources of cuBLAS and cuBLASLt (zluda-native/src/main/api/cublas.api, cublasLt.api).

Inputs: NVIDIA's cuBLAS headers (cublas_api.h, cublas.h, cublasXt.h, cublasLt.h of CUDA 13, from NVIDIA's cuBLAS
wheel: `pip download --no-deps nvidia-cublas`, unzip, nvidia/cu13/include) and the export lists of NVIDIA's
libcublas.so.13 and libcublasLt.so.13 (nm -D of the same wheel's libraries, one name per line, given as files).
Prototypes are read through g++'s preprocessor twice (C++: the half-precision functions are C++ only) (the current API, then the legacy cublas.h, whose names are the
un-suffixed ones); each C type is classified by ABI by compiling a probe with g++. Exported functions with no public
prototype (cuBLASLt's internal matmul variants) are declared without parameters: they answer NOT_SUPPORTED.
Run once when the API changes; the build reads only the .api files.
Usage: tools/extract-cublas-api.py CUBLAS_INCLUDE_DIR CUDA_INCLUDE_DIR LIBCUBLAS_NAMES LIBCUBLASLT_NAMES API_DIR
"""
import re, subprocess, sys, os, tempfile, collections
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdecl import split_params, parse_param  # noqa: E402

inc, cudainc, cublas_names, lt_names, apidir = sys.argv[1:6]
names = {"cublas": [l.split("@")[0].strip() for l in open(cublas_names) if l.strip()],
         "cublasLt": [l.split("@")[0].strip() for l in open(lt_names) if l.strip()]}
CURRENT = "#include <cublas_api.h>\n#include <cublasXt.h>\n#include <cublasLt.h>\n"
LEGACY = "#include <cublas.h>\n"


def pre(src):
    return subprocess.run(["g++", "-E", "-P", "-I", inc, "-I", cudainc, "-x", "c++", "-"], input=src,
                          capture_output=True, text=True, check=True).stdout


protos, legacy = {}, set()
for src in (CURRENT, LEGACY):
    text = re.sub(r"\s+", " ", pre(src))
    for m in re.finditer(r"(?:extern )?(\w[\w ]*?\**) ?\b(cublas\w+) ?\(([^()]*(?:\([^()]*\)[^()]*)*)\) ?;", text):
        ret, name, params = m.group(1).strip(), m.group(2), m.group(3).strip()
        ret = re.sub(r"^(?:extern )?(?:const )?", "", ret).strip()
        if name not in protos:
            protos[name] = (ret, params)
            if src is LEGACY: legacy.add(name)




def base(n):
    return re.sub(r"(_v2)?(_64)?$", "", n)


# groups: cuBLAS's documentation chapters, from the section comments of cublas_api.h in source order
SECTIONS = [("CUBLAS Helper Functions", "helper"), ("CUBLAS BLAS1 Functions", "level1"),
            ("CUBLAS BLAS2 Functions", "level2"), ("CUBLAS BLAS3 Functions", "level3"),
            ("CUBLAS BLAS-like Extension", "extension")]
group_of, cur = {}, "helper"
api_h = open(os.path.join(inc, "cublas_api.h")).read()
section = "|".join(re.escape(t) for t, _ in SECTIONS)
for m in re.finditer(r"(" + section + r")|CUBLASWINAPI\s+(cublas\w+)\s*\(", api_h):
    if m.group(1): cur = dict(SECTIONS)[m.group(1)]
    elif base(m.group(2)) not in group_of: group_of[base(m.group(2))] = cur


def group(lib, n):
    if lib == "cublasLt": return "lt"
    if n.startswith("cublasXt"): return "xt"
    if n in legacy: return "legacy"
    return group_of.get(base(n), "helper")


entries, missing, types = collections.defaultdict(list), collections.defaultdict(list), set()
for lib, ns in names.items():
    for n in ns:
        if n not in protos:
            missing[lib].append(n); entries[lib].append((group(lib, n), n, "cublasStatus_t", [])); continue
        ret, params = protos[n]
        ps = [parse_param(p, i) for i, p in enumerate(split_params(params))]
        for t, _ in ps: types.add(t)
        types.add(ret)
        entries[lib].append((group(lib, n), n, ret, ps))
types.add("cublasStatus_t")

probe = CURRENT + "#include <stdio.h>\nint main(void){\n"
for t in sorted(types):
    if t == "void": continue
    probe += f'{{ {t} v; printf("%s|%d|%zu\\n", "{t}", __builtin_classify_type(v), sizeof(v)); }}\n'
probe += "return 0;}\n"
with tempfile.TemporaryDirectory() as d:
    open(f"{d}/p.c", "w").write(probe)
    r = subprocess.run(["g++", "-w", "-x", "c++", "-I", inc, "-I", cudainc, "-o", f"{d}/p", f"{d}/p.c"], capture_output=True, text=True)
    if r.returncode: sys.exit(r.stderr[:3000])
    out = subprocess.run([f"{d}/p"], capture_output=True, text=True, check=True).stdout
abi = {"void": "void"}
for line in out.splitlines():
    t, cls, size = line.rsplit("|", 2); cls, size = int(cls), int(size)
    if cls == 5: abi[t] = "ptr"
    elif cls in (1, 3, 4, 2): abi[t] = {1: "i8", 2: "i16", 4: "i32", 8: "i64"}[size]  # integer, enum, bool, char
    elif cls == 8: abi[t] = {4: "f32", 8: "f64"}[size]
    elif t == "cuComplex": abi[t] = "c32"          # two floats: one SSE eightbyte
    elif t == "cuDoubleComplex": abi[t] = "c64"    # two doubles: two SSE eightbytes
    else: abi[t] = f"struct{size}"

LIBS = {
    "cublas": ("libcublas.so.13 libcublas.so.12", "libcublasLt", "cublas Cublas",
               "NVIDIA's libcublas.so.13 (13.1) and its legacy and cuBLASXt functions"),
    "cublasLt": ("libcublasLt.so.13 libcublasLt.so.12", "", "cublaslt Cublas",
                 "NVIDIA's libcublasLt.so.13 (13.1)"),
}
for lib, es in entries.items():
    sonames, needs, pkg, what = LIBS[lib]
    used = sorted({t for _, _, r, ps in es for t in [r] + [p[0] for p in ps]})
    with open(os.path.join(apidir, f"{lib}.api"), "w") as f:
        f.write(f"# ZLUDA-J declaration source of {lib}: every function {what} exports.\n"
                "# Written by tools/extract-cublas-api.py from CUDA 13's cuBLAS headers; read by the build (GenApi), which\n"
                "# generates the C exports of the libraries named below, their JNI dispatch and the Java API interfaces.\n"
                "#   @library SONAMES...          the files built; every export carries the file's soname as its symbol version\n"
                "#                                 (NVIDIA's: NAME@@libcublas.so.13), so versioned references of binaries bind\n"
                "#   @needs STEM                   a library each file depends on, of the same major version, as NVIDIA's do\n"
                "#   @java PACKAGE PREFIX          Java package (org.zludaj.api.PACKAGE) and the interfaces' prefix (PREFIX + Group + Api)\n"
                "#   @status TYPE CODE NOTINIT     functions returning TYPE answer CODE when not implemented, NOTINIT without a driver\n"
                "#   @abi TYPE CLASS               how a C type crosses the ABI: i8 i16 i32 i64 ptr f32 f64 c32 c64 void\n"
                "#   GROUP RET NAME(TYPE name, ...)   one exported function; GROUP is the Java API interface\n")
        f.write(f"@library {sonames}\n")
        if needs: f.write(f"@needs {needs}\n")
        f.write(f"@java {pkg}\n@status cublasStatus_t 15 1\n")
        for t in used: f.write(f"@abi {t} {abi[t]}\n")
        for g, n, ret, ps in es:
            f.write(f"{g} {ret} {n}(" + ", ".join(f"{t} {nm}" for t, nm in ps) + ")\n")
    print(f"{lib}: {len(es)} functions, {len(missing[lib])} without prototype; groups",
          dict(collections.Counter(e[0] for e in es)), file=sys.stderr)
print("max parameters:", max(len(ps) for es in entries.values() for _, _, _, ps in es), file=sys.stderr)
print("struct types:", [t for t in abi if abi[t].startswith("struct")], file=sys.stderr)
