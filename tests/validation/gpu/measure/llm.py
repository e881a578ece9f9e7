"""Measures LLM blocks on a real GPU, for tests/validation/gpu: every layer of
workloads/gpt3_175b.yaml and workloads/llama2_70b.yaml (the same shapes, bf16) for a decode step
(tokens 1 against a 2048-position KV cache, batch 1 and 8) and the GPT-3 prefill of 2048 tokens,
plus a GEMV sweep (m = 1..128 rows against the decode weight matrices). Each layer is captured
REPS times in one CUDA graph and the graph replayed (no host launch overhead; the GPU's gap
between kernels stays). One more graph holds the whole block in order and gives the block's time.
Every weight matrix is larger than the 50 MiB L2, so repeated calls read weights from HBM as a
real decode step does. Decode attention is PyTorch's scaled_dot_product_attention (grouped-query
for Llama through enable_gqa), not a serving engine's paged kernel; the kernel names say which
ran. Usage: python3 llm.py OUTDIR  (writes OUTDIR/llm.csv)."""
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
REPS = 20
torch.backends.cuda.matmul.allow_tf32 = False

out_file = open(os.path.join(OUT, "llm.csv"), "w", newline="")
out = csv.writer(out_file)
out.writerow(["network", "batch", "tokens", "context", "layer", "op", "shape", "seconds",
              "tflops", "gbytes_per_s", "kernels"])


def t(*s):
    return torch.randn(*s, device=DEV, dtype=DT)


def gemm(name, m, n, k):
    x, w = t(m, k), t(k, n)
    return (name, "gemm", "%dx%dx%d" % (m, n, k), 2 * m * n * k, 2 * (m * k + k * n + m * n),
            lambda: torch.mm(x, w))


def rowwise(name, op, rows, cols, fn_of, inputs):
    xs = [t(rows, cols) for _ in range(inputs)]
    return (name, op, "%dx%d" % (rows, cols), 0, 2 * rows * cols * (inputs + 1),
            lambda: fn_of(*xs))


def attention(name, b, heads, kv_heads, sq, skv, d, causal):
    q, k, v = t(b, heads, sq, d), t(b, kv_heads, skv, d), t(b, kv_heads, skv, d)
    flops = 4 * b * heads * sq * skv * d // (2 if causal and sq == skv else 1)
    nbytes = 2 * (2 * b * heads * sq * d + 2 * b * kv_heads * skv * d)
    gqa = kv_heads != heads
    fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal and sq > 1,
                                                enable_gqa=gqa)
    return (name, "attention", "b%d h%d kvh%d sq%d skv%d d%d" % (b, heads, kv_heads, sq, skv, d),
            flops, nbytes, fn)


def gpt3(b, tokens, context):
    m, d = b * tokens, 12288
    g, bb = t(d), t(d)
    return [
        rowwise("attn_norm", "layernorm", m, d, lambda x: F.layer_norm(x, (d,), g, bb), 1),
        gemm("qkv_proj", m, 3 * d, d),
        attention("attention", b, 96, 96, tokens, context, 128, True),
        gemm("out_proj", m, d, d),
        rowwise("attn_residual", "add", m, d, torch.add, 2),
        rowwise("mlp_norm", "layernorm", m, d, lambda x: F.layer_norm(x, (d,), g, bb), 1),
        gemm("mlp_up", m, 4 * d, d),
        rowwise("mlp_gelu", "gelu", m, 4 * d, F.gelu, 1),
        gemm("mlp_down", m, d, 4 * d),
        rowwise("mlp_residual", "add", m, d, torch.add, 2),
    ]


def llama(b, tokens, context):
    m, d, ff = b * tokens, 8192, 28672
    g = t(d)
    return [
        rowwise("attn_norm", "rmsnorm", m, d, lambda x: F.rms_norm(x, (d,), g), 1),
        gemm("qkv_proj", m, d + 2 * 8 * 128, d),
        attention("attention", b, 64, 8, tokens, context, 128, True),
        gemm("out_proj", m, d, d),
        rowwise("attn_residual", "add", m, d, torch.add, 2),
        rowwise("mlp_norm", "rmsnorm", m, d, lambda x: F.rms_norm(x, (d,), g), 1),
        gemm("gate_up_proj", m, 2 * ff, d),
        rowwise("silu", "silu", m, ff, F.silu, 1),
        rowwise("gate", "mul", m, ff, torch.mul, 2),
        gemm("down_proj", m, d, ff),
        rowwise("mlp_residual", "add", m, d, torch.add, 2),
    ]


def gemv_sweep():
    rows = []
    for n, k in ((8192, 8192), (4 * 12288, 12288), (8192, 28672)):
        for m in (1, 2, 4, 8, 16, 32, 64, 128):
            rows.append(gemm("gemv_m%d" % m, m, n, k))
    return rows


def graph_of(calls):
    return graph_of_calls(calls)


def measure(network, b, tokens, context, layers, whole=True):
    t0 = time.time()
    total = 0.0
    for name, op, shape, flops, nbytes, fn in layers:
        try:
            sec = time_graph(graph_of([fn] * REPS)) / REPS
        except Exception as ex:
            print("FAILED", network, name, repr(ex), flush=True)
            continue
        total += sec
        tf = "%.2f" % (flops / sec / 1e12) if flops else ""
        gb = "%.1f" % (nbytes / sec / 1e9)
        out.writerow([network, b, tokens, context, name, op, shape, "%.9f" % sec, tf, gb,
                      kernels_of(fn, width=120)])
        out_file.flush()
        print(network, b, tokens, name, shape, "%.2f us" % (sec * 1e6), tf, gb, flush=True)
    if whole:
        sec = time_graph(graph_of([fn for *_, fn in layers]))
        out.writerow([network, b, tokens, context, "(whole block, one graph)", "", "",
                      "%.9f" % sec, "", "", ""])
        out.writerow([network, b, tokens, context, "(sum of layers)", "", "", "%.9f" % total,
                      "", "", ""])
        out_file.flush()
        print("%s b%d t%d whole %.1f us, sum %.1f us, %.1f s" % (network, b, tokens, sec * 1e6,
                                                             total * 1e6, time.time() - t0),
              flush=True)


for net, make, b, tokens, ctx in (("gpt3_175b", gpt3, 1, 1, 2048), ("gpt3_175b", gpt3, 8, 1, 2048),
                                  ("llama2_70b", llama, 1, 1, 2048),
                                  ("llama2_70b", llama, 8, 1, 2048),
                                  ("gpt3_175b", gpt3, 1, 2048, 2048),
                                  ("llama2_70b", llama, 1, 2048, 2048)):
    try:
        measure(net, b, tokens, ctx, make(b, tokens, ctx))
    except Exception as ex:
        print("FAILED", net, b, tokens, repr(ex), flush=True)
    torch.cuda.empty_cache()
try:
    measure("gemv_sweep", 0, 0, 0, gemv_sweep(), whole=False)
except Exception as ex:
    print("FAILED gemv_sweep", repr(ex), flush=True)
out_file.close()
