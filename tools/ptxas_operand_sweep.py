#!/usr/bin/env python3
"""Operand sweep of the PTX front end against NVIDIA's ptxas (issue 19: bad input gets NVIDIA's answer).

Samples one instruction from each of a FRACTION of the ptx-tests' kernels and replaces each of its operands in turn by
registers of other types (.b64, .f32, .b16, .pred, .f64, declared for the purpose) and by constants (an integer and the
float 0f3F800000), then asks ptxas (-arch=sm_90) and ZLUDA-J (`dist/bin/zluda compile --target sm_90`, one JVM for all)
whether each mutant is valid PTX, and prints every mutant that one accepts and the other refuses, with the other's
message. Where tools/ptxas_accept_diff.py mutates tokens at random, this one asks about operand types systematically.

    tools/ptxas_operand_sweep.py [FRACTION] [SEED] [--keep DIR] [--from DIR]   (needs ptxas on PATH and a built
                                              dist/; ZLUDA_DIST names another distribution)

--from DIR samples the .ptx files under DIR instead (the differential corpus: tools/gpu-check/fuzz_ptx.py DIR N).
"""
import glob, os, random, re, sys

import ptxas_verdicts

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INSTRUCTION = re.compile(r"^(\s*(?:@!?%\w+\s+)?)([a-z][\w.:]*)\s+(.*);\s*$")
SKIP = ("ld.param", "ret", "bra", "call")
REPLACEMENTS = ["%zq", "%zf", "%zh", "%zp", "%zd", "5", "0f3F800000"]
DECLARATIONS = "\n\t.reg .b64 %zq;\n\t.reg .f32 %zf;\n\t.reg .b16 %zh;\n\t.reg .pred %zp;\n\t.reg .f64 %zd;"


def mutants(fraction, seed, base=None):
    rng = random.Random(seed)
    out = []
    files = (glob.glob(os.path.join(base, "**/*.ptx"), recursive=True) if base
             else glob.glob(os.path.join(root, "ptx-tests/src/test/ptx/*/kernel.ptx")))
    for path in sorted(files):
        if rng.random() > fraction:
            continue
        text = open(path).read()
        lines = text.split("\n")
        candidates = [k for k, l in enumerate(lines) if INSTRUCTION.match(l) and not l.strip().startswith(SKIP)]
        if not candidates:
            continue
        k = rng.choice(candidates)
        m = INSTRUCTION.match(lines[k])
        operands = [o.strip() for o in re.split(r",(?![^{]*\})", m.group(3))]
        for j, operand in enumerate(operands):
            if operand.startswith(("[", "{")):
                continue
            for r in REPLACEMENTS:
                changed = operands[:j] + [r] + operands[j + 1:]
                mutated = lines[:k] + [m.group(1) + m.group(2) + " " + ", ".join(changed) + ";"] + lines[k + 1:]
                body = "\n".join(mutated)
                brace = body.find("{", body.find(".entry"))
                out.append((os.path.basename(path if base else os.path.dirname(path)), mutated[k].strip(),
                            body[:brace + 1] + DECLARATIONS + body[brace + 1:]))
    return out


def main():
    args, keep, base = ptxas_verdicts.arguments(sys.argv)
    fraction = float(args[0]) if args else 0.5
    seed = int(args[1]) if len(args) > 1 else 1
    if not ptxas_verdicts.available("ptxas_operand_sweep"):
        return 0
    cases = mutants(fraction, seed, base)
    d, names = ptxas_verdicts.write([text for _, _, text in cases], keep, "ptxas-sweep")
    ptxas = ptxas_verdicts.ptxas(names, d)
    ours = ptxas_verdicts.zluda(names)
    differ = [(n, c) for n, c in zip(names, cases) if ptxas[n][0] != (n not in ours)]
    print("%d mutants (fraction %s, seed %d): ptxas accepts %d, ZLUDA-J accepts %d, they disagree on %d"
          % (len(names), fraction, seed, sum(ptxas[n][0] for n in names), sum(n not in ours for n in names), len(differ)))
    for n, (test, line, _) in differ:
        who = "ptxas" if ptxas[n][0] else "ZLUDA-J"
        why = ours.get(n, "") if ptxas[n][0] else ptxas[n][1]
        print("  accepted by %s only: %s (%s, %s): %s" % (who, os.path.basename(n), test, line, why))
    ptxas_verdicts.finish(d, keep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
