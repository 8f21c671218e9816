"""What NVIDIA's ptxas and ZLUDA-J's front end say of a set of PTX files (tools/ptxas_accept_diff.py and
tools/ptxas_operand_sweep.py): ptxas -arch=sm_90 per file, ZLUDA-J in one JVM for all (`zluda compile --target sm_90`;
ZLUDA_DIST names another distribution than the checkout's dist/, so that a rebuild does not disturb a long run)."""
import os, re, subprocess

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def ptxas(names, scratch):
    """{file: (accepted, first line of ptxas's message)}"""
    out = {}
    for n in names:
        r = subprocess.run(["ptxas", "-arch=sm_90", n, "-o", os.path.join(scratch, "x.cubin")], capture_output=True, text=True)
        out[n] = (r.returncode == 0, (r.stderr.strip().splitlines() or [""])[0])
    return out


def zluda(names):
    """{file: ZLUDA-J's first message} for the files it refuses"""
    dist = os.environ.get("ZLUDA_DIST", os.path.join(root, "dist"))
    r = subprocess.run([os.path.join(dist, "bin/zluda"), "compile", *names, "--target", "sm_90", "--suffix", ".sm"],
                       capture_output=True, text=True)
    out = {}
    for line in r.stderr.splitlines():
        m = re.match(r"^(\S+\.ptx): (.*)$", line)
        if m and m.group(1) not in out:
            out[m.group(1)] = m.group(2)
    return out


def available(tool):
    """Whether ptxas is on PATH; says so for TOOL where it is not."""
    import shutil
    if shutil.which("ptxas"):
        return True
    print("%s: ptxas not on PATH (the CUDA toolkit): skipped" % tool)
    return False


def write(texts, keep, prefix):
    """The PTX TEXTS as m00000.ptx... in KEEP or a new temporary folder: (folder, file names)."""
    import tempfile
    d = keep or tempfile.mkdtemp(prefix=prefix)
    os.makedirs(d, exist_ok=True)
    names = []
    for k, text in enumerate(texts):
        names.append(os.path.join(d, "m%05d.ptx" % k))
        open(names[-1], "w").write(text)
    return d, names


def arguments(argv):
    """The tools' command line: (positional arguments, --keep DIR or None, --from DIR or None)."""
    valued = ("--keep", "--from")
    positional = [a for k, a in enumerate(argv[1:], 1) if not a.startswith("--") and argv[k - 1] not in valued]
    keep, base = (argv[argv.index(f) + 1] if f in argv else None for f in valued)
    return positional, keep, base


def finish(folder, keep):
    """Removes the mutants' folder unless it was asked to be kept."""
    import shutil
    if not keep:
        shutil.rmtree(folder)
