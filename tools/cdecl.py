"""C declaration helpers shared by the declaration-source extractors (extract-api.py, extract-cublas-api.py):
splitting a parameter list and reading one parameter's type and name from preprocessed C."""
import re


def split_params(p):
    if p in ("", "void"): return []
    out, depth, cur = [], 0, ""
    for ch in p:
        if ch == "," and depth == 0: out.append(cur.strip()); cur = ""; continue
        depth += ch == "("; depth -= ch == ")"; cur += ch
    out.append(cur.strip()); return out


def parse_param(p, i):
    """(type, name) of parameter i; unnamed ones are called a<i>, arrays and function pointers are pointers."""
    p = re.sub(r"\bconst\b|\brestrict\b|__restrict__", "", p).strip()
    p = re.sub(r"\s+", " ", p)
    m = re.match(r"(.*?)\(\s*\*\s*(\w*)\s*\)\s*\(.*\)$", p)          # function pointer
    if m: return ("void*", m.group(2) or f"a{i}")
    m = re.match(r"(.*?)(\w+)\s*((?:\[\w*\])*)$", p)
    typ, name, arr = m.group(1).strip(), m.group(2), m.group(3)
    if not typ or typ.endswith(("unsigned", "int", "long", "char", "short")) and name in ("int", "long", "char", "short"):
        typ, name = p, f"a{i}"
    if arr: typ += "*"
    typ = typ.replace(" *", "*").replace("* ", "*").strip()
    return (typ, name)
