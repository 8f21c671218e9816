#!/usr/bin/env python3
"""Copies the PTX elements (still compressed) of every fatbin in NVIDIA's Python wheels and PyTorch's libraries into
fatbin container files, for ZLUDA-J's front-end corpus test (ZLUDA_PTX_CORPUS=DIR). Nothing is decompressed here.
Usage: extract_ptx.py OUT_DIR [MAX_BYTES_PER_FILE] [MAX_FILES] [SKIP_ELEMENTS]"""
import os, struct, sys, site, glob

out_dir = sys.argv[1]
per_file = int(sys.argv[2]) if len(sys.argv) > 2 else 15 << 20
max_files = int(sys.argv[3]) if len(sys.argv) > 3 else 8
skip = int(sys.argv[4]) if len(sys.argv) > 4 else 0
roots = set(site.getsitepackages() + [site.getusersitepackages()])
libs = []
for r in roots:
    libs += glob.glob(os.path.join(r, "nvidia", "*", "lib", "*.so*"))
    libs += glob.glob(os.path.join(r, "torch", "lib", "*.so*"))
libs = sorted(set(os.path.realpath(l) for l in libs))

def sections(data):
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    stroff, = struct.unpack_from("<Q", data, shoff + shstrndx * shentsize + 0x18)
    for i in range(shnum):
        sh = shoff + i * shentsize
        name_off, = struct.unpack_from("<I", data, sh)
        end = data.index(b"\0", stroff + name_off)
        off, size = struct.unpack_from("<QQ", data, sh + 0x18)
        yield data[stroff + name_off:end].decode(), off, size

stats = {}
elements = []   # (lib, raw element bytes)
for lib in libs:
    try:
        data = open(lib, "rb").read()
    except OSError:
        continue
    if data[:4] != b"\x7fELF":
        continue
    n = 0
    for name, off, size in sections(data):
        if name != ".nv_fatbin":
            continue
        pos, end = off, off + size
        while pos + 16 <= end:
            magic, ver, hdr, csize = struct.unpack_from("<IHHQ", data, pos)
            if magic != 0xBA55ED50:
                pos += 8
                continue
            e, cend = pos + hdr, pos + hdr + csize
            while e + 0x40 <= cend:
                kind, _, ehdr, psize = struct.unpack_from("<HHIQ", data, e)
                if ehdr < 0x40 or e + ehdr + psize > cend:
                    break
                if kind == 1:
                    elements.append((os.path.basename(lib), data[e:e + ehdr + psize]))
                    n += 1
                e += ehdr + psize
            pos = (pos + 16 + csize + 7) & ~7
    stats[os.path.basename(lib)] = n

os.makedirs(out_dir, exist_ok=True)
files, cur, cur_size, written, dropped = 0, [], 0, 0, 0
def flush():
    global files, cur, cur_size
    if not cur:
        return
    body = b"".join(cur)
    with open(os.path.join(out_dir, "ptx%d.fatbin" % files), "wb") as f:
        f.write(struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body)
    files += 1; cur = []; cur_size = 0
for lib, el in elements[skip:]:
    if len(el) > per_file:
        dropped += 1
        continue
    if cur_size + len(el) > per_file:
        flush()
    if files >= max_files:
        dropped += 1
        continue
    cur.append(el); cur_size += len(el); written += 1
flush()
print("libraries scanned: %d, with PTX: %d" % (len(stats), sum(1 for v in stats.values() if v)))
for k, v in sorted(stats.items()):
    if v: print("  %-40s %6d PTX elements" % (k, v))
print("PTX elements: %d found, %d written in %d files, %d left out (size limits)" % (len(elements), written, files, dropped))
