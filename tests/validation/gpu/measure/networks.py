"""Measures zoo networks layer by layer on a real GPU, for tests/validation/gpu: every layer of
workloads/resnet50.yaml and workloads/bert_large.yaml (the same shapes, bf16, batch 1 and 8) run
through PyTorch (cuDNN convolutions in channels-last, cuBLAS GEMMs, PyTorch's flash attention,
elementwise kernels). Each layer is captured REPS times in one CUDA graph and the graph replayed,
so host launch overhead (~13 us per eager call on our H100) is not measured, while the GPU's own
gap between kernels is. One more graph holds the whole network in order (each layer `repeat`
times) and gives the network's time. Kernel names come from the torch profiler.
Usage: python3 networks.py OUTDIR  (writes OUTDIR/networks.csv)."""
import csv
import os
import sys
import time

import torch
import torch.nn.functional as F

from timing import graph_of_calls, kernels_of, time_graph  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
DEV = torch.device("cuda")
DT = torch.bfloat16
REPS = 20  # layer calls per captured graph
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.backends.cudnn.benchmark = True

out_file = open(os.path.join(OUT, "networks.csv"), "w", newline="")
out = csv.writer(out_file)
out.writerow(["network", "batch", "layer", "op", "shape", "repeat", "seconds", "tflops", "kernels"])

# workloads/resnet50.yaml: name, h, w, c, k, r/s, stride, pad, repeat ("add": rows per image, cols)
RESNET = [
    ("conv1", 224, 224, 3, 64, 7, 2, 3, 1),
    ("conv2_1a", 56, 56, 64, 64, 1, 1, 0, 1), ("conv2_1b", 56, 56, 64, 64, 3, 1, 1, 1),
    ("conv2_1c", 56, 56, 64, 256, 1, 1, 0, 1), ("conv2_1proj", 56, 56, 64, 256, 1, 1, 0, 1),
    ("conv2_a", 56, 56, 256, 64, 1, 1, 0, 2), ("conv2_b", 56, 56, 64, 64, 3, 1, 1, 2),
    ("conv2_c", 56, 56, 64, 256, 1, 1, 0, 2), ("conv2_add", 56 * 56, 256, None, None, None, None, None, 3),
    ("conv3_1a", 56, 56, 256, 128, 1, 1, 0, 1), ("conv3_1b", 56, 56, 128, 128, 3, 2, 1, 1),
    ("conv3_1c", 28, 28, 128, 512, 1, 1, 0, 1), ("conv3_1proj", 56, 56, 256, 512, 1, 2, 0, 1),
    ("conv3_a", 28, 28, 512, 128, 1, 1, 0, 3), ("conv3_b", 28, 28, 128, 128, 3, 1, 1, 3),
    ("conv3_c", 28, 28, 128, 512, 1, 1, 0, 3), ("conv3_add", 28 * 28, 512, None, None, None, None, None, 4),
    ("conv4_1a", 28, 28, 512, 256, 1, 1, 0, 1), ("conv4_1b", 28, 28, 256, 256, 3, 2, 1, 1),
    ("conv4_1c", 14, 14, 256, 1024, 1, 1, 0, 1), ("conv4_1proj", 28, 28, 512, 1024, 1, 2, 0, 1),
    ("conv4_a", 14, 14, 1024, 256, 1, 1, 0, 5), ("conv4_b", 14, 14, 256, 256, 3, 1, 1, 5),
    ("conv4_c", 14, 14, 256, 1024, 1, 1, 0, 5), ("conv4_add", 14 * 14, 1024, None, None, None, None, None, 6),
    ("conv5_1a", 14, 14, 1024, 512, 1, 1, 0, 1), ("conv5_1b", 14, 14, 512, 512, 3, 2, 1, 1),
    ("conv5_1c", 7, 7, 512, 2048, 1, 1, 0, 1), ("conv5_1proj", 14, 14, 1024, 2048, 1, 2, 0, 1),
    ("conv5_a", 7, 7, 2048, 512, 1, 1, 0, 2), ("conv5_b", 7, 7, 512, 512, 3, 1, 1, 2),
    ("conv5_c", 7, 7, 512, 2048, 1, 1, 0, 2), ("conv5_add", 7 * 7, 2048, None, None, None, None, None, 3),
    ("fc", None, None, 2048, 1000, None, None, None, 1),
]


def resnet_layers(b):
    """(name, op, shape, repeat, flops, callable) per layer of workloads/resnet50.yaml."""
    layers = []
    for name, h, w, c, k, r, stride, pad, rep in RESNET:
        if name == "fc":
            x = torch.randn(b, c, device=DEV, dtype=DT)
            wt = torch.randn(c, k, device=DEV, dtype=DT)
            layers.append((name, "gemm", "%dx%dx%d" % (b, k, c), rep, 2 * b * k * c,
                           lambda x=x, wt=wt: torch.mm(x, wt)))
        elif r is None:  # residual add: rows per image = h, cols = w
            x = torch.randn(b * h, w, device=DEV, dtype=DT)
            y = torch.randn(b * h, w, device=DEV, dtype=DT)
            layers.append((name, "add", "%dx%d" % (b * h, w), rep, 0, lambda x=x, y=y: torch.add(x, y)))
        else:
            x = torch.randn(b, c, h, w, device=DEV, dtype=DT).to(memory_format=torch.channels_last)
            wt = torch.randn(k, c, r, r, device=DEV, dtype=DT).to(memory_format=torch.channels_last)
            p, q = (h + 2 * pad - r) // stride + 1, (w + 2 * pad - r) // stride + 1
            layers.append((name, "conv2d", "n%d h%d w%d c%d k%d r%d s%d" % (b, h, w, c, k, r, stride),
                           rep, 2 * b * p * q * k * c * r * r,
                           lambda x=x, wt=wt, s=stride, pd=pad: F.conv2d(x, wt, stride=s, padding=pd)))
    return layers


def bert_layers(b, seq=512, d=1024, heads=16, ff=4096):
    """workloads/bert_large.yaml's block (each layer repeat 24)."""
    m = b * seq
    t = lambda *s: torch.randn(*s, device=DEV, dtype=DT)
    x, y, wqkv, wo, wup, wdn = t(m, d), t(m, d), t(d, 3 * d), t(d, d), t(d, ff), t(ff, d)
    h4 = t(m, ff)
    q, k, v = t(b, heads, seq, 64), t(b, heads, seq, 64), t(b, heads, seq, 64)
    g, bb = t(d), t(d)
    att_flops = 4 * b * heads * seq * seq * 64
    return [
        ("qkv_proj", "gemm", "%dx%dx%d" % (m, 3 * d, d), 24, 2 * m * 3 * d * d, lambda: torch.mm(x, wqkv)),
        ("attention", "attention", "b%d h%d s%d d64" % (b, heads, seq), 24, att_flops,
         lambda: F.scaled_dot_product_attention(q, k, v)),
        ("out_proj", "gemm", "%dx%dx%d" % (m, d, d), 24, 2 * m * d * d, lambda: torch.mm(x, wo)),
        ("attn_residual", "add", "%dx%d" % (m, d), 24, 0, lambda: torch.add(x, y)),
        ("attn_norm", "layernorm", "%dx%d" % (m, d), 24, 0, lambda: F.layer_norm(x, (d,), g, bb)),
        ("ffn_up", "gemm", "%dx%dx%d" % (m, ff, d), 24, 2 * m * ff * d, lambda: torch.mm(x, wup)),
        ("ffn_gelu", "gelu", "%dx%d" % (m, ff), 24, 0, lambda: F.gelu(h4)),
        ("ffn_down", "gemm", "%dx%dx%d" % (m, d, ff), 24, 2 * m * d * ff, lambda: torch.mm(h4, wdn)),
        ("ffn_residual", "add", "%dx%d" % (m, d), 24, 0, lambda: torch.add(x, y)),
        ("ffn_norm", "layernorm", "%dx%d" % (m, d), 24, 0, lambda: F.layer_norm(x, (d,), g, bb)),
    ]


def graph_of(calls):
    return graph_of_calls(calls, warm_all=True)


def measure(network, b, layers):
    t0 = time.time()
    total = 0.0
    for name, op, shape, rep, flops, fn in layers:
        sec = time_graph(graph_of([fn] * REPS)) / REPS
        total += sec * rep
        tf = "%.2f" % (flops / sec / 1e12) if flops else ""
        out.writerow([network, b, name, op, shape, rep, "%.9f" % sec, tf, kernels_of(fn, width=120)])
        out_file.flush()
        print(network, b, name, shape, "%.2f us" % (sec * 1e6), tf, flush=True)
    seq = [fn for _, _, _, rep, _, fn in layers for _ in range(rep)]
    whole = time_graph(graph_of(seq))
    out.writerow([network, b, "(whole network, one graph)", "", "", 1, "%.9f" % whole, "", ""])
    out.writerow([network, b, "(sum of layers x repeat)", "", "", 1, "%.9f" % total, "", ""])
    out_file.flush()
    print("%s b%d whole %.1f us, sum %.1f us, %.1f s" % (network, b, whole * 1e6, total * 1e6,
                                                       time.time() - t0), flush=True)


def gemm_shapes(b):
    """workloads/gemm_shapes.yaml at batch 1 (decode, GPT-3 MLP up, BERT qkv at 8 x 512 rows)."""
    rows = []
    for name, m, n, k in (("decode_8x8k", 8, 8192, 8192), ("gpt3_mlp_up", 2048, 49152, 12288),
                          ("bert_qkv", 4096, 1024, 1024)):
        x = torch.randn(m, k, device=DEV, dtype=DT)
        w = torch.randn(k, n, device=DEV, dtype=DT)
        rows.append((name, "gemm", "%dx%dx%d" % (m, n, k), 1, 2 * m * n * k,
                     lambda x=x, w=w: torch.mm(x, w)))
    return rows


try:
    measure("gemm_shapes", 1, gemm_shapes(1))
except Exception as ex:
    print("FAILED gemm_shapes", repr(ex), flush=True)
for b in (1, 8):
    for net, make in (("resnet50", resnet_layers), ("bert_large", bert_layers)):
        try:
            measure(net, b, make(b))
        except Exception as ex:
            print("FAILED", net, b, repr(ex), flush=True)
        torch.cuda.empty_cache()
out_file.close()
