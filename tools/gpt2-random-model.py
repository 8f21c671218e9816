#!/usr/bin/env python3
"""A GPT-2 model with random weights in the file format of ggml's examples/gpt-2 (gpt-2-backend, gpt-2-sched read it):
the "ggml" magic, hyperparameters, a vocabulary, then each tensor (dimensions, name, type, data). Default: GPT-2 124M
(12 layers, 768 wide, 12 heads, context 1024, 50,257 tokens), weight matrices in f16 as ggml's converter writes them.
The vocabulary holds every printable ASCII character (so any ASCII prompt tokenizes), the other bytes spelled
out, words " w<i>", and <|endoftext|>; the text a random model generates is meaningless, its speed is what counts
(and, greedily sampled, that ggml's backends agree on it). --type q8_0|q4_0 writes the weight matrices quantized
(random blocks: a scale and random quants), as ggml's gpt-2-quantize would: llama.cpp's default build multiplies
them with its MMQ and MMVQ kernels.

    tools/gpt2-random-model.py OUT.bin [--layers 12] [--embd 768] [--heads 12] [--ctx 1024] [--vocab 50257] [--seed 1]
                                       [--type f16|q8_0|q4_0]
"""
import argparse
import array
import os
import struct

try:
    import numpy as np
except ImportError:  # without numpy: weights of random sign and mantissa, magnitude 2^-7 .. 2^-6 (speed runs)
    np = None

MAGIC = 0x67676D6C  # GGML_FILE_MAGIC
F32, F16, Q4_0, Q8_0 = 0, 1, 2, 8  # ggml_type numbers
FTYPES = {"f16": 1, "q4_0": 2, "q8_0": 7}  # ggml_ftype: the file's type of its weight matrices


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--embd", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--ctx", type=int, default=1024)
    ap.add_argument("--vocab", type=int, default=50257)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--type", choices=sorted(FTYPES), default="f16")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed) if np is not None else None
    e, v = a.embd, a.vocab
    with open(a.out, "wb") as f:
        f.write(struct.pack("<I", MAGIC))
        f.write(struct.pack("<6i", v, a.ctx, e, a.heads, a.layers, FTYPES[a.type]))
        f.write(struct.pack("<i", v))
        # printable ASCII as itself (any ASCII prompt tokenizes), other bytes spelled out (the output stays text)
        tokens = [bytes([b]) if 32 <= b < 127 or b in (9, 10) else b"<0x%02X>" % b for b in range(256)]
        tokens += [b" w%d" % i for i in range(v - 257)]
        tokens += [b"<|endoftext|>"]
        assert len(tokens) == v
        for t in tokens:
            f.write(struct.pack("<I", len(t)) + t)

        def random_bytes(n):
            return rng.integers(0, 256, n, dtype=np.uint8).tobytes() if np is not None else os.urandom(n)

        def quantized(n):
            """(ggml type, bytes) of n weights as a.type's blocks of 32: an f16 scale, then q8_0's 32 int8 quants
            (value = q * scale) or q4_0's 16 bytes of 4-bit ones (value = (q - 8) * scale); the scale spreads the
            quants' range over about 0.02's."""
            assert n % 32 == 0, "quantized rows need a multiple of 32 values"
            ttype, scale, quants = (Q8_0, 0.02 / 64, 32) if a.type == "q8_0" else (Q4_0, 0.02 / 4, 16)
            d = struct.pack("<e", scale)
            q = random_bytes(n // 32 * quants)
            return ttype, b"".join(d + q[i * quants:(i + 1) * quants] for i in range(n // 32))

        def values(n, kind):
            """(ggml type, bytes) of n values."""
            if kind == "weight" and a.type != "f16":
                return quantized(n)
            if kind in ("gain", "bias"):
                return F32, struct.pack("<f", 1.0 if kind == "gain" else 0.0) * n
            if np is not None:
                data = rng.normal(0.0, 0.02, n).astype(np.float16 if kind == "weight" else np.float32)
                return (F16 if kind == "weight" else F32), data.tobytes()
            bits = array.array("H", os.urandom(2 * n))
            half = array.array("H", ((b & 0x83FF) | 0x2000 for b in bits))  # sign, mantissa random; exponent 2^-7
            if kind == "weight":
                return F16, half.tobytes()
            return F32, array.array("f", (struct.unpack("<e", struct.pack("<H", h))[0] for h in half)).tobytes()

        def tensor(name, shape, kind):
            """shape in ggml's order (ne0 first); kind: 'gain', 'bias', 'weight' (f16) or 'embed' (f32)."""
            n = 1
            for d in shape:
                n *= d
            ttype, data = values(n, kind)
            nb = name.encode()
            f.write(struct.pack("<3i", len(shape), len(nb), ttype))
            f.write(struct.pack("<%di" % len(shape), *shape))
            f.write(nb)
            f.write(data)

        tensor("model/ln_f/g", [e], "gain")
        tensor("model/ln_f/b", [e], "bias")
        tensor("model/wte", [e, v], "weight")  # also the language-model head (GPT-2 shares them)
        tensor("model/wpe", [e, a.ctx], "embed")
        for i in range(a.layers):
            p = "model/h%d/" % i
            tensor(p + "ln_1/g", [e], "gain")
            tensor(p + "ln_1/b", [e], "bias")
            tensor(p + "ln_2/g", [e], "gain")
            tensor(p + "ln_2/b", [e], "bias")
            tensor(p + "attn/c_attn/w", [e, 3 * e], "weight")
            tensor(p + "attn/c_attn/b", [3 * e], "bias")
            tensor(p + "attn/c_proj/w", [e, e], "weight")
            tensor(p + "attn/c_proj/b", [e], "bias")
            tensor(p + "mlp/c_fc/w", [e, 4 * e], "weight")
            tensor(p + "mlp/c_fc/b", [4 * e], "bias")
            tensor(p + "mlp/c_proj/w", [4 * e, e], "weight")
            tensor(p + "mlp/c_proj/b", [e], "bias")


if __name__ == "__main__":
    main()
