"""sass_compare.py: are two `cuobjdump -sass` listings the same kernels, instruction for
instruction? Splits each listing into functions ("Function : NAME"), reads anonymous
namespaces as one token, maps the old names through RENAMES (the kernels' and namespaces' renames, as they appear inside mangled names), and
compares every function's instructions (addresses and encodings included). Prints the functions
only one side has and every function whose code differs; exits 1 on any difference.
    python3 sass_compare.py OLD.sass NEW.sass
"""
import re
import sys

# Old spelling -> new spelling, applied in order to the old listing's function names. A mangled
# name carries each identifier's length before it, so a rename fixes that length too.
RENAMES = [
    ("mandelbrot_features_persistent_kernel", "direct_features_persistent_kernel"),
    ("mandelbrot_features_kernel", "direct_features_kernel"),
    ("mandelbrot_survivors_kernel", "direct_survivors_kernel"),
    ("mandelbrot_naive_kernel", "direct_naive_kernel"),
    ("mandelbrot_kernel", "direct_kernel"),
    ("mandelbrot_cuda_detail", "direct_cuda_detail"),
    ("colorize_deep_kernel", "colourize_deep_kernel"),
]


def functions(path):
    out, name, body = {}, None, []
    for line in open(path, errors="replace"):
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            if name:
                out.setdefault(name, []).append(body)
            name, body = m.group(1), []
        elif name and re.match(r"\s*/\*[0-9a-f]{4,}\*/", line):
            body.append(line.strip())
    if name:
        out.setdefault(name, []).append(body)
    return {k: sorted("\n".join(b) for b in v) for k, v in out.items()}


# An anonymous namespace's mangled name carries a hash of its file's name and path
# ("49_GLOBAL__N__3aac4d6a_16_cnn_cuda_conv_cu_2662a375"): a moved file changes it, so it is
# compared as one token. Where it ends in a number of its own (a kernel defined in an included
# body), that number runs into the next name's length, so the token takes every digit up to the
# next letter, on both sides alike.
ANONYMOUS = re.compile(r"\d+_GLOBAL__N__[0-9a-f]+_\d+_\w+?_cu_[0-9a-f]{8}(_\d+)?")


def renamed(name):
    name = ANONYMOUS.sub("ANON", name)
    for a, b in RENAMES:
        name = name.replace(f"{len(a)}{a}", f"{len(b)}{b}").replace(a, b)
    return name


old = {renamed(k): v for k, v in functions(sys.argv[1]).items()}
new = {ANONYMOUS.sub("ANON", k): v for k, v in functions(sys.argv[2]).items()}
bad = 0
for k in sorted(set(old) - set(new)):
    print("only in the old build:", k); bad += 1
for k in sorted(set(new) - set(old)):
    print("only in the new build:", k); bad += 1
same = 0
for k in sorted(set(old) & set(new)):
    if old[k] == new[k]:
        same += 1
    else:
        print("code differs:", k); bad += 1
print(f"SASS: {same} kernels identical, {bad} differences ({len(old)} old, {len(new)} new)")
sys.exit(1 if bad else 0)
