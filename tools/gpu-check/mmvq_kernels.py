#!/usr/bin/env python3
"""ggml's matrix-vector kernels (mul_mat_vec_q, one column) timed alone on the GPU: NVIDIA's JIT of ggml's PTX against
our NVPTX of it, per weight type, in one short device call.

  mmvq_kernels.py GPTX_DIR OUT_DIR [--old LIB_DIR]

GPTX_DIR holds a ggml build's PTX (cuobjdump -xptx all libggml-cuda.so). For each of ten weight types (q4_0 ... q6_K)
OUT_DIR/cases/TYPE/{native,ours[,old]} gets the kernel's PTX (ggml's alone; ours from dist/bin/zluda compile; old from
the jars in LIB_DIR, an earlier compiler) and a ptxrun test.txt for 4096 rows of 14,336 weights (test-backend-ops'
MUL_MAT n=1 perf shape; random blocks), timed over 2,000 launches. OUT_DIR/time.sh, run on the GPU machine beside
ptxrun.c (copy ptx-tests/src/test/c/ptxrun.c into OUT_DIR), prints the median us per way and native/ours."""
import glob, os, re, subprocess, sys

TYPES = {2: ("q4_0", 32, 18), 3: ("q4_1", 32, 20), 6: ("q5_0", 32, 22), 7: ("q5_1", 32, 24), 8: ("q8_0", 32, 34),
         10: ("q2_K", 256, 84), 11: ("q3_K", 256, 110), 12: ("q4_K", 256, 144), 13: ("q5_K", 256, 176), 14: ("q6_K", 256, 210)}
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TIME_SH = r"""#!/usr/bin/env bash
# made by tools/gpu-check/mmvq_kernels.py: each way's median us over ROUNDS interleaved rounds of ptxrun's `time 2000`
cd "$(dirname "$0")"; gcc -O2 -o ptxrun ptxrun.c -ldl || exit 1
R=${ROUNDS:-5}; ways=$(cd "$(ls -d cases/*/ | head -1)" && ls -d */ | tr -d / | tr '\n' ' ')
for r in $(seq 1 $R); do for c in cases/*; do for w in $ways; do ./ptxrun $c/$w > $c/$w.out.$r 2>&1; done; done; done
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "type $ways (us) native/each"
for c in cases/*; do
  line="$(basename $c)"; declare -A m
  for w in $ways; do m[$w]=$(for r in $(seq 1 $R); do grep -o 'time [^ ]* [0-9]* [0-9.]*' $c/$w.out.$r | awk '{print $4}'; done | med); line="$line ${m[$w]}"; done
  for w in $ways; do [ $w = native ] || line="$line $w $(awk "BEGIN {printf \"%.3f\", ${m[native]} / ${m[$w]}}")"; done
  echo "$line"
done
"""


def kernel_text(gptx, number):
    name = f"_Z13mul_mat_vec_qIL9ggml_type{number}ELi1ELb0ELb0ELb0EEvPKvS2_PKi31ggml_cuda_mm_fusion_args_devicePfj5uint3jjjS7_jjjS7_jjjj"
    for f in sorted(glob.glob(os.path.join(gptx, "*.ptx"))):
        t = open(f).read()
        i = t.find(".entry " + name + "(")
        if i < 0:
            continue
        start = t.rfind("\n", 0, i) + 1
        m = re.compile(r"\n(?:\.visible |\.weak )?\.(?:entry|func) ").search(t, i + 10)
        end = t.rfind("\n}", 0, m.start() if m else len(t)) + 3
        head = "\n".join(l for l in t[:4000].split("\n") if l.startswith((".version", ".target", ".address_size")))
        return name, head + "\n" + t[start:end]
    return None, None


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    gptx, out = sys.argv[1], sys.argv[2]
    old = sys.argv[sys.argv.index("--old") + 1] if "--old" in sys.argv else None
    for number, (tname, qk, size) in TYPES.items():
        name, text = kernel_text(gptx, number)
        if name is None:
            print(f"{tname}: not in {gptx}")
            continue
        warps = int(re.search(r"\.maxntid (\d+)", text).group(1)) // 32
        spec = (f"kernel {name}\ngrid 4096 1 1\nblock 32 {warps} 1\nbuffer W u8 {4096 * (14336 // qk) * size} random 7\n"
                "buffer Y u8 16128 random 9\nbuffer D f32 4096 zero\nparam buffer W\nparam buffer Y\nparam u64 0\nparam zero 48\n"
                f"param buffer D\nparam u32 14336\nparam u32s 1 0 1\nparam u32 {14336 // qk}\nparam u32 448\nparam u32 4096\n"
                "param u32s 1 0 1\nparam u32 0\nparam u32 0\nparam u32 0\nparam u32s 1 0 1\nparam u32 0\nparam u32 0\n"
                "param u32 0\nparam u32 0\ntime 2000\noutput D\n")
        ways = ["native", "ours"] + (["old"] if old else [])
        for w in ways:
            os.makedirs(os.path.join(out, "cases", tname, w), exist_ok=True)
            open(os.path.join(out, "cases", tname, w, "test.txt"), "w").write(spec)
        native = os.path.join(out, "cases", tname, "native", "kernel.ptx")
        open(native, "w").write(text)
        subprocess.run([os.path.join(ROOT, "dist", "bin", "zluda"), "compile", native, "--target", "sm_90", "-o",
                        os.path.join(out, "cases", tname, "ours", "kernel.ptx")], check=True)
        if old:
            subprocess.run(["java", "-cp", os.path.join(old, "*"), "-Dzluda.native.dir=" + os.path.join(ROOT, "dist", "lib"),
                            "org.zludaj.ptx.CompileMain", native, "--target", "sm_90", "-o",
                            os.path.join(out, "cases", tname, "old", "kernel.ptx")], check=True)
        print(f"{tname}: {name[:40]}..., block 32x{warps}")
    open(os.path.join(out, "time.sh"), "w").write(TIME_SH)
    os.chmod(os.path.join(out, "time.sh"), 0o755)


if __name__ == "__main__":
    main()
