#!/usr/bin/env bash
# On the GPU machine: the ptxrun folders (kernel.ptx, test.txt) of a tar.xz run natively by 16 processes at once, split
# as run.sh corpus-ours splits the corpus; all outputs, xz-compressed, to $OUT/NAME.out.xz. For A/B checks of our
# NVPTX (folders of 'zluda compile --target sm_90' output from two compilers, and NVIDIA's own PTX) and for hangs: a
# process past T seconds (default 60) is killed and named with the test it was running.
#   bash native_dirs.sh FOLDERS.tar.xz PTXRUN_C     (PTXRUN_JIT_O=N: NVIDIA's JIT at -ON)
set -u
tarball=$(readlink -f "$1"); out=${OUT:-/tmp/native-dirs}; mkdir -p "$out"
gcc -O1 -o /tmp/ptxrun-native "$2" -ldl
k=/tmp/native-dirs.k; rm -rf $k; mkdir -p $k; tar -C $k -xJf "$tarball"; cd $k || exit 1
sd=/tmp/native-dirs.split; rm -rf $sd; mkdir -p $sd; ls -d */ | split -n r/16 - "$sd/part."
t0=$(date +%s); pids=()
for p in "$sd"/part.??; do
  ( mkdir -p "$p.d" && while read -r d; do d=${d%/}; ln -s "$k/$d" "$p.d/$d"; done < "$p"; cd "$p.d"
    set -- */; [ $# -eq 1 ] && set -- "$1" "$1"  # ptxrun names its tests only when given several
    timeout -k 10 "${T:-60}" /tmp/ptxrun-native "$@" > "$p.out" 2> "$p.err"; echo "rc=$? last=$(grep '^== ' "$p.out" | tail -1)" > "$p.rc" ) &
  pids+=($!)
done
wait "${pids[@]}"
name=$(basename "$tarball" .tar.xz)
echo "$name natively${PTXRUN_JIT_O:+ (JIT -O$PTXRUN_JIT_O)}: $(( $(date +%s) - t0 )) s; $(cat $sd/*.out | grep -c '^== ') kernels run"
for p in $sd/part.??; do echo "$(basename $p): $(cat $p.rc)"; done | grep -v 'rc=0'  # a timeout names its test
cat $sd/part.??.out | xz > "$out/$name.out.xz"
