"""Measures the held-out shapes of heldout_shapes.csv (drawn by heldout_draw.py, committed before
any measurement) on the GPU this runs on: bf16/fp8 GEMMs (cuBLAS), attention (PyTorch's flash
backend, FlashAttention-2) and fp16 NHWC convolutions (cuDNN, benchmark autotuning). Each case is
timed two ways: `graph` = 10 calls captured in one CUDA graph and replayed (kernel time plus the
gap between kernels, no host overhead: what the simulator's launch_overhead + inter_kernel_gap
model) and `eager` = back-to-back calls from Python (host overhead included, as measure.py).
Timing as measure.py: warm-up, one call to size the loop, n = max(3, min(500, 0.12 s / call))
repeats between two CUDA events, mean per call. Writes heldout.csv into argv[1]; the whole list
is measured `passes` times (argv[2], default 2) for run-to-run spread. The shapes file is
$HELDOUT_SHAPES (a name in this folder; default heldout_shapes.csv, draw 1)."""
import csv
import os
import sys

import torch
import torch.nn.functional as F

from timing import bench, kernels_of  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
PASSES = int(sys.argv[2]) if len(sys.argv) > 2 else 2
DEV = torch.device("cuda")
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.backends.cudnn.benchmark = True
GRAPH_CALLS = 10
SHAPES = os.environ.get("HELDOUT_SHAPES", "heldout_shapes.csv")


def graph_of(fn):
    st = torch.cuda.Stream()
    st.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(st):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(st)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(GRAPH_CALLS):
            fn()
    return g


def make(kind, shape):
    """Returns (fn, flops) for one row of heldout_shapes.csv."""
    if kind == "gemm":
        m, n, k = map(int, shape.split("x"))
        a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
        b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
        c = torch.empty(m, n, device=DEV, dtype=torch.bfloat16)
        return (lambda: torch.mm(a, b, out=c)), 2.0 * m * n * k
    if kind == "gemm_fp8":
        m, n, k = map(int, shape.split("x"))
        one = torch.tensor(1.0, device=DEV)
        a = (torch.randn(m, k, device=DEV) * 0.5).to(torch.float8_e4m3fn)
        bt = (torch.randn(n, k, device=DEV) * 0.5).to(torch.float8_e4m3fn)
        return (lambda: torch._scaled_mm(a, bt.t(), scale_a=one, scale_b=one,
                                         out_dtype=torch.bfloat16)), 2.0 * m * n * k
    if kind == "attention":
        from torch.nn.attention import SDPBackend, sdpa_kernel
        f = dict((p[0], int(p[1:])) for p in shape.split("_"))
        b, h, s, d, causal = f["b"], f["h"], f["s"], f["d"], bool(f["c"])
        q = torch.randn(b, h, s, d, device=DEV, dtype=torch.bfloat16)
        k = torch.randn_like(q)
        v = torch.randn_like(q)

        def fn():
            with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        return fn, 4.0 * b * h * s * s * d / (2 if causal else 1)
    if kind == "conv":
        f = dict((p[:2] if p[:2] == "hw" else p[0], int(p[2:] if p[:2] == "hw" else p[1:]))
                 for p in shape.split("_"))
        n, c, kk, hw, r, st = f["n"], f["c"], f["k"], f["hw"], f["r"], f["s"]
        x = torch.randn(n, c, hw, hw, device=DEV, dtype=torch.float16).to(memory_format=torch.channels_last)
        w = torch.randn(kk, c, r, r, device=DEV, dtype=torch.float16).to(memory_format=torch.channels_last)
        ho = (hw + 2 * (r // 2) - r) // st + 1
        return (lambda: F.conv2d(x, w, stride=st, padding=r // 2)), 2.0 * n * ho * ho * kk * c * r * r
    raise ValueError(kind)


def main():
    p = torch.cuda.get_device_properties(0)
    print("device", p.name, "sms", p.multi_processor_count, "torch", torch.__version__, flush=True)
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, SHAPES)) as f:
        cases = list(csv.DictReader(f))
    out = open(os.path.join(OUT, "heldout.csv"), "w", newline="")
    w = csv.writer(out)
    w.writerow(["pass", "kind", "dtype", "shape", "graph_seconds", "eager_seconds", "graph_tflops", "kernels"])
    for ps in range(PASSES):
        for c in cases:
            try:
                fn, flops = make(c["kind"], c["shape"])
                eager = bench(fn)
                try:
                    g = graph_of(fn)
                    graph = bench(g.replay) / GRAPH_CALLS
                    del g
                except Exception as ex:
                    print("graph failed", c["shape"], repr(ex)[:200], flush=True)
                    graph = float("nan")
                kern = kernels_of(fn) if ps == 0 else ""
            except Exception as ex:
                print("FAILED", c, repr(ex)[:300], flush=True)
                continue
            w.writerow([ps, c["kind"], c["dtype"], c["shape"], "%.9f" % graph, "%.9f" % eager,
                        "%.2f" % (flops / graph / 1e12), kern])
            out.flush()
            print(ps, c["kind"], c["shape"], "graph %.2f us eager %.2f us %.1f TF/s" % (
                graph * 1e6, eager * 1e6, flops / graph / 1e12), flush=True)
            torch.cuda.empty_cache()
    out.close()


if __name__ == "__main__":
    main()
