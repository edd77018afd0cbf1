#!/usr/bin/env python3
"""cnn_pytorch_compare.py: our Fashion-MNIST network against PyTorch eager on the same weights.

1. Reads OUR weights file (.msw, format in compute/cnn/cnn_weights_file.h; checksum checked)
   into a torch.nn.Module of the same layers, and the test images from the IDX .gz files.
2. Checks that PyTorch's logits match ours within 1e-4: ours come from
   `mandelscope cnn eval --dump-logits` (CPU, and CUDA where a GPU is usable).
3. Times PyTorch on the GPU at batch 10,000 (CUDA events, warm-up, median) and batch 1
   (wall clock with synchronize, median), strict FP32 and with PyTorch's defaults (cuDNN may
   use TF32 for convolutions), and prints them beside our figures from `mandelscope cnn eval
   --json`.

Usage: python3 tests/demos/cnn_pytorch_compare.py --mandelscope build/bin/mandelscope
           [--weights assets/cnn/fashion_mnist.msw] [--data /usr/share/datasets/fashion-mnist]
Exit status: 0 when the logits match (or "skipped: no torch"), 1 on a mismatch or error.
"""
import argparse
import gzip
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import zlib

TOLERANCE = 1e-4
TENSORS = [  # name, shape: the order of the file and of kCnnTensors
    ("conv1.weight", (16, 1, 3, 3)), ("conv1.bias", (16,)),
    ("conv2.weight", (32, 16, 3, 3)), ("conv2.bias", (32,)),
    ("fc1.weight", (64, 1568)), ("fc1.bias", (64,)),
    ("fc2.weight", (10, 64)), ("fc2.bias", (10,)),
]


def read_weights(path):
    """Parses the .msw file: returns ({name: flat list of floats}, provenance)."""
    data = open(path, "rb").read()
    magic, version, count, prov_len = struct.unpack_from("<8sIII", data, 0)
    if magic != b"MSCNNWT\0" or version != 1 or count != len(TENSORS):
        raise ValueError(f"{path}: not a version-1 Mandelscope weights file")
    (stored_crc,) = struct.unpack_from("<I", data, len(data) - 4)
    if zlib.crc32(data[:-4]) & 0xFFFFFFFF != stored_crc:
        raise ValueError(f"{path}: checksum mismatch")
    provenance = data[20:20 + prov_len].decode("utf-8", "replace")
    at = 20 + prov_len
    for name, shape in TENSORS:
        raw_name = data[at:at + 16].rstrip(b"\0").decode()
        rank, *dims = struct.unpack_from("<5I", data, at + 16)
        if raw_name != name or tuple(dims[:rank]) != shape:
            raise ValueError(f"{path}: tensor {raw_name} {dims[:rank]} is not {name} {shape}")
        at += 36
    tensors = {}
    for name, shape in TENSORS:
        n = 1
        for d in shape:
            n *= d
        tensors[name] = struct.unpack_from(f"<{n}f", data, at)
        at += 4 * n
    return tensors, provenance


def read_test_images(data_dir, count):
    raw = gzip.open(os.path.join(data_dir, "t10k-images-idx3-ubyte.gz")).read()
    magic, n, rows, cols = struct.unpack_from(">IIII", raw, 0)
    if magic != 0x803 or rows != 28 or cols != 28:
        raise ValueError("bad IDX image file")
    count = min(count, n)
    return raw[16:16 + count * 784], count


def read_logits_dump(path):
    rows = []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        rows.append([float(v) for v in line.split()])
    return rows


def run_mandelscope(binary, args):
    proc = subprocess.run([binary, "cnn", "eval", *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"mandelscope cnn eval {' '.join(args)} failed ({proc.returncode}): "
                           f"{proc.stderr.strip()}")
    return proc.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--mandelscope", required=True, help="path to the mandelscope binary")
    parser.add_argument("--weights", default=os.path.join(here, "..", "..", "assets", "cnn", "fashion_mnist.msw"))
    parser.add_argument("--data", default=os.environ.get("MANDELSCOPE_FASHION_MNIST",
                                                         "/usr/share/datasets/fashion-mnist"))
    parser.add_argument("--count", type=int, default=1000, help="images whose logits are compared")
    parser.add_argument("--iterations", type=int, default=50, help="timed runs at batch 10,000")
    args = parser.parse_args()

    try:
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
    except ImportError:
        print("skipped: no torch (PyTorch is not installed here)")
        return 0

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
            self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
            self.fc1 = nn.Linear(1568, 64)
            self.fc2 = nn.Linear(64, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = F.relu(self.fc1(torch.flatten(x, 1)))
            return self.fc2(x)

    tensors, provenance = read_weights(args.weights)
    print(f"weights: {args.weights}\n  ({provenance})")
    model = Net().eval()
    model.load_state_dict({name: torch.tensor(tensors[name], dtype=torch.float32).reshape(shape)
                           for name, shape in TENSORS})
    pixels, count = read_test_images(args.data, 10000)
    images = torch.frombuffer(bytearray(pixels), dtype=torch.uint8).reshape(count, 1, 28, 28)
    x_cpu = images.float() / 255.0  # exactly the model's input scaling (float(p) / 255.0f)

    have_cuda = torch.cuda.is_available()
    torch.backends.cudnn.allow_tf32 = False  # strict FP32 for the comparison
    torch.backends.cuda.matmul.allow_tf32 = False
    n = min(args.count, count)
    ok = True
    with torch.inference_mode():
        torch_cpu = model(x_cpu[:n])
        torch_gpu = model.cuda()(x_cpu[:n].cuda()).cpu() if have_cuda else None
        model.cpu()
    with tempfile.TemporaryDirectory() as tmp:
        ours = {}
        for backend in ["cpu", "cuda"]:
            if backend == "cuda" and not have_cuda:
                continue
            dump = os.path.join(tmp, f"{backend}.txt")
            run_mandelscope(args.mandelscope, [f"--backend={backend}", f"--limit={n}",
                                               f"--batch={n}", f"--weights={args.weights}",
                                               f"--data={args.data}", f"--dump-logits={dump}",
                                               f"--dump-count={n}"])
            ours[backend] = torch.tensor(read_logits_dump(dump), dtype=torch.float32)
        pairs = [(f"mandelscope {b} vs PyTorch CPU", ours[b], torch_cpu) for b in ours]
        if torch_gpu is not None:
            pairs += [(f"mandelscope {b} vs PyTorch CUDA (FP32)", ours[b], torch_gpu) for b in ours]
        for what, a, b in pairs:
            diff = (a - b).abs()
            worst = diff.max().item()
            bad = int((diff > TOLERANCE).sum().item())
            print(f"{what}: max |logit difference| {worst:.2e} over {n} images "
                  f"({bad} beyond {TOLERANCE:g})")
            if bad:
                idx = int(diff.flatten().argmax().item())
                print(f"  first worst at image {idx // 10}, class {idx % 10}: "
                      f"ours {a.flatten()[idx].item():.9g}, PyTorch {b.flatten()[idx].item():.9g}")
                ok = False

        if not have_cuda:
            print("timing skipped: PyTorch sees no CUDA device")
            return 0 if ok else 1

        device_name = torch.cuda.get_device_name(0)
        model = model.cuda()
        x_all = x_cpu.cuda()
        x_one = x_cpu[:1].cuda()
        x_one_host = x_cpu[:1].clone().pin_memory()

        def time_batch(x, iterations):
            with torch.inference_mode():
                for _ in range(10):
                    model(x)
                torch.cuda.synchronize()
                times = []
                for _ in range(iterations):
                    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    start.record()
                    model(x)
                    end.record()
                    end.synchronize()
                    times.append(start.elapsed_time(end))
            return statistics.median(times)

        def time_one(x, iterations, with_copies):
            with torch.inference_mode():
                for _ in range(50):
                    model(x.cuda(non_blocking=True)).cpu() if with_copies else model(x)
                torch.cuda.synchronize()
                times = []
                for _ in range(iterations):
                    t0 = time.perf_counter()
                    if with_copies:
                        model(x.cuda(non_blocking=True)).cpu()
                    else:
                        model(x)
                        torch.cuda.synchronize()
                    times.append(time.perf_counter() - t0)
            return statistics.median(times) * 1e6

        figures = {}
        for label, tf32 in [("PyTorch FP32", False), ("PyTorch default (TF32 convs)", True)]:
            torch.backends.cudnn.allow_tf32 = tf32
            ms = time_batch(x_all, args.iterations)
            figures[label] = {
                "b10000_ips": count / (ms / 1e3), "b10000_ms": ms,
                "b1_us": time_one(x_one, 1000, False),
                "b1_copies_us": time_one(x_one_host, 1000, True),
            }
        torch.backends.cudnn.allow_tf32 = False

        big = os.path.join(tmp, "big.json")
        run_mandelscope(args.mandelscope, ["--backend=cuda", "--batch=10000", "--passes=20",
                                           f"--weights={args.weights}", f"--data={args.data}",
                                           f"--json={big}"])
        one = os.path.join(tmp, "one.json")
        run_mandelscope(args.mandelscope, ["--backend=cuda", "--batch=1", "--passes=1",
                                           f"--weights={args.weights}", f"--data={args.data}",
                                           f"--json={one}"])
        big_run = json.load(open(big))["runs"][0]
        one_run = json.load(open(one))["runs"][0]
        figures["Mandelscope cuda (ours)"] = {
            "b10000_ips": big_run["compute_images_per_second"], "b10000_ms": big_run["compute_ms"],
            "b1_us": None,  # ours is always measured with the copies, see below
            "b1_copies_us": one_run["batch_latency_ms"] * 1e3,
        }

    print(f"\nTiming on {device_name} (PyTorch {torch.__version__}); medians")
    print(f"{'':34} {'batch 10,000':>22} {'batch 1, on GPU':>16} {'batch 1, host->host':>20}")
    for label, f in figures.items():
        b1 = f"{f['b1_us']:.1f} us" if f["b1_us"] is not None else "-"
        print(f"{label:34} {f['b10000_ips'] / 1e6:8.2f}M img/s {f['b10000_ms']:6.3f} ms "
              f"{b1:>16} {f['b1_copies_us']:17.1f} us")
    print(f"Mandelscope cuda, batch 1: {one_run['compute_ms'] * 1e3 / one_run['images']:.1f} us of "
          f"kernels per call (CUDA events)")
    ratio = figures["Mandelscope cuda (ours)"]["b10000_ips"] / figures["PyTorch FP32"]["b10000_ips"]
    print(f"\nours / PyTorch FP32 at batch 10,000: {ratio:.2f}x; "
          f"batch 10,000 times exclude copies (input already on the GPU) for both;\n"
          f"'batch 1, host->host' includes the upload of the image and the download of the "
          f"logits (ours: pinned staging).")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
