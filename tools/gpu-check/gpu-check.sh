#!/usr/bin/env bash
# The one-call GPU check: ZLUDA-J's own compilation of every ptx-test and CUDA test program, run on an NVIDIA GPU
# through our libcuda.so.1 and the cuda backend, against NVIDIA's execution of the original PTX.
#
#   tools/gpu-check/gpu-check.sh [sm_90] [KERNELS]
#                                            here: builds the distribution, builds the ptx-tests CUDA programs with
#                                            nvcc, precompiles every kernel for the GPU's sm into a cache folder, and
#                                            packs what the GPU machine lacks into .device-carry/ (a jlink'd Java
#                                            runtime, the distribution without LLVM, the cache, the tests)
#                                            KERNELS (a file naming ggml kernels, one per line, or "all") adds ggml: its
#                                            source and build recipe (../shared/ggml) and those kernels precompiled
#                                            from the PTX of a GPU-machine build (GGML_PTX), for 'run.sh ggml';
#                                            "device": none here, every kernel compiled there (run.sh ggml-prep)
#   bash .device-carry/run.sh [cublas|ggml|ptx|corpus|corpus-ours|forms|overhead|launches]  on the GPU machine (the device tool, carrying .device-carry): runs every
#                                            test natively and through ZLUDA-J and prints the table (also $OUT/table.md)
#   bash tools/gpu-check/native_dirs.sh FOLDERS.tar.xz ptxrun.c   on the GPU machine: ptxrun folders natively, 16 processes
#                                            (A/B of two compilers' NVPTX against NVIDIA's PTX; hangs named)
#   bash .device-carry/run.sh dirs DIR [CACHE_TGZ]  DIR's ptxrun test folders natively and through ZLUDA-J (the
#                                            classification of fuzz_corpus.py; fuzz_cuts.py first reads the outputs)
#   bash .device-carry/run.sh graph-once       a graph of many kernels made, run and updated once (bench/graph_once.c),
#                                            natively (captured and node by node) and through ZLUDA-J
#   bash .device-carry/run.sh ggml-prep        builds ggml there and compiles all its kernels there (with LLVM from
#                                            bench/ggml-compile-kit.sh's kit1, unpacked there by a call just before)
#   bash .device-carry/run.sh ggml-suite [GROUPS]  the whole test-backend-ops test, natively and through ZLUDA-J, its
#                                            ops in groups of parallel processes (after ggml-prep, same warm machine)
#   bash .device-carry/run.sh ggml-perf        test-backend-ops perf per op both ways (GGML_PERF="OP:SECONDS[:PARAMS_REGEX] ...",
#                                            GGML_PERF_REPEAT=N processes each way, alternating: each case's best)
#   bash .device-carry/run.sh ggml-ncu         kernels' own GPU time under Nsight Compute both ways (GGML_NCU="OP:PARAMS:KERNELS ...")
#   bash .device-carry/run.sh ggml-ab OP PARAMS [VAR=VALUE...]  one perf case, processes alternating: native, ours, ours
#                                            with the variables (GGML_AB_REPEAT, GGML_AB_TIMER=1: under bench/call_timer.c)
#   bash .device-carry/run.sh ggml-gpt2        GPT-2 prompt and generation speed both ways (GGML_GPT2_RUNS, GGML_GPT2_N,
#                                            GGML_GPT2_TYPE f16|q8_0|q4_0)
#   bash .device-carry/run.sh ggml-gpt2-steady GPT-2's generation and prompt ms per token without the first evaluation's cost
#   bash .device-carry/run.sh ggml-gpt2-text   a tiny GPT-2's greedy text: CPU backend, native, ours (GGML_GPT2_TEXT)
#   bash .device-carry/run.sh ggml-gpt2-calls  each call GPT-2's generation makes, timed both ways (bench/call_timer.c)
#   bash .device-carry/run.sh cublas-graphs [N]  cuBLAS captured in a graph and replayed, both ways (c/cublas_graphs.c)
#   bash .device-carry/run.sh cublas-interleaved  a cuBLAS GEMM's cost to its caller between other stream work: natively,
#                                            ours, ours with every call through the JVM (bench/cublas_interleaved.c)
#                                            GGML_BUILD=default: the ggml modes use the default build (MMQ on)
#   bash .device-carry/run.sh repeat PROGRAM [N]  c/PROGRAM.c natively, then N times through ZLUDA-J (debug logs, hs_err)
#   bash .device-carry/run.sh ggml-bisect REGEX...   GGML_OPS's test-backend-ops cases (default TOP_K) natively, then
#                                            through ZLUDA-J once per REGEX with ZLUDA_NVIDIA_JIT=REGEX ("none": ours only)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sm=${1:-sm_90}
ggml_kernels=${2:-}
carry=$root/.device-carry
cd "$root"
command -v nvcc >/dev/null || { echo "gpu-check: nvcc is needed to build the CUDA test programs" >&2; exit 2; }
# the Java runtime carried: GPU_CHECK_JAVA_HOME, else the newest JDK 22+ under /usr/lib/jvm (the foreign-function API:
# calls into the JVM through upcall stubs, org.zludaj.api.Upcalls), else JAVA_HOME or the default java
feature() { sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null || true; }
java_home=${GPU_CHECK_JAVA_HOME:-}
if [ -z "$java_home" ]; then
  for j in /usr/lib/jvm/*/; do
    f=$(feature "$j"); [ "${f:-0}" -ge 22 ] && [ -x "$j/bin/jlink" ] && { [ -z "$java_home" ] || [ "$f" -gt "$(feature "$java_home")" ]; } && java_home=${j%/}
  done
fi
java_home=${java_home:-${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}}
# jlink needs the JDK's jmods, or (JDK 24 on) a linkable run-time image
[ -x "$java_home/bin/jlink" ] && { [ -d "$java_home/jmods" ] || [ "$(feature "$java_home")" -ge 24 ] 2>/dev/null; } ||
  { echo "gpu-check: needs a JDK with jlink and jmods (GPU_CHECK_JAVA_HOME or JAVA_HOME)" >&2; exit 2; }
echo "gpu-check: Java runtime from $java_home (JDK $(feature "$java_home"))"

mvn -B -q package -DskipTests
rm -rf "$carry" && mkdir -p "$carry"/{bin,ptx,dist/lib,dist/conf,dist/bin}
# GPU_CHECK_CACHE: a compile cache of an earlier precompile for the same target, to start from (kernels in it are not
# compiled again)
[ -n "${GPU_CHECK_CACHE:-}" ] && cp -r "$GPU_CHECK_CACHE" "$carry/cache"

# the distribution, without LLVM (every kernel comes from the cache there)
for f in dist/lib/*; do
  case "$(basename "$f")" in llvm-*.jar|openblas-*-linux-*.jar|*.jsa|*.aot) ;; *) cp -P "$f" "$carry/dist/lib/" ;; esac
done
mkdir -p "$carry/dist/bin" && cp dist/bin/zluda "$carry/dist/bin/"  # zluda archive, run there

# the tests: ptx-tests folders and the CUDA programs, built here
tests=ptx-tests/src/test/ptx
for d in "$tests"/*/; do
  n=$(basename "$d"); mkdir -p "$carry/ptx/$n"; cp "$d/kernel.ptx" "$d/test.txt" "$d/expected.txt" "$carry/ptx/$n/"
done
# differential fuzzing: random well-defined kernels, compared with NVIDIA's execution like the ptx-tests
# (GPU_CHECK_FUZZ kernels, default 200; GPU_CHECK_FUZZ_SEED picks another set)
python3 tools/gpu-check/fuzz_ptx.py "$carry/ptx" "${GPU_CHECK_FUZZ:-200}" "${GPU_CHECK_FUZZ_SEED:-1}"
for cu in ptx-tests/src/test/cuda/*.cu; do
  libs=(); case "$cu" in *cublas*) libs=(-L"$root/dist/lib" -l:libcublas.so.13) ;; esac  # the soname; NVIDIA's or ours at run time
  nvcc -arch=compute_86 -o "$carry/bin/$(basename "$cu" .cu)" "$cu" "${libs[@]}"
done
# the tensor-core program also as compute_80 PTX (the other form llama.cpp ships)
nvcc -arch=compute_80 -o "$carry/bin/flash_attention_80" ptx-tests/src/test/cuda/flash_attention.cu
# CUB's segmented sort also as ggml builds it (compute_75: CUB's tuning for that architecture, other tile sizes)
nvcc -arch=compute_75 -o "$carry/bin/cub_segmented_sort_75" ptx-tests/src/test/cuda/cub_segmented_sort.cu
# the driver-API C programs (built with gcc on the GPU machine), their embedded PTX extracted for precompiling
mkdir -p "$carry/c" "$carry/cptx"
for n in driver_vectoradd driver_functions driver_kernel_attrs driver_streams driver_stream_ops driver_pointers driver_arrays \
         driver_memcpy2d driver_graphs driver_graph_nodes driver_graph_more driver_graph_api driver_vmm driver_textures driver_modules driver_legacy driver_texrefs driver_sticky driver_memo driver_stream_order \
         cuda_backend_copies; do
  cp "ptx-tests/src/test/c/$n.c" "$carry/c/"
  python3 tools/gpu-check/embedded_ptx.py "ptx-tests/src/test/c/$n.c" "$carry/cptx" > /dev/null
done
cp ptx-tests/src/test/c/ptxrun.c tools/gpu-check/compare.py tools/gpu-check/fuzz_ptx.py tools/gpu-check/fuzz_corpus.py "$carry/"
# the cuBLAS programs and benchmark: built there against NVIDIA's cuBLAS, run natively and through ours (cuda backend,
# NVIDIA's cuBLAS underneath in the driver's namespace)
mkdir -p "$carry/cublas"
cp ptx-tests/src/test/c/cublas_calls.c ptx-tests/src/test/c/cublaslt_calls.c ptx-tests/src/test/c/cublas_graphs.c bench/cublas_bench.c \
   bench/cublas_interleaved.c "$carry/cublas/"
cp ptx-tests/compare-results.py "$carry/compare_results.py"  # the tolerances, shared

# driver_modules.c links two of its PTX modules at run time (cuLinkComplete): the linked module too
dist/bin/zluda link "$carry/cptx/driver_modules_1.ptx" "$carry/cptx/driver_modules_2.ptx" -o "$carry/cptx/driver_modules_linked.ptx"
rm "$carry/cptx/driver_modules_1.ptx"  # not a module by itself (it calls into the other)
# every kernel compiled for the GPU, into the cache the GPU run uses
# (kernels our compiler cannot build for the GPU yet fail here and show as mismatches in the table)
# the instruction forms (run.sh forms), the first GPU_CHECK_CORPUS kernels of the differential corpus (run.sh
# corpus-ours) and the driver-overhead and graph benchmarks (run.sh overhead, graph-once): generated again there, compiled here
cp tools/gpu-check/forms_ptx.py bench/driver_overhead.c bench/graph_once.c bench/driver_bench.h bench/call_timer.c "$carry/"  # the corpus travels with the repo
python3 tools/gpu-check/forms_ptx.py "$carry/forms" 300000 4 > /dev/null
mkdir -p "$carry/corpus"; python3 tools/gpu-check/fuzz_ptx.py "$carry/corpus" "${GPU_CHECK_CORPUS:-2000}" 1 > /dev/null
python3 tools/gpu-check/embedded_ptx.py bench/driver_overhead.c "$carry/cptx" > /dev/null
python3 tools/gpu-check/embedded_ptx.py bench/graph_once.c "$carry/cptx" > /dev/null
dist/bin/zluda precompile "$carry/ptx" "$carry/bin" "$carry/cptx" "$carry/forms" "$carry/corpus" --target "$sm" --cache "$carry/cache" \
  > "$carry/precompile.log" || true
rm -rf "$carry/forms" "$carry/corpus"
# ggml (llama.cpp's GPU code), built on the GPU machine from ../shared/ggml's source at one fixed path (its build
# recipe, changed only there). nvcc names internal-linkage symbols (_INTERNAL_<hash>_) by the source file's path, so
# the PTX of the build made here (../shared/ggml/host) is renamed for that path (ptx_at_path.py) before its kernels
# are precompiled; GGML_PTX may name a folder of a GPU-machine build's PTX instead (cuobjdump -xptx).
# KERNELS: "all" (every module: far more than the carry holds), "ops" (the modules of every op but the matrix
# products and flash attention, and mmvf, which GPT-2 uses: what 'run.sh ggml' runs), or a file of kernel names.
if [ -n "$ggml_kernels" ]; then
  ggml=$root/../shared/ggml
  mkdir -p "$carry/ggml" && cp "$ggml/ggml-src.tar.xz" tools/gpt2-random-model.py "$carry/ggml/"
  sed 's|^work=$(mktemp -d)$|work=/tmp/ggml-src; rm -rf "$work"; mkdir -p "$work"|' "$ggml/build.sh" > "$carry/ggml/build.sh"
  grep -q '^work=/tmp/ggml-src' "$carry/ggml/build.sh" || { echo "gpu-check: ggml's build.sh changed: cannot fix its source path" >&2; exit 2; }
  ptx=${GGML_PTX:-}
  if [ -z "$ptx" ]; then
    scratch=$(mktemp -d); ptx=$scratch/gpu
    dist/bin/zluda extract "$ggml/host/lib/libggml-cuda.so.0" -o "$scratch/host" > /dev/null
    rm -rf /tmp/ggml-src && mkdir -p /tmp/ggml-src && tar -C /tmp/ggml-src -xJf "$ggml/ggml-src.tar.xz"
    python3 tools/gpu-check/ptx_at_path.py "$scratch/host" /tmp/ggml-src "$ptx"
    ls "$ptx" | sed 's/\.ptx$//' > "$carry/ggml/modules.txt"  # names the GPU build's modules must match
    (cd "$ptx" && grep -ho '\.entry [A-Za-z0-9_$]*' -- *.ptx | cut -c8- | LC_ALL=C sort) > "$carry/ggml/kernels.txt"
  fi
  regex=.; inputs=("$ptx")
  if [ "$ggml_kernels" = device ]; then
    inputs=()  # compiled on the GPU machine (run.sh ggml-prep)
  elif [ "$ggml_kernels" = ops ]; then
    inputs=()
    for f in "$ptx"/*.ptx; do
      first=$(grep -om1 '\.entry [A-Za-z0-9_]*' "$f" | cut -c8- || true)
      if [ "$(stat -c %s "$f")" -lt 1200000 ] && ! [[ $first =~ flash_attn ]] || [[ $first =~ ^_Z(12init_indices|19k_bin_bcast|21k_get_rows|18get_batch|13mul_mat_vec_f) ]]; then
        inputs+=("$f")
      fi
    done
  elif [ "$ggml_kernels" != all ]; then
    regex=$(python3 -c 'import re, sys
names = [l.strip() for l in open(sys.argv[1]) if l.strip()]
print("^(" + "|".join(re.sub(r"_INTERNAL_[0-9a-f]{8}_", "_INTERNAL_[0-9a-f]{8}_", n) for n in names) + ")$")' "$ggml_kernels")
  fi
  if [ ${#inputs[@]} -gt 0 ]; then
    dist/bin/zluda precompile "${inputs[@]}" --target "$sm" --cache "$carry/cache" --kernels "$regex" > "$carry/precompile-ggml.log" || true
    tail -1 "$carry/precompile-ggml.log"
  fi
fi
tar -C "$carry" -cJf "$carry/cache.tar.xz" cache && rm -rf "$carry/cache"  # a tenth of the size: the carry is limited
tail -1 "$carry/precompile.log"

# a minimal Java runtime (uncompressed in itself: xz compresses the whole better, 15 against 24 MB for JDK 25); with
# the flight recorder, to profile there (-XX:StartFlightRecording=delay=..,duration=..,filename=.. in ZLUDA_JVM_OPTS),
# and jcmd, for a thread dump of a process that stalls (the shim starts the JVM with -Xrs, so the process needs
# ZLUDA_JVM_OPTS=-XX:+StartAttachListener for jcmd to reach it)
"$java_home/bin/jlink" --add-modules java.base,java.logging,java.management,jdk.management,jdk.unsupported,java.xml,java.naming,jdk.jfr,jdk.jcmd,jdk.attach \
  --strip-debug --no-header-files --no-man-pages --compress=0 --output "$carry/jre"
tar -C "$carry" -cJf "$carry/jre.tar.xz" jre && rm -rf "$carry/jre"

cat > "$carry/run.sh" <<'RUN'
#!/usr/bin/env bash
# On the GPU machine: every ptx-test, CUDA program and driver-API C program natively and through ZLUDA-J (cuda
# backend); prints the table.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/gpu-check-out}; mkdir -p "$out/programs"
scratch=${TMPDIR:-/tmp}/zluda-gpu-check
mkdir -p "$scratch" && tar -C "$scratch" -xJf "$here/jre.tar.xz" && tar -C "$scratch" -xJf "$here/cache.tar.xz"
nvlib=$(ldconfig -p | grep -m1 'libcuda.so.1 ' | sed 's/.*=> //')
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
gcc -O1 -o "$scratch/ptxrun" "$here/ptxrun.c" -ldl
mkdir -p "$scratch/bin"
cublasdir=$(dirname "$(ls /usr/local/cuda*/targets/x86_64-linux/lib/libcublas.so.13 /usr/local/cuda/lib64/libcublas.so.13 2>/dev/null | head -1)")
ours_env=(env ZLUDA_BACKEND=cuda ZLUDA_JAVA_HOME="$scratch/jre" ZLUDA_CACHE_DIR="$scratch/cache" ZLUDA_NVIDIA_LIB="$nvlib"
          ZLUDA_NVIDIA_CUBLAS="$cublasdir" LD_LIBRARY_PATH="$here/dist/lib")
# the start-up archive, made here as the build makes it (zluda archive) but for this runtime and the cuda backend: an
# archive serves only the JVM that wrote it
if [ ! -f "$here/dist/lib/zluda.aot" ] && [ ! -f "$here/dist/lib/zluda.jsa" ]; then
  # the runtime's own class-data sharing archive, made here (carried, it would not fit the carry's size)
  [ -f "$scratch/jre/lib/server/classes.jsa" ] || "$scratch/jre/bin/java" -Xshare:dump > /dev/null 2>&1 || true
  env ZLUDA_JAVA_HOME="$scratch/jre" ZLUDA_BACKEND=cuda ZLUDA_NVIDIA_LIB="$nvlib" "$here/dist/bin/zluda" archive
fi
ours() { "${ours_env[@]}" "$@"; }  # a function: 'timeout ours' cannot run it, 'ours timeout' can; runall takes "${ours_env[@]}"
# runall OUT CMD...: ptxrun over every test folder; a kernel fault can end the process (NVIDIA's context cannot be
# made again in it), so it goes on in a new process after the test that ended it
runall() {
  local out=$1; shift; : > "$out"; : > "$out.err"
  local rest=(*/) guard=0
  while [ ${#rest[@]} -gt 0 ] && [ $guard -lt 50 ]; do
    guard=$((guard + 1))
    timeout -k 10 "${RUNALL_TIMEOUT:-300}" "$@" "${rest[@]}" >> "$out" 2>> "$out.err"
    local rc=$? last; last=$(grep '^== ' "$out" | tail -1 | cut -c4-)
    { [ $rc = 124 ] || [ $rc = 137 ]; } && echo "TIMEOUT: $last ran past ${RUNALL_TIMEOUT:-300} s" | tee -a "$out.err" >> "$scratch/timeouts"
    local next=() seen=0
    for d in "${rest[@]}"; do [ $seen = 1 ] && next+=("$d"); [ "$d" = "$last" ] && seen=1; done
    [ $seen = 1 ] || break
    rest=("${next[@]}")
  done
}
if [[ ${1:-} =~ ^ggml(-bisect|-prep|-suite|-perf|-gpt2|-gpt2-text|-gpt2-steady|-gpt2-calls|-ncu|-ab)?$ ]]; then  # ggml built here; its tests and GPT-2 natively and through ZLUDA-J
  # GGML_BUILD=default: the build of llama.cpp's default options (MMQ on, no FORCE_CUBLAS) that 'ggml-device-kit.sh
  # there' makes with GGML_DEFAULT_BUILD=1 (its device code is the same PTX: ggml-prep's cache serves both)
  g=$scratch/ggml-build; [ "${GGML_BUILD:-}" = default ] && g=$scratch/ggml-build-default
  cl=$(ls "$cublasdir"/libcublas.so.13.* | head -1); cll=$(ls "$cublasdir"/libcublasLt.so.13.* | head -1)
  t0=$(date +%s)
  logs=$out/logs; mkdir -p "$logs"  # only a few files come back from the GPU machine: ggml.md holds what matters
  # CUDA graphs on, as llama.cpp builds ggml (ggml alone defaults to off): test-backend-ops perf then replays each
  # graph after its warm-up (GGML_CUDA_GRAPHS=OFF builds without). A build an earlier call on this warm machine made
  # is used again (GGML_REBUILD=1: not).
  if [ -x "$g/bin/test-backend-ops" ] && [ -z "${GGML_REBUILD:-}" ]; then
    echo "ggml: the build of an earlier call"
  else
    GGML_CMAKE_ARGS="-DCUDA_cublas_LIBRARY=$cl -DCUDA_cublasLt_LIBRARY=$cll -DGGML_CUDA_GRAPHS=${GGML_CUDA_GRAPHS:-ON}" bash "$here/ggml/build.sh" "$here/ggml/ggml-src.tar.xz" "$g" \
      > "$logs/ggml-build.log" 2>&1 || { tail -30 "$logs/ggml-build.log" | tee "$out/ggml.md"; exit 1; }
    echo "ggml built in $(( $(date +%s) - t0 )) s"
  fi
  export CUDA_CACHE_MAXSIZE=4294967296  # NVIDIA's JIT cache (both ways compile PTX there): room for all of ggml
  names() {  # the carried kernels were renamed for this build's path: check the names
    [ -f "$here/ggml/kernels.txt" ] || return 0
    mkdir -p "$scratch/gptx" && (cd "$scratch/gptx" && cuobjdump -xptx all "$(readlink -f "$g/src/ggml-cuda/libggml-cuda.so")" > "$logs/cuobjdump.log" 2>&1)
    (cd "$scratch/gptx" && cat -- *.ptx | grep -o '\.entry [A-Za-z0-9_$]*' | cut -c8- | LC_ALL=C sort) > "$logs/ggml-kernels.gpu"
    echo "kernel names: $(wc -l < "$logs/ggml-kernels.gpu") in the GPU build, $(wc -l < "$here/ggml/kernels.txt") carried," \
      "$(LC_ALL=C comm -3 "$logs/ggml-kernels.gpu" "$here/ggml/kernels.txt" | wc -l) differ $(LC_ALL=C comm -3 "$logs/ggml-kernels.gpu" "$here/ggml/kernels.txt" | head -2)"
  }
  # the end of a run's log where it did not end well
  failed() { grep -aq ' tests passed' "$1" && ! grep -aq FAIL "$1" || { echo "--- $(basename "$1"):"; grep -a 'FAIL\|ERROR\|error\|Abort' "$1" | head -5; tail -12 "$1"; }; }
  nat() { env LD_LIBRARY_PATH="$g/src:$g/src/ggml-cuda:$cublasdir" "$@"; }
  oursg() { ours env LD_LIBRARY_PATH="$here/dist/lib:$g/src:$g/src/ggml-cuda:$cublasdir" "$@"; }
  # perf_table OP SECONDS: test-backend-ops perf for OP natively, then through ZLUDA-J, each bounded by SECONDS (the
  # cases both reached compared: us per run and native / ours, geometric mean)
  perf_table() {
    if [ -z "${GGML_PERF_PARSE_ONLY:-}" ]; then  # set: the logs of an earlier call, read again
      local p=(); [ -n "${3:-}" ] && p=(-p "$3")  # a third field of the spec: test-backend-ops' -p (a regex of the case's parameters)
      # GGML_PERF_REPEAT=N: N processes each way, alternating (the best time of each case counts: a case bound by the
      # host's calls moves with the machine's other load between two runs)
      : > "$logs/perf.native.$1"; : > "$logs/perf.ours.$1"
      for _ in $(seq 1 "${GGML_PERF_REPEAT:-1}"); do
        nat timeout "$2" "$g/bin/test-backend-ops" perf -b CUDA0 -o "$1" "${p[@]}" >> "$logs/perf.native.$1" 2>&1
        oursg timeout "$2" "$g/bin/test-backend-ops" perf -b CUDA0 -o "$1" "${p[@]}" >> "$logs/perf.ours.$1" 2>&1
      done
    fi
    python3 - "$logs/perf.native.$1" "$logs/perf.ours.$1" <<'PY'
import re, sys
def cases(path):
    found, name = {}, None  # a case's name, then (after log lines of ggml's own, on the same or later lines) its time
    for line in open(path, errors="replace"):
        m = re.match(r"\s+([A-Z0-9_]+\(.*?\)):", line)
        if m: name = m.group(1)
        t = re.search(r"\d+ runs -\s+([0-9.]+) us/run", line)
        if t and name: found[name] = min(float(t.group(1)), found.get(name, float("inf"))); name = None
    return found
nat, ours = cases(sys.argv[1]), cases(sys.argv[2])
ratios = []
for case, t in nat.items():
    o = ours.get(case)
    print("  %-90s %10.2f %10s %6s" % (case[:90], t, "%.2f" % o if o else "-", "%.2f" % (t / o) if o else "-"))
    if o: ratios.append(t / o)
op = sys.argv[1].rsplit(".", 1)[1]
if ratios:
    g = 1.0
    for r in ratios: g *= r
    print("  %s: %d of %d cases, ratio native/ours: geometric mean %.2f, min %.2f, max %.2f" % (
        op, len(ratios), len(nat), g ** (1 / len(ratios)), min(ratios), max(ratios)))
else:
    print("  %s: no case both ways (native %d, ours %d)" % (op, len(nat), len(ours)))
    for path in sys.argv[1:]:
        print("  --- " + path.rsplit("/", 1)[1] + ": " + " | ".join(l.strip()[:150] for l in open(path, errors="replace").readlines()[-4:]))
PY
  }
  if [ "$1" = ggml-prep ]; then  # every kernel of this build compiled here for this GPU, into the cache ours reads
    kit=${ZLUDA_KIT_DIR:-/tmp/zluda-kit}/lib
    ls "$kit"/llvm-*linux-x86_64.jar > /dev/null 2>&1 || { echo "ggml-prep: no LLVM in $kit (bench/ggml-compile-kit.sh unpack kit1, a call before)" | tee "$out/ggml.md"; exit 1; }
    rm -rf "$scratch/gptx" && mkdir -p "$scratch/gptx" && (cd "$scratch/gptx" && cuobjdump -xptx all "$(readlink -f "$g/src/ggml-cuda/libggml-cuda.so")" > "$logs/cuobjdump.log" 2>&1)
    sm=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .); t1=$(date +%s)
    "$scratch/jre/bin/java" -Xss8m -cp "$here/dist/lib/*:$kit/llvm-20.1.7-1.5.12.jar:$(ls "$kit"/llvm-*linux-x86_64.jar)" -Dzluda.native.dir="$here/dist/lib" \
      org.zludaj.driver.PrecompileMain "$(readlink -f "$g/src/ggml-cuda/libggml-cuda.so")" --target "sm_$sm" --cache "$scratch/cache" > "$logs/precompile.log" 2>&1
    { echo "ggml: $(ls "$scratch/gptx" | wc -l) modules, $(cat "$scratch"/gptx/*.ptx | grep -c '^\.visible \.entry\|^\.entry\|^\.weak \.entry') kernels compiled for sm_$sm in $(( $(date +%s) - t1 )) s on $(nproc) cores"
      tail -3 "$logs/precompile.log"; grep -a 'fail\|FAIL\|error' "$logs/precompile.log" | head -10; } | tee "$out/ggml.md"
    nat "$g/bin/test-backend-ops" --list-ops 2> /dev/null | sed -n 's/^  \([A-Z0-9_]*\)$/\1/p' > "$scratch/ggml-ops.txt"
    echo "ops: $(wc -l < "$scratch/ggml-ops.txt")" | tee -a "$out/ggml.md"
    exit 0
  fi
  if [ "$1" = ggml-suite ]; then  # 'run.sh ggml-suite [GROUPS]': test-backend-ops test, every op, both ways
    [ -s "$scratch/ggml-ops.txt" ] || nat "$g/bin/test-backend-ops" --list-ops 2> /dev/null | sed -n 's/^  \([A-Z0-9_]*\)$/\1/p' > "$scratch/ggml-ops.txt"
    # the ops with most cases a group each, TOP_K alone (its failure through ZLUDA-J ends the process), the others
    # dealt round-robin over the rest; GROUPS picks some ("1 3 5"; default all)
    python3 - "$scratch/ggml-ops.txt" "${GGML_SUITE_GROUPS:-12}" > "$scratch/ggml-groups.txt" <<'PY'
import sys
ops = [l.strip() for l in open(sys.argv[1]) if l.strip()]
alone = ["FLASH_ATTN_EXT", "MUL_MAT", "MUL_MAT_ID", "TOP_K", "CPY", "GET_ROWS", "SET_ROWS"]
groups = [[o] for o in alone if o in ops]
rest = [o for o in ops if o not in alone]
n = max(1, int(sys.argv[2]) - len(groups))
for i in range(n):
    groups.append(rest[i::n])
for g in groups:
    if g: print(",".join(g))
PY
    mapfile -t groups < "$scratch/ggml-groups.txt"
    pick=("$@"); pick=("${pick[@]:1}"); [ ${#pick[@]} -gt 0 ] || pick=($(seq 1 ${#groups[@]}))
    lim=${GGML_SUITE_S:-540}; t1=$(date +%s)
    for i in "${pick[@]}"; do
      ops=${groups[$((i - 1))]}
      ( a=$(date +%s); nat timeout -k 5 "$lim" "$g/bin/test-backend-ops" test -b CUDA0 -o "$ops" > "$logs/suite.native.$i" 2>&1
        echo "exit $? after $(( $(date +%s) - a )) s" >> "$logs/suite.native.$i" ) &
      ( a=$(date +%s); oursg timeout -k 5 "$lim" "$g/bin/test-backend-ops" test -b CUDA0 -o "$ops" > "$logs/suite.ours.$i" 2>&1
        echo "exit $? after $(( $(date +%s) - a )) s" >> "$logs/suite.ours.$i" ) &
    done
    wait
    { echo "ggml test-backend-ops test -b CUDA0, whole suite in ${#groups[@]} groups of ops, natively and through ZLUDA-J (cuda backend),"
      echo "both ways at once, $(( $(date +%s) - t1 )) s; per group: cases passed/run (a run cut short: OK and FAIL lines counted), exit, s"
      for i in "${pick[@]}"; do
        for who in native ours; do
          f=$logs/suite.$who.$i
          r=$(grep -ao '[0-9]*/[0-9]* tests passed' "$f" | tail -1 | cut -d' ' -f1)
          [ -n "$r" ] || r="cut: $(grep -ac '^  [A-Z0-9_]*(.*): .*OK' "$f") OK, $(grep -ac '^  [A-Z0-9_]*(.*): .*FAIL' "$f") FAIL"
          printf 'group %2d %-6s %-28s %s | %s\n' "$i" "$who" "$r" "$(tail -1 "$f")" "$(echo "${groups[$((i - 1))]}" | cut -c1-100)"
        done
      done
      for i in "${pick[@]}"; do for who in native ours; do
        n=$(grep -ac '^  [A-Z0-9_]*(.*): .*FAIL' "$logs/suite.$who.$i"); [ "$n" -gt 0 ] && { echo "--- group $i $who: $n FAIL"
          grep -a '^  [A-Z0-9_]*(.*): .*FAIL' "$logs/suite.$who.$i" | sed 's/\x1b\[[0-9;]*m//g' | head -8 | cut -c1-220; }
        grep -aq ' tests passed' "$logs/suite.$who.$i" || { echo "--- group $i $who ended early:"; tail -4 "$logs/suite.$who.$i" | cut -c1-220; }
      done; done; } 2>&1 | tee "$out/ggml-suite.md"
    tar -C "$logs" -czf "$out/suite-logs.tgz" $(cd "$logs" && ls suite.*) 2>/dev/null || true
    exit 0
  fi
  if [ "$1" = ggml-perf ]; then  # 'run.sh ggml-perf': the perf table of the ops llama.cpp's speed rests on
    # the cuda backend reports the GPU's own compute capability (ZLUDA_CC is the host's and AMD's), so ggml picks the
    # same kernels both ways (it chooses flash-attention and matrix-vector kernels by capability)
    { echo "test-backend-ops perf -b CUDA0: us per run natively and through ZLUDA-J (cuda backend), each way bounded per op"
      for spec in ${GGML_PERF:-MUL_MAT:40 MUL_MAT_ID:30 FLASH_ATTN_EXT:40 SOFT_MAX:20 ROPE:20 RMS_NORM:15 GET_ROWS:15 CPY:20}; do
        IFS=: read -r op secs params <<< "$spec"
        echo "$spec:"; perf_table "$op" "$secs" "$params"
      done; } 2>&1 | tee "$out/ggml-perf.md"
    tar -C "$logs" -czf "$out/perf-logs.tgz" $(cd "$logs" && ls perf.*) 2>/dev/null || true
    exit 0
  fi
  if [ "$1" = ggml-ab ]; then  # 'run.sh ggml-ab OP PARAMS [VAR=VALUE...]': one perf case (test-backend-ops perf -o OP
    # -p PARAMS) GGML_AB_REPEAT (3) times each way, alternating: natively, ours, and ours with the VAR=VALUEs given (a
    # switch of ours or of ggml, e.g. ZLUDA_NVIDIA_JIT=REGEX: those kernels from NVIDIA's JIT of ggml's PTX), us per run
    # of each process; then ours once under ZLUDA_PROFILE=calls (the calls that entered the JVM)
    op=$2; params=$3; shift 3; extra=("$@")
    { echo "test-backend-ops perf -b CUDA0 -o $op -p '$params': us per run, one process each, alternating (ours+: ${extra[*]:-nothing more})"
      for i in $(seq 1 "${GGML_AB_REPEAT:-3}"); do
        row="run $i:"
        for who in native ours ours+; do
          case $who in
            native) nat timeout 120 "$g/bin/test-backend-ops" perf -b CUDA0 -o "$op" -p "$params" > "$logs/ab.$who.$i" 2>&1 ;;
            ours) oursg timeout 120 "$g/bin/test-backend-ops" perf -b CUDA0 -o "$op" -p "$params" > "$logs/ab.$who.$i" 2>&1 ;;
            ours+) [ ${#extra[@]} -gt 0 ] || continue
              oursg env "${extra[@]}" timeout 120 "$g/bin/test-backend-ops" perf -b CUDA0 -o "$op" -p "$params" > "$logs/ab.$who.$i" 2>&1 ;;
          esac
          row="$row $who $(grep -ao '[0-9.]* us/run' "$logs/ab.$who.$i" | head -1 | cut -d' ' -f1 | tr '\n' ' ')"
        done
        echo "$row"
      done
      if [ -n "${GGML_AB_TIMER:-}" ]; then  # set: each way once more with every CUDA runtime call timed (bench/call_timer.c)
        gcc -O2 -shared -fPIC -o "$scratch/libcall_timer.so" "$here/call_timer.c" -ldl
        for who in nat oursg; do
          $who env LD_PRELOAD="$scratch/libcall_timer.so" CALL_TIMER_OUT="$logs/ab.timer.$who" timeout 120 "$g/bin/test-backend-ops" perf -b CUDA0 \
            -o "$op" -p "$params" > "$logs/ab.timed.$who" 2>&1
          echo "$who under call_timer: $(grep -ao '[0-9.]* us/run' "$logs/ab.timed.$who" | head -1)"; sed 's/^/  /' "$logs/ab.timer.$who"
        done
      fi
      echo "ours under ZLUDA_PROFILE=calls:"
      oursg env ZLUDA_PROFILE=calls timeout 120 "$g/bin/test-backend-ops" perf -b CUDA0 -o "$op" -p "$params" 2>&1 \
        | sed -n '/ZLUDA-J calls/,/took over/p' | head -30 | sed 's/^/  /'; } 2>&1 | tee -a "$out/ggml-ab.md"
    exit 0
  fi
  if [ "$1" = ggml-ncu ]; then  # 'run.sh ggml-ncu': each kernel's own time on the GPU (Nsight Compute), natively and ours
    # GGML_NCU="OP:PARAMS_REGEX:KERNEL_REGEX ...": test-backend-ops perf of OP's cases that PARAMS_REGEX finds, under ncu
    # for the kernels KERNEL_REGEX names, the first GGML_NCU_SKIP (200) launches of them skipped, the next
    # GGML_NCU_COUNT (60) timed (the clocks left as they are); per kernel: launches timed, mean us each way, native/ours
    { echo "ncu: each kernel's duration (gpu__time_duration.sum), natively and through ZLUDA-J (cuda backend)"
      for spec in ${GGML_NCU:-}; do
        IFS=: read -r op params kregex <<< "$spec"
        echo "$spec:"
        for who in native ours; do
          run=nat; [ $who = ours ] && run=oursg
          $run timeout 240 ncu --clock-control none --metrics gpu__time_duration.sum --csv --kernel-name "regex:$kregex" \
            --launch-skip "${GGML_NCU_SKIP:-200}" --launch-count "${GGML_NCU_COUNT:-60}" \
            "$g/bin/test-backend-ops" perf -b CUDA0 -o "$op" -p "$params" > "$logs/ncu.$who.$op" 2>&1
          echo "  $who: exit $?, $(grep -c gpu__time_duration "$logs/ncu.$who.$op") kernels timed"
        done
        python3 - "$logs/ncu.native.$op" "$logs/ncu.ours.$op" <<'PY'
import csv, io, sys
def times(path):  # kernel name -> durations in us (ncu's CSV: "Kernel Name", "Metric Name", "Metric Unit", "Metric Value")
    lines = [l for l in open(path, errors="replace") if l.startswith('"')]
    out = {}
    for row in csv.DictReader(io.StringIO("".join(lines))):
        if row.get("Metric Name") != "gpu__time_duration.sum": continue
        v = float(row["Metric Value"].replace(",", ""))
        unit = row.get("Metric Unit", "ns")
        v = v / 1000 if unit == "ns" else v * 1000 if unit == "ms" else v
        out.setdefault(row["Kernel Name"][:110], []).append(v)
    return out
nat, ours = times(sys.argv[1]), times(sys.argv[2])
for k in sorted(set(nat) | set(ours)):
    a, b = nat.get(k, []), ours.get(k, [])
    ma = sum(a) / len(a) if a else float("nan"); mb = sum(b) / len(b) if b else float("nan")
    print("  %-110s %4d %9.2f %4d %9.2f %6.2f" % (k, len(a), ma, len(b), mb, ma / mb if a and b else float("nan")))
PY
      done; } 2>&1 | tee "$out/ggml-ncu.md"
    tar -C "$logs" -czf "$out/ncu-logs.tgz" $(cd "$logs" && ls ncu.*) 2>/dev/null || true
    exit 0
  fi
  if [ "$1" = ggml-bisect ]; then  # 'run.sh ggml-bisect REGEX...': GGML_OPS's cases with NVIDIA's JIT for the kernels each names
    shift
    { names
      for p in "$here"/bin/cub_segmented_sort*; do  # CUB's segmented sort by itself, at the row lengths of TOP_K's cases
        for n in 8203 16395 65547; do
          echo "$(basename "$p") $n: native $(cd "$scratch" && timeout 60 "$p" $n 2>&1 | tail -1)," \
            "ours $(cd "$scratch" && ours timeout 120 "$p" $n 2>&1 | tail -1)"
        done
      done
      nat timeout 300 "$g/bin/test-backend-ops" test -b CUDA0 -o "${GGML_OPS:-TOP_K}" > "$logs/bisect.native" 2>&1
      echo "${GGML_OPS:-TOP_K} natively: $(grep -ao '[0-9]*/[0-9]* tests passed' "$logs/bisect.native" | tail -1)"
      i=0
      for regex in "$@"; do
        i=$((i + 1))
        [ "$regex" = none ] && regex=
        oursg env ZLUDA_NVIDIA_JIT="$regex" timeout ${GGML_BISECT_S:-300} "$g/bin/test-backend-ops" test -b CUDA0 -o "${GGML_OPS:-TOP_K}" > "$logs/bisect.$i" 2>&1; rc=$?
        echo "ZLUDA_NVIDIA_JIT='$regex': $(grep -ao '[0-9]*/[0-9]* tests passed' "$logs/bisect.$i" | tail -1)," \
          "$(grep -ac 'OK$' "$logs/bisect.$i") OK, $(grep -ac 'FAIL' "$logs/bisect.$i") FAIL, exit code $rc"
        grep -a 'FAIL' "$logs/bisect.$i" | head -3; grep -aq ' tests passed' "$logs/bisect.$i" || tail -4 "$logs/bisect.$i"
      done
    } 2>&1 | tee "$out/ggml.md"
    exit 0
  fi
  # GPT-2 124M with random weights: prompt (a long prompt, one token generated) and generation (GGML_GPT2_N tokens
  # after a one-token prompt), GGML_GPT2_RUNS times each way: the first run of a process compiles (NVIDIA's JIT of
  # ggml's compute_75 PTX natively, unless its cache has it; ZLUDA-J's kernels come from its compile cache), the later
  # ones show the steady state
  # (GGML_GPT2_TYPE: the weights' type, f16, q8_0 or q4_0)
  gpt2_table() {
    python3 "$here/ggml/gpt2-random-model.py" --type "${GGML_GPT2_TYPE:-f16}" "$scratch/gpt2.bin" > /dev/null
    # 1,371 characters, a token each in the random vocabulary: gpt-2-backend evaluates its context's 1,024 in two batches of 512
    long=$(for k in $(seq 1 60); do printf 'the quick brown fox %d ' $k; done)
    echo; echo "GPT-2 124M (random ${GGML_GPT2_TYPE:-f16} weights, greedy), gpt-2-backend -ngl 1: ms per token (predict time / tokens), run by run"
    for run in $(seq 1 "${GGML_GPT2_RUNS:-1}"); do
      for who in nat oursg; do
        $who timeout 300 "$g/bin/gpt-2-backend" -m "$scratch/gpt2.bin" -p "$long" -n 1 -ngl 1 -s 1 --top_k 1 -b 512 > "$logs/gpt2.prompt.$who" 2>&1
        $who timeout 300 "$g/bin/gpt-2-backend" -m "$scratch/gpt2.bin" -p "H" -n "${GGML_GPT2_N:-64}" -ngl 1 -s 1 --top_k 1 > "$logs/gpt2.gen.$who" 2>&1
        printf 'run %d %-8s prompt: %s | generation: %s\n' "$run" "$who" "$(grep -a 'predict time' "$logs/gpt2.prompt.$who" | sed 's/.*= *//')" \
          "$(grep -a 'predict time' "$logs/gpt2.gen.$who" | sed 's/.*= *//')"
        for k in prompt gen; do grep -aq 'predict time' "$logs/gpt2.$k.$who" || { echo "--- gpt2.$k.$who:"; tail -15 "$logs/gpt2.$k.$who"; }; done
      done
    done
    if [ -n "${GGML_GPT2_PROFILE:-}" ]; then  # set: ours' generation once more under ZLUDA_PROFILE=calls (its first evaluation's calls)
      echo "ours, generation under ZLUDA_PROFILE=calls:"
      oursg env ZLUDA_PROFILE=calls timeout 300 "$g/bin/gpt-2-backend" -m "$scratch/gpt2.bin" -p "H" -n "${GGML_GPT2_N:-64}" -ngl 1 -s 1 --top_k 1 \
        > "$logs/gpt2.profile" 2>&1
      grep -a 'predict time\|load time' "$logs/gpt2.profile" | sed 's/^/  /'
      sed 's/.*\(ZLUDA-J calls (ZLUDA_PROFILE\)/\1/' "$logs/gpt2.profile" | sed -n '/^ZLUDA-J calls/,/took over/p' | head -24 | sed 's/^/  /'
    fi
    # (ZLUDA_PROFILE's table, written at exit, follows the text on its line: not part of it)
    if [ "$(grep -a '^H' "$logs/gpt2.gen.nat")" = "$(grep -a '^H' "$logs/gpt2.gen.oursg" | sed 's/ZLUDA-J calls (ZLUDA_PROFILE.*//')" ]; then
      echo "generated text: the same natively and through ZLUDA-J"
    else echo "generated text: DIFFERS"; fi
  }
  if [ "$1" = ggml-gpt2 ]; then  # 'run.sh ggml-gpt2': the GPT-2 table alone (GGML_GPT2_RUNS=3 for the steady state)
    gpt2_table 2>&1 | tee "$out/ggml-gpt2.md"
    exit 0
  fi
  if [ "$1" = ggml-gpt2-steady ]; then  # 'run.sh ggml-gpt2-steady': GPT-2 124M's speed without a process's fixed first-evaluation
    # cost: generation (256 tokens - 32 tokens) / 224 and prompt (512 tokens - 128 tokens) / 384, each process's predict
    # time, the best of GGML_GPT2_RUNS (2) processes each way, per weight type of GGML_GPT2_TYPES (f16 q4_0); a prompt
    # of N characters is N tokens in the random model's vocabulary, 512 at most in one batch (-b 512)
    { echo "GPT-2 124M (random weights, greedy), gpt-2-backend -ngl 1, steady state: ms per token from the difference of two runs' predict time"
      printf '%-6s %-8s %12s %12s %12s %12s %14s %14s\n' type who "gen 32 ms" "gen 256 ms" "prompt 128" "prompt 512" "gen ms/token" "prompt ms/tok"
      for type in ${GGML_GPT2_TYPES:-f16 q4_0}; do
        python3 "$here/ggml/gpt2-random-model.py" --type "$type" "$scratch/gpt2.bin" > /dev/null
        p128=$(python3 -c "print(('the quick brown fox ' * 30)[:128], end='')"); p512=$(python3 -c "print(('the quick brown fox ' * 30)[:512], end='')")
        for who in nat oursg; do
          best() {  # best() ARGS...: the least predict time in ms over GGML_GPT2_RUNS processes
            local b=
            for _ in $(seq 1 "${GGML_GPT2_RUNS:-2}"); do
              $who timeout 300 "$g/bin/gpt-2-backend" -m "$scratch/gpt2.bin" -ngl 1 -s 1 --top_k 1 -b 512 "$@" > "$logs/gpt2.steady" 2>&1
              t=$(grep -a 'predict time' "$logs/gpt2.steady" | sed 's/.*= *\([0-9.]*\) ms.*/\1/')
              [ -n "$t" ] || { echo "--- no predict time:" >&2; tail -5 "$logs/gpt2.steady" >&2; t=nan; }
              b=$(python3 -c "import sys; a=[float(x) for x in sys.argv[1:] if x != 'nan']; print(min(a) if a else 'nan')" $b $t)
            done; echo "$b"; }
          g32=$(best -p H -n 32); g256=$(best -p H -n 256); q128=$(best -p "$p128" -n 1); q512=$(best -p "$p512" -n 1)
          python3 -c "import sys; t, w, a, b, c, d = sys.argv[1:]; a, b, c, d = map(float, (a, b, c, d))
print('%-6s %-8s %12.1f %12.1f %12.1f %12.1f %14.3f %14.3f' % (t, w, a, b, c, d, (b - a) / 224, (d - c) / 384))" "$type" "$who" "$g32" "$g256" "$q128" "$q512"
        done
      done; } 2>&1 | tee "$out/ggml-gpt2-steady.md"
    exit 0
  fi
  if [ "$1" = ggml-gpt2-calls ]; then  # 'run.sh ggml-gpt2-calls': where a generated token's time goes, natively and
    # through ZLUDA-J: each call ggml makes timed by bench/call_timer.c (preloaded), GPT-2 124M generating 32 and 256
    # tokens after a one-token prompt (per token: the difference / 224, without the process's first evaluation), per
    # weight type of GGML_GPT2_TYPES (q4_0 f16); then ours once more with ZLUDA_PROFILE=calls (what entered the JVM)
    gcc -O2 -shared -fPIC -o "$scratch/libcall_timer.so" "$here/call_timer.c" -ldl
    { echo "GPT-2 124M (random weights), gpt-2-backend -ngl 1 -p H: per generated token, (256 tokens - 32) / 224, each call timed (bench/call_timer.c)"
      for type in ${GGML_GPT2_TYPES:-q4_0 f16}; do
        python3 "$here/ggml/gpt2-random-model.py" --type "$type" "$scratch/gpt2.bin" > /dev/null
        for who in nat oursg; do
          for n in 32 256; do
            rm -f "$logs/calls.$type.$who.$n"
            $who env LD_PRELOAD="$scratch/libcall_timer.so" CALL_TIMER_OUT="$logs/calls.$type.$who.$n" timeout 300 "$g/bin/gpt-2-backend" \
              -m "$scratch/gpt2.bin" -p H -n "$n" -ngl 1 -s 1 --top_k 1 > "$logs/gpt2.calls.$type.$who.$n" 2>&1
          done
        done
        python3 - "$type" "$logs/calls.$type" "$logs/gpt2.calls.$type" <<'PY'
import re, sys
def table(path):  # function -> (calls, total ms, p50 us, p90 us, gap ms); the time outside -> (0, ms, 0, 0, 0)
    rows = {}
    try:
        for line in open(path, errors="replace"):
            m = re.match(r"call_timer: (\S+)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+[0-9.]+\s+([0-9.]+)", line)
            if m: rows[m.group(1)] = tuple(float(x) for x in m.groups()[1:])
            m = re.match(r"call_timer: outside the timed calls\s+([0-9.]+)", line)
            if m: rows["(outside them)"] = (0, float(m.group(1)), 0, 0, 0)
    except OSError:
        pass
    return rows
def predict(path):
    m = re.search(r"predict time =\s*([0-9.]+) ms", open(path, errors="replace").read())
    return float(m.group(1)) if m else float("nan")
t, calls, logs = sys.argv[1:4]
runs = {(w, n): table("%s.%s.%d" % (calls, w, n)) for w in ("nat", "oursg") for n in (32, 256)}
per = {w: (predict("%s.%s.256" % (logs, w)) - predict("%s.%s.32" % (logs, w))) / 224 for w in ("nat", "oursg")}
print("%s weights: ms per token natively %.3f, ours %.3f" % (t, per["nat"], per["oursg"]))
print("  %-28s | %-38s | %-38s" % ("per token", "native", "ours"))
print("  %-28s | %7s %9s %9s %11s | %7s %9s %9s %11s" % ("function", "calls", "us calls", "us gaps", "p50/p90 us", "calls", "us calls", "us gaps", "p50/p90 us"))
names = []
for r in runs.values():
    names += [n for n in r if n not in names]
for name in names:
    cells = []
    for w in ("nat", "oursg"):
        a, b = runs[(w, 32)].get(name), runs[(w, 256)].get(name)
        if not a or not b:
            cells.append("%7s %9s %9s %11s" % ("-", "-", "-", "-")); continue
        d = [(y - x) / 224 for x, y in zip(a, b)]
        cells.append("%7.1f %9.1f %9.1f %11s" % (d[0], d[1] * 1000, d[4] * 1000, "%.1f/%.1f" % (b[2], b[3]) if b[0] else ""))
    print("  %-28s | %s | %s" % (name, cells[0], cells[1]))
PY
        echo "  ZLUDA_PROFILE=calls, ours, 256 tokens:"
        oursg env ZLUDA_PROFILE=calls timeout 300 "$g/bin/gpt-2-backend" -m "$scratch/gpt2.bin" -p H -n 256 -ngl 1 -s 1 --top_k 1 \
          2>&1 | sed 's/.*\(ZLUDA-J calls (ZLUDA_PROFILE\)/\1/' | sed -n '/^ZLUDA-J calls/,/took over/p' | head -24 | sed 's/^/    /'
      done; } 2>&1 | tee "$out/ggml-gpt2-calls.md"
    exit 0
  fi
  if [ "$1" = ggml-gpt2-text ]; then  # 'run.sh ggml-gpt2-text': a tiny random GPT-2's greedy text on ggml's CPU backend,
    # natively on the GPU and through ZLUDA-J (GGML_GPT2_TEXT="TYPE:SEED ...": the weights' type and the model's seed)
    { echo "GPT-2 2 layers x 128 (random weights), 32 greedy tokens after 'Hello world, this is a test': the word where a text departs from the CPU backend's (NVIDIA_TF32_OVERRIDE ${NVIDIA_TF32_OVERRIDE:-unset})"
      for spec in ${GGML_GPT2_TEXT:-q8_0:1 q8_0:2 q4_0:3 q4_0:1 f16:1}; do
        IFS=: read -r type seed <<< "$spec"
        python3 "$here/ggml/gpt2-random-model.py" --layers 2 --embd 128 --heads 4 --ctx 128 --vocab 2048 --type "$type" --seed "$seed" \
          "$scratch/gpt2-tiny.bin" > /dev/null
        for run in cpu:nat:0 native:nat:1 ours:oursg:1; do
          IFS=: read -r who how ngl <<< "$run"
          $how timeout 300 "$g/bin/gpt-2-backend" -m "$scratch/gpt2-tiny.bin" -p "Hello world, this is a test" -n 32 -ngl "$ngl" -t 2 -s 1 \
            --top_k 1 > "$logs/gpt2-text.$type.$seed.$who" 2>&1
        done
        python3 - "$type" "$seed" "$logs/gpt2-text.$type.$seed".{cpu,native,ours} <<'PY'
import sys
def text(path):
    return next((l.rstrip("\n") for l in open(path, errors="replace") if l.startswith("Hello world, this is a test")), None)
cpu, native, ours = (text(p) for p in sys.argv[3:6])
def departs(a, b):
    if a is None or b is None: return "no text"
    wa, wb = a.split(" "), b.split(" ")
    for i, (x, y) in enumerate(zip(wa, wb)):
        if x != y: return "word %d of %d" % (i + 1, len(wa))
    return "same" if len(wa) == len(wb) else "word %d" % (min(len(wa), len(wb)) + 1)
print("%-5s seed %s: native from cpu: %-16s ours from cpu: %-16s ours from native: %s" % (
    sys.argv[1], sys.argv[2], departs(cpu, native), departs(cpu, ours), departs(native, ours)))
for who, t in (("cpu", cpu), ("native", native), ("ours", ours)): print("    %-6s %s" % (who, t))
PY
      done; } 2>&1 | tee "$out/ggml-gpt2-text.md"
    exit 0
  fi
  { names
    gpt2_table
    # speed: test-backend-ops perf per case, natively and through ZLUDA-J (us per run; ratio native / ours)
    echo; echo "test-backend-ops perf -b CUDA0: us per run natively and through ZLUDA-J"
    for op in ${GGML_PERF_OPS:-RMS_NORM GET_ROWS CPY SOFT_MAX ROPE}; do perf_table "$op" "${GGML_PERF_S:-60}"; done
    echo; echo "ggml test-backend-ops test -b CUDA0 on the GPU: cases passed natively and through ZLUDA-J (cuda backend)"
    printf '%-40s %14s %14s %8s %8s\n' ops native ours "nat s" "ours s"
    i=0
    for ops in ${GGML_OPS:-GET_ROWS,SET_ROWS,CPY,CONT,DUP,ADD,MUL,SCALE,RMS_NORM,NORM,SILU,GELU,SWIGLU,GEGLU,ARGMAX,SUM_ROWS ROPE,SOFT_MAX ARGSORT,TOP_K}; do
      i=$((i + 1))
      a=$(date +%s.%N); nat timeout 300 "$g/bin/test-backend-ops" test -b CUDA0 -o "$ops" > "$logs/ggml.native.$i" 2>&1; b=$(date +%s.%N)
      oursg timeout 400 "$g/bin/test-backend-ops" test -b CUDA0 -o "$ops" > "$logs/ggml.ours.$i" 2>&1; c=$(date +%s.%N)
      printf '%-40s %14s %14s %8.1f %8.1f\n' "$(echo "$ops" | cut -c1-40)" \
        "$(grep -ao '[0-9]*/[0-9]* tests passed' "$logs/ggml.native.$i" | tail -1 | cut -d' ' -f1)" \
        "$(grep -ao '[0-9]*/[0-9]* tests passed' "$logs/ggml.ours.$i" | tail -1 | cut -d' ' -f1)" \
        "$(awk -v x="$a" -v y="$b" "BEGIN { print y - x }")" "$(awk -v x="$b" -v y="$c" "BEGIN { print y - x }")"
      failed "$logs/ggml.native.$i"; failed "$logs/ggml.ours.$i"
    done
  } 2>&1 | tee "$out/ggml.md"
  exit 0
fi
if [ "${1:-}" = corpus ]; then  # 'run.sh corpus [COUNT [SEED]]': NVIDIA's results for the differential corpus
  k=$scratch/corpus; rm -rf "$k"; mkdir -p "$k"
  python3 "$here/fuzz_ptx.py" "$k" "${2:-20000}" "${3:-1}"
  cd "$k"; ls > "$scratch/corpus.list"; t0=$(date +%s)
  rm -f "$scratch"/corpus.part.*; split -n r/12 "$scratch/corpus.list" "$scratch/corpus.part."
  for p in "$scratch"/corpus.part.??; do
    ( mapfile -t rest < "$p"; : > "$p.out"; guard=0
      while [ ${#rest[@]} -gt 1 ] && [ $guard -lt 50 ]; do  # a fault ends a process: go on after its test
        guard=$((guard + 1)); timeout 200 "$scratch/ptxrun" "${rest[@]}" >> "$p.out" 2>> "$p.err"
        last=$(grep '^== ' "$p.out" | tail -1 | cut -c4-); next=(); seen=0
        for d in "${rest[@]}"; do [ $seen = 1 ] && next+=("$d"); [ "$d" = "$last" ] && seen=1; done
        [ $seen = 1 ] || break; rest=("${next[@]}")
      done
      [ ${#rest[@]} -eq 1 ] && { echo "== ${rest[0]}"; "$scratch/ptxrun" "${rest[0]}"; } >> "$p.out" 2>> "$p.err" ) &
  done
  wait
  echo "corpus: $(wc -l < "$scratch/corpus.list") kernels natively in $(( $(date +%s) - t0 )) s"
  python3 "$here/fuzz_corpus.py" record "$k" "$out/fuzz-corpus.tsv.gz" "$out/fuzz-values.txt.gz" 500 "$scratch"/corpus.part.??.out
  exit 0
fi
if [ "${1:-}" = forms ]; then  # one kernel per instruction form, natively and through ZLUDA-J: the forms that differ
  f=$scratch/forms; rm -rf "$f"; python3 "$here/forms_ptx.py" "$f" 300000 4 > /dev/null; cd "$f"
  runall "$scratch/forms.native" "$scratch/ptxrun"
  runall "$scratch/forms.ours" "${ours_env[@]}" "$scratch/ptxrun"
  gzip -c "$scratch/forms.native" > "$out/forms-native.txt.gz"
  python3 "$here/fuzz_corpus.py" diff "$f/forms.txt" "$scratch/forms.native" "$scratch/forms.ours" | tee "$out/forms.md"
  exit 0
fi
if [ "${1:-}" = dirs ]; then  # 'run.sh dirs DIR [CACHE_TGZ]': DIR's test folders natively and through ZLUDA-J (their
  # kernels precompiled here into CACHE_TGZ, a tar.gz of a cache folder: zluda precompile DIR --target sm_90 --cache C)
  [ -n "${3:-}" ] && tar -C "$scratch/cache" --strip-components=1 -xzf "$3"
  cd "$2" && runall "$out/dirs.native" "$scratch/ptxrun" && runall "$out/dirs.ours" "${ours_env[@]}" "$scratch/ptxrun"
  python3 "$here/fuzz_corpus.py" classify "$out/dirs.native" "$out/dirs.ours"
  exit 0
fi
if [ "${1:-}" = cublas-graphs ]; then  # 'run.sh cublas-graphs [N]': c/cublas_graphs.c natively and through ZLUDA-J (cuBLAS
  # captured in a graph and replayed; then an N^3 f16 GEMM, 4096 by default, replayed and called directly: us each)
  gcc -O1 -o "$scratch/bin/cublas_graphs" "$here/cublas/cublas_graphs.c" -L"$cublasdir" -l:libcublas.so.13 "$nvlib" -lm -Wl,-rpath,"$cublasdir"
  echo "native:"; (cd "$scratch" && timeout 60 ./bin/cublas_graphs "${2:-4096}"); echo "exit $?"
  echo "ours:"; (cd "$scratch" && ours timeout 120 ./bin/cublas_graphs "${2:-4096}"); echo "exit $?"
  exit 0
fi
if [ "${1:-}" = cublas-interleaved ]; then  # 'run.sh cublas-interleaved': what one GEMM costs its caller between other
  # stream work (ggml's pattern; here device-to-device copies) and in a loop: natively, through ZLUDA-J, and through
  # ZLUDA-J with ZLUDA_DIRECT_LAUNCH=0 (every copy and GEMM through the JVM; under ZLUDA_PROFILE=calls the library's own
  # time per call is printed too)
  gcc -O2 -o "$scratch/bin/cublas_interleaved" "$here/cublas/cublas_interleaved.c" -L"$cublasdir" -l:libcublas.so.13 "$nvlib" -Wl,-rpath,"$cublasdir"
  for k in 8 0; do
    echo "native, K=$k:"; (cd "$scratch" && timeout 60 ./bin/cublas_interleaved $k 20000)
    echo "ours, K=$k:"; (cd "$scratch" && ours timeout 60 ./bin/cublas_interleaved $k 20000)
    echo "ours, every call through the JVM, K=$k:"
    (cd "$scratch" && ours env ZLUDA_DIRECT_LAUNCH=0 ZLUDA_PROFILE=calls timeout 60 ./bin/cublas_interleaved $k 20000 2>&1 |
      grep -E 'calls  p50|inside the library|rounds')
  done
  exit 0
fi
if [ "${1:-}" = repeat ]; then  # 'run.sh repeat PROGRAM [N]': c/PROGRAM.c once natively, N times (8) through ZLUDA-J with
  # debug logs; the last lines of each run, and any JVM crash report (hs_err) comes back: an intermittent failure's trace
  cd "$out" && gcc -O1 -o "$scratch/bin/$2" "$here/c/$2.c" "$nvlib" -lpthread || exit 1
  "$scratch/bin/$2" > "$2.native" 2>&1; echo "native: exit $?: $(tail -1 "$2.native")"
  for i in $(seq 1 "${3:-8}"); do
    ours env ZLUDA_LOG=debug "$scratch/bin/$2" > "$2.ours.$i" 2>&1; echo "ours $i: exit $?: $(tail -1 "$2.ours.$i")"
  done
  ls hs_err_pid*.log 2>/dev/null
  exit 0
fi
# runsplit OUT CMD...: runall's work over 16 processes at once (each a sixteenth of the folders), outputs joined in OUT
runsplit() {
  local out=$1; shift; local base; base=$(pwd)
  local sd; sd="$scratch/split.$(basename "$out")"  # per run: a process's .err (timeouts, traces) stays to read
  rm -rf "$sd" && mkdir -p "$sd"
  ls -d */ | split -n r/16 - "$sd/part."
  for p in "$sd"/part.??; do
    ( mkdir -p "$p.d" && while read -r d; do d=${d%/}; ln -s "$base/$d" "$p.d/$d"; done < "$p"
      cd "$p.d" && runall "$p.out" "$@" ) &
  done
  wait
  cat "$sd"/part.??.out > "$out"; cat "$sd"/part.??.out.err > "$out.err" 2>/dev/null || true
}
if [ "${1:-}" = corpus-ours ]; then  # 'run.sh corpus-ours [COUNT [FIRST]]': the corpus's kernels FIRST (default 0) to
  # COUNT-1 through ZLUDA-J and natively (20,000 compiled as they load take longer than one device call: run them in
  # parts, or unpack the ggml kit a call before, which compiles them here first)
  k=$scratch/corpus; rm -rf "$k"; python3 "$here/fuzz_ptx.py" "$k" "${2:-2000}" 1 > /dev/null; cd "$k"
  ls | head -n "${3:-0}" | xargs -r rm -rf
  kit=${ZLUDA_KIT_DIR:-/tmp/zluda-kit}/lib  # with the ggml kit's LLVM unpacked (a call before): the kernels the carried
  if ls "$kit"/llvm-*linux-x86_64.jar > /dev/null 2>&1; then  # cache lacks are compiled here first, on every core
    t0=$(date +%s)
    "$scratch/jre/bin/java" -Xss8m -cp "$here/dist/lib/*:$kit/llvm-20.1.7-1.5.12.jar:$(ls "$kit"/llvm-*linux-x86_64.jar)" -Dzluda.native.dir="$here/dist/lib" \
      org.zludaj.driver.PrecompileMain "$k" --target "sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)" \
      --cache "$scratch/cache" > "$scratch/precompile-corpus.log" 2>&1
    echo "corpus: compiled here in $(( $(date +%s) - t0 )) s: $(tail -1 "$scratch/precompile-corpus.log")" | tee "$out/corpus-compile.txt"
  fi
  t0=$(date +%s)
  runsplit "$scratch/corpus.ours" "${ours_env[@]}" "$scratch/ptxrun"
  echo "corpus: $(ls | wc -l) kernels through ZLUDA-J in $(( $(date +%s) - t0 )) s (16 processes)" | tee "$out/corpus-time.txt"
  python3 "$here/fuzz_corpus.py" check "$here/../ptx-tests/src/test/fuzz/nvidia-h100.tsv.gz" "$here/../ptx-tests/src/test/fuzz/nvidia-h100-values.txt.gz" "$k" "$scratch/corpus.ours" \
    | tee "$out/corpus-ours.md" || true
  # the same kernels natively here, to tell NaN-payload differences from others (values beyond the kept 500)
  t0=$(date +%s)
  runsplit "$scratch/corpus.native" "$scratch/ptxrun"
  echo "corpus: natively in $(( $(date +%s) - t0 )) s (16 processes)" | tee -a "$out/corpus-time.txt"
  python3 "$here/fuzz_corpus.py" classify "$scratch/corpus.native" "$scratch/corpus.ours" "$out/corpus-other.txt" | tee -a "$out/corpus-ours.md"
  exit 0
fi
if [ "${1:-}" = graph-once ]; then  # a graph of many kernels made, run and updated once (bench/graph_once.c), both ways
  gcc -O2 -o "$scratch/graph_once" "$here/graph_once.c" -ldl
  # GRAPH_ONCE_RUNS processes each way, alternating; natively also the graph made node by node (cuGraphAddKernelNode)
  { for i in $(seq "${GRAPH_ONCE_RUNS:-2}"); do
      for n in ${GRAPH_ONCE_N:-65520 4096}; do
        echo "== $n nodes, native, process $i"; (cd "$scratch" && timeout 120 ./graph_once "$n" 3) 2>&1
        echo "== $n nodes, native node by node, process $i"; (cd "$scratch" && GRAPH_ONCE_BUILD=add timeout 120 ./graph_once "$n" 3) 2>&1
        echo "== $n nodes, ZLUDA-J, process $i"; (cd "$scratch" && ours timeout 200 ./graph_once "$n" 3) 2>&1
      done
    done; } | tee "$out/graph-once.txt"
  exit 0
fi
if [ "${1:-}" = overhead ]; then  # the driver's own cost (bench/driver_overhead.c), natively and through ZLUDA-J, twice each
  gcc -O2 -o "$scratch/driver_overhead" "$here/driver_overhead.c" -ldl
  # OVERHEAD_RUNS processes each way, alternating (NVIDIA's own times vary from process to process); each row's best
  for i in $(seq "${OVERHEAD_RUNS:-3}"); do  # ours: upcall stubs where the runtime has them; jni: ZLUDA_UPCALLS=0
    (cd "$scratch" && timeout 120 ./driver_overhead > "$scratch/overhead.native$i" 2>&1)
    (cd "$scratch" && ours timeout 200 ./driver_overhead > "$scratch/overhead.ours$i" 2>&1)
    [ "$i" -le 2 ] && (cd "$scratch" && ours ZLUDA_UPCALLS=0 timeout 200 ./driver_overhead > "$scratch/overhead.jni$i" 2>&1)
    # every launch through the JVM, as before the shim repeated them (shim/launch.c)
    [ "$i" -le 2 ] && (cd "$scratch" && ours ZLUDA_DIRECT_LAUNCH=0 timeout 200 ./driver_overhead > "$scratch/overhead.jvm$i" 2>&1)
  done
  for f in "$scratch"/overhead.*; do echo "$(basename "$f"): $(tail -1 "$f")"; done
  # the start alone, 10 processes each way alternating: natively, ours, and ours over a fake NVIDIA driver whose cuInit
  # returns at once (ZLUDA-J's own start: the JVM and the driver; NVIDIA's cuInit runs beside it in the real one)
  gcc -O1 -shared -fPIC -o "$scratch/libfake_nvidia.so" "$here/../ptx-tests/src/test/c/fake_nvidia.c"
  for i in $(seq 10); do
    (cd "$scratch" && DRIVER_OVERHEAD_ONLY=start timeout 60 ./driver_overhead) >> "$scratch/start.native" 2>&1
    (cd "$scratch" && DRIVER_OVERHEAD_ONLY=start ours ZLUDA_START_TRACE=1 timeout 60 ./driver_overhead) >> "$scratch/start.ours" 2>&1
    (cd "$scratch" && DRIVER_OVERHEAD_ONLY=start ours ZLUDA_NVIDIA_LIB="$scratch/libfake_nvidia.so" timeout 60 ./driver_overhead) >> "$scratch/start.fake" 2>&1
  done
  (cd "$scratch" && DRIVER_OVERHEAD_ONLY=start ZLUDA_LOG=debug ours timeout 60 ./driver_overhead) > "$out/start-phases.txt" 2>&1
  for k in native ours fake; do
    echo "start ($k, ms from main to the first cuInit, 10 processes): $(grep '^start' "$scratch/start.$k" | awk '{print $2}' | sort -n | \
      awk '{v[NR]=$1} END {printf "best %.1f, median %.1f, worst %.1f", v[1], (v[int((NR+1)/2)]+v[int(NR/2)+1])/2, v[NR]}')"
  done | tee "$out/start.md"
  # where ours went (ZLUDA_START_TRACE=1, ms from the first call): NVIDIA's cuInit on the shim's thread, the JVM, the driver
  sed -n 's/.*JVM created \([0-9.]*\), driver started \([0-9.]*\); NVIDIA.s library loaded \([0-9.]*\), its cuInit done \([0-9.]*\).*/jvm \1 driver \2 nvlib \3 nvinit \4/p' \
    "$scratch/start.ours" | tee -a "$out/start.md"
  grep -h '^ZLUDA-J start:' "$scratch/start.ours" | tee -a "$out/start.md"  # the Java side's phases, per process
  python3 - "$scratch" <<'PY' | tee "$out/overhead.md"
import glob, sys
def best(kind):
    b = {}
    for path in glob.glob("%s/overhead.%s?" % (sys.argv[1], kind)):
        for line in open(path, errors="replace"):
            w = line.split()
            if len(w) == 3:
                try: v = float(w[1])
                except ValueError: continue
                b[w[0]] = (min(v, b[w[0]][0]) if w[0] in b else v, w[2])
    return b
nat, ours, jni, jvm = best("native"), best("ours"), best("jni"), best("jvm")
print("| measurement | native | ZLUDA-J (cuda backend) | ours / native | ZLUDA-J, JNI only (ZLUDA_UPCALLS=0) | ZLUDA-J, launches through the JVM (ZLUDA_DIRECT_LAUNCH=0) |")
print("|---|---|---|---|---|---|")
for k, (v, unit) in nat.items():
    o, j, m = ours.get(k), jni.get(k), jvm.get(k)
    print("| %s | %.2f %s | %s | %s | %s | %s |" % (k, v, unit, "%.2f %s" % (o[0], unit) if o else "-", "%.2f" % (o[0] / v) if o and v else "-",
                                          "%.2f %s" % (j[0], unit) if j else "-", "%.2f %s" % (m[0], unit) if m else "-"))
PY
  exit 0
fi
if [ "${1:-}" = launches ]; then  # asynchronous launches alone, many processes each way alternating (NVIDIA's own cost
  # moves by more than ours between processes): natively, ours, ours with every launch through the JVM, ours over the
  # fake driver (ZLUDA-J's own cost), and the first two pinned to one core; best and median of LAUNCH_RUNS processes
  gcc -O2 -o "$scratch/driver_overhead" "$here/driver_overhead.c" -ldl
  gcc -O1 -shared -fPIC -o "$scratch/libfake_nvidia.so" "$here/../ptx-tests/src/test/c/fake_nvidia.c"
  : > "$scratch/launches.txt"
  for i in $(seq "${LAUNCH_RUNS:-6}"); do
    for kind in native ours jvm fake native-pinned ours-pinned; do
      case $kind in
        native) r=(env) ;;
        ours) r=("${ours_env[@]}") ;;
        jvm) r=("${ours_env[@]}" ZLUDA_DIRECT_LAUNCH=0) ;;
        fake) r=("${ours_env[@]}" ZLUDA_NVIDIA_LIB="$scratch/libfake_nvidia.so") ;;
        native-pinned) r=(taskset -c 5) ;;
        ours-pinned) r=("${ours_env[@]}" taskset -c 5) ;;
      esac
      echo "$kind $(cd "$scratch" && DRIVER_OVERHEAD_ONLY=launch "${r[@]}" timeout 60 ./driver_overhead 2>&1 | grep '^launch ')" >> "$scratch/launches.txt"
    done
  done
  python3 - "$scratch/launches.txt" <<'PY' | tee "$out/launches.md"
import collections, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    w = line.split()
    if len(w) == 4 and w[1] == "launch": d[w[0]].append(float(w[2]))
nat = statistics.median(d["native"]) if d["native"] else 0
print("| asynchronous launch, us | processes | best | median | worst | median / native's |")
print("|---|---|---|---|---|---|")
for k, v in d.items():
    v.sort()
    m = statistics.median(v)
    print("| %s | %d | %.2f | %.2f | %.2f | %s |" % (k, len(v), v[0], m, v[-1], "%.2f" % (m / nat) if nat else "-"))
PY
  exit 0
fi
if [ "${1:-}" = cublas ]; then  # only the cuBLAS benchmark (ours against NVIDIA's natively)
  gcc -O2 -o "$scratch/cublas_bench" "$here/cublas/cublas_bench.c" -L"$cublasdir" -l:libcublas.so.13 "$nvlib" -ldl -Wl,-rpath,"$cublasdir"
  # three processes each, alternating: NVIDIA's small GEMMs are bound by its own per-call CPU work, which varies
  # from process to process; each row's best of the three
  # (native64: NVIDIA's _64 entry points called natively, which cost more a call than those applications call)
  for i in 1 2 3; do
    (cd "$scratch" && timeout 120 ./cublas_bench > "$out/cublas_bench.native$i" 2>&1)
    (cd "$scratch" && ours timeout 300 ./cublas_bench > "$out/cublas_bench.ours$i" 2>&1)
    (cd "$scratch" && CUBLAS_BENCH_64=1 timeout 120 ./cublas_bench > "$out/cublas_bench.native64$i" 2>&1)
  done
  best() { cat "$out"/cublas_bench.$1? | awk '/GEMM/ { k = $1 " " $2; if (!(k in b) || $3 > b[k]) { b[k] = $3; u[k] = $6 } }
                                              END { for (k in b) print k, b[k], u[k] }' | sort; }
  { echo "cuBLAS through ZLUDA-J (cuda backend, NVIDIA's cuBLAS underneath) and NVIDIA's natively, best of 3 processes each:"
    printf '%-16s %-6s %12s %10s %12s %10s %7s\n' "m x n x k" op "ours GF/s" "ours us" "native GF/s" "native us" ratio
    join <(best ours | sed 's/ /_/') <(best native | sed 's/ /_/') | sed 's/_/ /' | \
      awk '{ printf "%-16s %-6s %12.1f %10.2f %12.1f %10.2f %7.2f\n", $1, $2, $3, $4, $5, $6, $3 / $5 }'
    echo "NVIDIA's _64 entry points natively (cublasSgemm_v2_64, cublasGemmEx_64), best of 3:"
    best native64; } | tee "$out/cublas.md"
  exit 0
fi
cd "$here/ptx"
t0=$(date +%s.%N); runall "$out/native_ptx.txt" "$scratch/ptxrun"; t1=$(date +%s.%N)
runall "$out/ours_ptx.txt" env ZLUDA_LOG=debug ZLUDA_BACKEND=cuda ZLUDA_JAVA_HOME="$scratch/jre" ZLUDA_CACHE_DIR="$scratch/cache" \
  ZLUDA_NVIDIA_LIB="$nvlib" LD_LIBRARY_PATH="$here/dist/lib" "$scratch/ptxrun"; t2=$(date +%s.%N)
for c in "$here"/c/*.c; do  # linked with NVIDIA's libcuda.so.1 by path; ours replaces it through LD_LIBRARY_PATH
  gcc -O1 -o "$scratch/bin/$(basename "$c" .c)" "$c" "$nvlib" -lpthread
done
for c in cublas_calls cublaslt_calls cublas_graphs; do  # NVIDIA's cuBLAS by RUNPATH natively; ours first through LD_LIBRARY_PATH
  gcc -O1 -o "$scratch/bin/$c" "$here/cublas/$c.c" -L"$cublasdir" -l:libcublas.so.13 -l:libcublasLt.so.13 "$nvlib" -lm \
    -Wl,-rpath,"$cublasdir"
done
gcc -O2 -o "$scratch/cublas_bench" "$here/cublas/cublas_bench.c" -L"$cublasdir" -l:libcublas.so.13 "$nvlib" -ldl -Wl,-rpath,"$cublasdir"
(cd "$scratch" && timeout 120 ./cublas_bench > "$out/cublas_bench.native" 2>&1)
(cd "$scratch" && ours timeout 300 ./cublas_bench > "$out/cublas_bench.ours" 2>&1)
progs=("$here"/bin/* "$scratch"/bin/*)
[ "${1:-}" = ptx ] && progs=()  # 'run.sh ptx': the ptx-tests and the cuBLAS benchmark only (a shorter call)
for p in "${progs[@]}"; do
  n=$(basename "$p"); args=; [ "$n" = printf ] && args=sync
  case $n in cub_segmented_sort*) args=16395 ;; cublas_graphs) args=4096 ;; esac  # cublas_graphs: and the time of a 4096^3 f16 GEMM replayed  # the row length of ggml's TOP_K case that failed on the GPU
  (cd "$scratch" && LD_LIBRARY_PATH="$cublasdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timeout 60 "$p" $args > "$out/programs/$n.native" 2>&1
   echo "exit $?" >> "$out/programs/$n.native")
  (cd "$scratch" && ours timeout 120 "$p" $args > "$out/programs/$n.ours" 2>&1; echo "exit $?" >> "$out/programs/$n.ours")
done
python3 "$here/compare.py" "$here/ptx" "$out/native_ptx.txt" "$out/ours_ptx.txt" "$out/programs" "$out/nvidia-checked.txt" \
  "$(head -1 "$out/gpu.txt" 2>/dev/null), $(date -u +%Y-%m-%d)" | tee "$out/table.md"
{ echo; echo "cuBLAS through ZLUDA-J (cuda backend, NVIDIA's cuBLAS underneath) against NVIDIA's cuBLAS natively, GFLOP/s:"
  printf '%-16s %-6s %12s %12s %8s\n' "m x n x k" op ours native ratio
  paste <(grep -E 'GEMM' "$out/cublas_bench.ours") <(grep -E 'GEMM' "$out/cublas_bench.native") | \
    awk '{ printf "%-16s %-6s %12.1f %12.1f %8.2f\n", $1, $2, $3, $10, $3 / $10 }'; } | tee -a "$out/table.md"
awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { printf "ptx-tests wall time: native %.1f s, ours %.1f s\n", b - a, c - b }' | tee -a "$out/table.md"
echo "ptx-tests through ZLUDA-J: $(grep -c 'from the compile cache' "$out/ours_ptx.txt.err") modules from the cache, $(grep -c 'compiled .* for sm_' "$out/ours_ptx.txt.err") compiled on the GPU machine" | tee -a "$out/table.md"
RUN
chmod +x "$carry/run.sh"
du -sh "$carry" | sed 's/^/gpu-check: carry /'
echo "gpu-check: now run 'bash .device-carry/run.sh' on the GPU machine (device tool, carry .device-carry)"
