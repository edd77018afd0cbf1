#!/usr/bin/env python3
"""sass_loop_counts.py: the instructions of the survivors kernel's 32-step loop, per formula and
precision, read from `cuobjdump -sass` of the mandelscope binary (run on a machine with the full
CUDA toolkit: the lent GPU host). The perf model's CUDA issue bound divides by these
(compute/fractal/view/formula.h: formula_cuda_instructions_per_iteration).

    cuobjdump -sass build/bin/mandelscope > sass.txt   (on the GPU host)
    python3 tests/gpu/sass_loop_counts.py sass.txt

For each direct_survivors_kernel<F, T, false, 32, false> (exact arithmetic, 32 steps between
escape tests, periodicity off: the shortcuts-off kernel that the all-interior figure runs) it finds
the 32-step block (the kernel's longest straight run of code) and prints its instructions by kind. Per iteration: FP32 is issue-bound, so every instruction in the loop
counts (all / 32); FP64 runs at half the issue rate, so only the FP64 pipe's instructions count
(D* / 32), the rest issuing in its shadow (as direct_cuda.cu's comment counts Mandelbrot's).
"""
import re
import subprocess
import sys

# FP32 issues every instruction of the block plus those that save the block's start, vote and
# branch after it: 18 in Mandelbrot's kernel (218 in all, direct_cuda.cu's hand count, of
# which the block's straight run is 200), the same code for every formula.
FP32_OUTSIDE_BLOCK = 18
FP64 = re.compile(r"^D(MUL|ADD|FMA|SETP)")
FP32 = re.compile(r"^F(MUL|ADD|FMA|SETP|MNMX)")


def demangle(names):
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def functions(text):
    """(mangled name, [(address, opcode, operands)]) per function."""
    current, body = None, []
    for line in text.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            if current:
                yield current, body
            current, body = m.group(1), []
            continue
        ins = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*(.*?);", line)
        if ins:
            body.append((int(ins.group(1), 16), ins.group(2), ins.group(3)))
    if current:
        yield current, body


def block(body):
    """The 32-step block: the longest straight run of instructions (no branch out of it, no
    branch target inside it)."""
    targets = set()
    for _, op, operands in body:
        m = re.match(r"(0x[0-9a-f]+)", operands.strip())
        if op.startswith("BRA") and m:
            targets.add(int(m.group(1), 16))
    runs, run = [], []
    for address, op, _ in body:
        if address in targets and run:
            runs.append(run)
            run = []
        run.append(op)
        if op.startswith(("BRA", "EXIT", "RET")):
            runs.append(run)
            run = []
    runs.append(run)
    return max(runs, key=len)


def main():
    text = open(sys.argv[1]).read()
    funcs = [(n, b) for n, b in functions(text) if "survivors_kernel" in n]
    names = demangle([n for n, _ in funcs])
    print(f"{'formula':8s} {'type':6s} {'block':>5s} {'FP32':>5s} {'FP64':>5s} {'other':>5s}  per iteration")
    rows = []
    for (mangled, body), name in zip(funcs, names):
        m = re.search(r"survivors_kernel<\(ms::Formula\)(\d+), (float|double), false, 32, false>", name)
        if not m:
            continue
        ops = block(body)
        n32 = sum(1 for o in ops if FP32.match(o))
        n64 = sum(1 for o in ops if FP64.match(o))
        if m.group(2) == "double":
            per = n64 / 32.0
        else:
            per = (len(ops) + FP32_OUTSIDE_BLOCK) / 32.0
        rows.append((int(m.group(1)), m.group(2), len(ops), n32, n64, len(ops) - n32 - n64, per))
    for r in sorted(rows):
        print(f"{r[0]:<8d} {r[1]:6s} {r[2]:5d} {r[3]:5d} {r[4]:5d} {r[5]:5d}  {r[6]:.3f}")


if __name__ == "__main__":
    main()
