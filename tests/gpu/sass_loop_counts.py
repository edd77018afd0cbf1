#!/usr/bin/env python3
"""sass_loop_counts.py: the instructions of the survivors kernel's 32-step loop, per formula and
precision, read from `cuobjdump -sass` of the mandelscope binary (run on a machine with the full
CUDA toolkit: the lent GPU host). The perf model's CUDA issue bound divides by these
(compute/fractal/formula.h: formula_cuda_instructions_per_iteration).

    cuobjdump -sass build/bin/mandelscope > sass.txt   (on the GPU host)
    python3 tests/gpu/sass_loop_counts.py sass.txt

For each mandelbrot_survivors_kernel<F, T, false, 32, false> (exact arithmetic, 32 steps between
escape tests, periodicity off: the shortcuts-off kernel that the all-interior figure runs) it finds
the loop with the most floating-point instructions (a backward branch to a label) and prints its
instruction count by kind. Per iteration: FP32 is issue-bound, so every instruction in the loop
counts (all / 32); FP64 runs at half the issue rate, so only the FP64 pipe's instructions count
(D* / 32), the rest issuing in its shadow (as mandelbrot_cuda.cu's comment counts Mandelbrot's).
"""
import re
import subprocess
import sys

FP64 = re.compile(r"^D(MUL|ADD|FMA|SETP)")
FP32 = re.compile(r"^F(MUL|ADD|FMA|SETP|MNMX)")


def demangle(names):
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def functions(text):
    """(mangled name, [(label or None, opcode, operands)]) per function."""
    current, body = None, []
    for line in text.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            if current:
                yield current, body
            current, body = m.group(1), []
            continue
        lab = re.match(r"\s*(\.L_x_\d+):", line)
        if lab:
            body.append((lab.group(1), None, ""))
            continue
        ins = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*(.*?);", line)
        if ins:
            body.append((None, ins.group(1), ins.group(2)))
    if current:
        yield current, body


def best_loop(body):
    labels = {lab: i for i, (lab, _, _) in enumerate(body) if lab}
    best = None
    for i, (_, op, operands) in enumerate(body):
        if op and op.startswith("BRA"):
            m = re.search(r"\((\.L_x_\d+)\)", operands)
            if m and m.group(1) in labels and labels[m.group(1)] < i:
                ops = [o for _, o, _ in body[labels[m.group(1)]:i + 1] if o]
                fp = sum(1 for o in ops if FP32.match(o) or FP64.match(o))
                if best is None or fp > best[0]:
                    best = (fp, ops)
    return best[1] if best else []


def main():
    text = open(sys.argv[1]).read()
    funcs = [(n, b) for n, b in functions(text) if "survivors_kernel" in n]
    names = demangle([n for n, _ in funcs])
    print(f"{'kernel':64s} {'all':>5s} {'FP32':>5s} {'FP64':>5s} {'other':>5s}  per iteration")
    for (mangled, body), name in zip(funcs, names):
        m = re.search(r"survivors_kernel<\(ms::Formula\)(\d+)|survivors_kernel<ms::Formula::?(\w+)", name)
        if not re.search(r", (float|double), false, 32, false>", name):
            continue
        ops = best_loop(body)
        n32 = sum(1 for o in ops if FP32.match(o))
        n64 = sum(1 for o in ops if FP64.match(o))
        double = ", double," in name
        per = (n64 if double else len(ops)) / 32.0
        short = name[name.find("survivors_kernel"):][:64]
        print(f"{short:64s} {len(ops):5d} {n32:5d} {n64:5d} {len(ops) - n32 - n64:5d}  {per:.3f}")


if __name__ == "__main__":
    main()
