"""A kernel's fixed cost and its cost per k-tile, measured apart (README.md, "Implicit-GEMM
convolutions on sm_90": "a microbenchmark of one cuDNN kernel at K = 64..4608 on a fixed grid
would" tell prologue, fill and epilogue from the main loop). Families, each a fixed output (so a
fixed grid while the library keeps its tile) and a swept reduction depth K:
  conv3x3: n1 14x14 k256, 3x3 stride 1, C = 16..512 (K = 9 C = 144..4608), fp16 NHWC (cuDNN);
  conv1x1s2: n16 56x56 -> 28x28, k64, 1x1 stride 2, C = 32..2048 (cuDNN);
  gemm1024 / gemm256 / gemm4096: bf16 M = N = 1024 / 256 / 4096, K = 64..8192 (cuBLAS);
  floor: a one-element add (the smallest kernel: launch, one CTA, exit).
Each case: its kernels from 20 calls under the profiler (name, grid, block, registers, shared
memory, mean device duration; heldout_kernels.kernels) and 10 calls in one CUDA graph, replayed
(heldout.py's graph timing). Writes kfixed.csv into argv[1]."""
import csv
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heldout import GRAPH_CALLS, graph_of  # noqa: E402
from heldout_kernels import kernels  # noqa: E402
from timing import bench  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
DEV = torch.device("cuda")


def conv(n, hw, c, k, r, st):
    x = torch.randn(n, c, hw, hw, device=DEV, dtype=torch.float16).to(memory_format=torch.channels_last)
    w = torch.randn(k, c, r, r, device=DEV, dtype=torch.float16).to(memory_format=torch.channels_last)
    return lambda: F.conv2d(x, w, stride=st, padding=r // 2)


def gemm(m, n, k):
    a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    c = torch.empty(m, n, device=DEV, dtype=torch.bfloat16)
    return lambda: torch.mm(a, b, out=c)


def cases():
    one = torch.zeros(1, device=DEV)
    yield "floor", "add1", lambda: one.add_(1.0)
    for c in (16, 32, 64, 96, 128, 192, 256, 384, 512):
        yield "conv3x3", "n1_c%d_k256_hw14_r3_s1" % c, conv(1, 14, c, 256, 3, 1)
    for c in (32, 64, 128, 256, 512, 1024, 2048):
        yield "conv1x1s2", "n16_c%d_k64_hw56_r1_s2" % c, conv(16, 56, c, 64, 1, 2)
    for mn, fam in ((1024, "gemm1024"), (256, "gemm256"), (4096, "gemm4096")):
        for k in (64, 128, 256, 512, 1024, 2048, 4096, 8192):
            yield fam, "%dx%dx%d" % (mn, mn, k), gemm(mn, mn, k)


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    p = torch.cuda.get_device_properties(0)
    print("device", p.name, "sms", p.multi_processor_count, "torch", torch.__version__, flush=True)
    with open(os.path.join(OUT, "kfixed.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["family", "shape", "graph_us", "kernel", "calls_per_case", "us_per_call", "grid",
                    "block", "registers", "shared_memory"])
        for fam, shape, fn in cases():
            try:
                ks = kernels(fn)
                g = graph_of(fn)
                graph = bench(g.replay) / GRAPH_CALLS
                del g
                for name, k in ks.items():
                    w.writerow([fam, shape, "%.3f" % (graph * 1e6), name[:200], k["n"] / 20,
                                "%.3f" % (k["us"] / k["n"]), k["grid"], k["block"], k["regs"], k["smem"]])
                f.flush()
                print(fam, shape, "graph %.2f us" % (graph * 1e6),
                      "; ".join("%s %.2f us %s" % (n[:50], k["us"] / k["n"], k["grid"]) for n, k in ks.items()),
                      flush=True)
            except Exception as ex:
                print("FAILED", fam, shape, repr(ex)[:300], flush=True)
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
