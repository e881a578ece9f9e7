"""Measures a real GPU for tests/validation/gpu: GEMMs (bf16/fp16/fp8/tf32), attention, convolution,
elementwise kernels, STREAM bandwidth and launch overhead, through PyTorch (cuBLAS/cuBLASLt, cuDNN,
PyTorch's FlashAttention-2). Each row: what ran, its shape, the mean time of timed repeats measured
with CUDA events after warm-up runs, and the FLOP/s or bytes/s it implies. The kernel names that
the torch profiler saw are written beside each GEMM/conv/attention row (cuBLAS's tile and cluster
choice is in the name). Run by measure.sh; writes CSV files into the folder given as argv[1]."""
import csv
import os
import sys
import time

import torch
import torch.nn.functional as F

from timing import bench, kernels_of  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
DEV = torch.device("cuda")
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.backends.cudnn.benchmark = True

rows_file = open(os.path.join(OUT, "measured.csv"), "w", newline="")
rows = csv.writer(rows_file)
rows.writerow(["group", "name", "dtype", "shape", "seconds", "tflops", "gbytes_per_s", "kernels"])


def log(*a):
    print(*a, flush=True)


def put(group, name, dtype, shape, sec, flops=None, nbytes=None, kern=""):
    tf = "" if flops is None else "%.2f" % (flops / sec / 1e12)
    gb = "" if nbytes is None else "%.1f" % (nbytes / sec / 1e9)
    rows.writerow([group, name, dtype, shape, "%.9f" % sec, tf, gb, kern])
    rows_file.flush()
    log(group, name, dtype, shape, "%.3f us" % (sec * 1e6), tf, gb)


def section(fn):
    t0 = time.time()
    try:
        fn()
    except Exception as ex:
        log("SECTION FAILED", fn.__name__, repr(ex))
    log("== %s took %.1f s" % (fn.__name__, time.time() - t0))


GEMM_SHAPES = [(n, n, n) for n in (256, 512, 1024, 2048, 4096, 8192, 16384)] + [
    (6144, 12288, 12288), (802816, 192, 768), (1024, 2145, 1024), (1024, 10240, 5120),
    (2048, 2048, 13312), (1024, 15360, 4096), (4096, 4096, 1024), (3072, 5120, 2560),
    (128, 8192, 8192), (16, 12288, 12288), (4000, 4000, 4000), (8192, 1024, 8192),
    (2048, 49152, 12288), (2048, 12288, 49152), (16384, 4096, 4096), (1536, 1536, 1536)]


def gemms():
    for dt, dname in ((torch.bfloat16, "bf16"), (torch.float16, "fp16")):
        for (m, n, k) in GEMM_SHAPES:
            a = torch.randn(m, k, device=DEV, dtype=dt)
            b = torch.randn(k, n, device=DEV, dtype=dt)
            c = torch.empty(m, n, device=DEV, dtype=dt)
            fn = lambda: torch.mm(a, b, out=c)
            sec = bench(fn)
            kern = kernels_of(fn) if dname == "bf16" or m == n == k else ""
            put("gemm", "mm", dname, "%dx%dx%d" % (m, n, k), sec, 2.0 * m * n * k, None, kern)
            del a, b, c
    torch.backends.cuda.matmul.allow_tf32 = True
    for n in (4096, 8192):
        a = torch.randn(n, n, device=DEV)
        b = torch.randn(n, n, device=DEV)
        fn = lambda: torch.mm(a, b)
        put("gemm", "mm", "tf32", "%dx%dx%d" % (n, n, n), bench(fn), 2.0 * n ** 3, None, kernels_of(fn))
    torch.backends.cuda.matmul.allow_tf32 = False
    a = torch.randn(4096, 4096, device=DEV)
    fn = lambda: torch.mm(a, a)
    put("gemm", "mm", "fp32", "4096x4096x4096", bench(fn), 2.0 * 4096 ** 3, None, kernels_of(fn))


def gemms_fp8():
    if not hasattr(torch, "float8_e4m3fn"):
        return
    one = torch.tensor(1.0, device=DEV)
    shapes = [(n, n, n) for n in (1024, 2048, 4096, 8192, 16384)] + [(1024, 9216, 14336), (4096, 4096, 1024)]
    for fast in (False, True):
        for (m, n, k) in shapes:
            a = (torch.randn(m, k, device=DEV) * 0.5).to(torch.float8_e4m3fn)
            bt = (torch.randn(n, k, device=DEV) * 0.5).to(torch.float8_e4m3fn)
            fn = lambda: torch._scaled_mm(a, bt.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16,
                                          use_fast_accum=fast)
            sec = bench(fn)
            put("gemm", "scaled_mm_fastacc" if fast else "scaled_mm", "fp8e4m3", "%dx%dx%d" % (m, n, k), sec,
                2.0 * m * n * k, None, kernels_of(fn) if m == n == k else "")
            del a, bt


def stream():
    n = 1 << 28  # fp32 elements: 1 GiB per array
    a = torch.ones(n, device=DEV)
    b = torch.ones(n, device=DEV)
    c = torch.ones(n, device=DEV)
    e = 4 * n
    put("stream", "copy", "fp32", str(n), bench(lambda: b.copy_(a)), None, 2 * e)
    put("stream", "scale", "fp32", str(n), bench(lambda: torch.mul(a, 3.0, out=b)), None, 2 * e)
    put("stream", "add", "fp32", str(n), bench(lambda: torch.add(a, b, out=c)), None, 3 * e)
    put("stream", "triad", "fp32", str(n), bench(lambda: torch.add(b, c, alpha=3.0, out=a)), None, 3 * e)
    put("stream", "init", "fp32", str(n), bench(lambda: a.fill_(1.5)), None, e)
    put("stream", "read_sum", "fp32", str(n), bench(lambda: a.sum()), None, e)
    del a, b, c
    for mb in (4, 8, 16, 24, 32, 48, 64, 128):
        n = (mb << 20) // 4
        x = torch.ones(n, device=DEV)
        y = torch.ones(n, device=DEV)
        put("l2copy", "copy", "fp32", "%dMiB" % mb, bench(lambda: y.copy_(x), min_time=0.05), None, 2 * 4 * n)
        del x, y


def elementwise():
    rows_, cols = 16384, 8192
    x = torch.randn(rows_, cols, device=DEV, dtype=torch.bfloat16)
    w = torch.ones(cols, device=DEV, dtype=torch.bfloat16)
    nb = rows_ * cols * 2
    for name, fn, traffic in (
            ("gelu", lambda: F.gelu(x), 2 * nb),
            ("relu", lambda: F.relu(x), 2 * nb),
            ("add", lambda: x + x, 2 * nb),
            ("softmax", lambda: torch.softmax(x, dim=-1), 2 * nb),
            ("layernorm", lambda: F.layer_norm(x, (cols,), w, w), 2 * nb),
            ("rmsnorm", lambda: F.rms_norm(x, (cols,), w), 2 * nb)):
        put("elementwise", name, "bf16", "%dx%d" % (rows_, cols), bench(fn), None, traffic, kernels_of(fn))


def launch():
    x = torch.zeros(1, device=DEV)
    n = 2000
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(100):
        x.add_(1)
    s.record()
    for _ in range(n):
        x.add_(1)
    e.record()
    e.synchronize()
    put("launch", "eager_tiny_kernel", "fp32", "1", s.elapsed_time(e) * 1e-3 / n)
    g = torch.cuda.CUDAGraph()
    st = torch.cuda.Stream()
    st.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(st):
        for _ in range(3):
            x.add_(1)
    torch.cuda.current_stream().wait_stream(st)
    with torch.cuda.graph(g):
        for _ in range(200):
            x.add_(1)
    g.replay()
    torch.cuda.synchronize()
    put("launch", "graph_tiny_kernel", "fp32", "1", bench(lambda: g.replay()) / 200)
    a = torch.randn(64, 64, device=DEV, dtype=torch.bfloat16)
    put("launch", "mm_64", "bf16", "64x64x64", bench(lambda: torch.mm(a, a)), 2.0 * 64 ** 3)


def attention():
    from torch.nn.attention import SDPBackend, sdpa_kernel

    backends = [("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)]
    cases = [(16384 // s, 16, s, 128) for s in (512, 1024, 2048, 4096, 8192, 16384)]
    cases += [(2, 16, 8192, 128), (2, 32, 8192, 64), (16, 16, 512, 64)]
    for bname, be in backends:
        for causal in (False, True):
            for (b, h, s, d) in cases:
                if causal and d != 128:
                    continue
                q = torch.randn(b, h, s, d, device=DEV, dtype=torch.bfloat16)
                k = torch.randn_like(q)
                v = torch.randn_like(q)
                try:
                    with sdpa_kernel([be]):
                        fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                        sec = bench(fn)
                        kern = kernels_of(fn)
                except Exception as ex:
                    log("attention", bname, b, h, s, d, "failed:", repr(ex)[:200])
                    continue
                flops = 4.0 * b * h * s * s * d / (2 if causal else 1)
                put("attention", "sdpa_%s%s" % (bname, "_causal" if causal else ""), "bf16",
                    "b%d_h%d_s%d_d%d" % (b, h, s, d), sec, flops, None, kern)
    # unfused: the math backend (bmm, softmax, bmm) for the unfused mapping
    with sdpa_kernel([SDPBackend.MATH]):
        for s in (1024, 2048, 4096):
            b, h, d = 16384 // s, 16, 128
            q = torch.randn(b, h, s, d, device=DEV, dtype=torch.bfloat16)
            fn = lambda: F.scaled_dot_product_attention(q, q, q)
            put("attention", "sdpa_math", "bf16", "b%d_h%d_s%d_d%d" % (b, h, s, d), bench(fn),
                4.0 * b * h * s * s * d, None, kernels_of(fn))


def conv():
    # ResNet-50 layers, batch 32, fp16, NHWC (channels_last), cuDNN with benchmark autotuning
    layers = [("conv1", 3, 64, 224, 7, 2), ("res2_1x1a", 64, 64, 56, 1, 1), ("res2_3x3", 64, 64, 56, 3, 1),
              ("res2_1x1b", 64, 256, 56, 1, 1), ("res3_3x3", 128, 128, 28, 3, 1), ("res4_3x3", 256, 256, 14, 3, 1),
              ("res4_1x1", 1024, 256, 14, 1, 1), ("res5_3x3", 512, 512, 7, 3, 1), ("res5_1x1", 2048, 512, 7, 1, 1)]
    batch = 32
    for (name, cin, cout, hw, k, stride) in layers:
        x = torch.randn(batch, cin, hw, hw, device=DEV, dtype=torch.float16).to(memory_format=torch.channels_last)
        w = torch.randn(cout, cin, k, k, device=DEV, dtype=torch.float16).to(memory_format=torch.channels_last)
        fn = lambda: F.conv2d(x, w, stride=stride, padding=k // 2)
        sec = bench(fn)
        ho = (hw + 2 * (k // 2) - k) // stride + 1
        flops = 2.0 * batch * ho * ho * cout * cin * k * k
        put("conv", name, "fp16", "n%d_c%d_k%d_hw%d_r%d_s%d" % (batch, cin, cout, hw, k, stride), sec, flops, None,
            kernels_of(fn))


def sustained():
    # Throughput over 3 s windows of back-to-back 8192^3 bf16 products: the 700 W cap lowers the SM
    # clock once the card warms (smi_clocks.csv shows it); zeros draw less power than random data.
    n = 8192
    for init in ("random", "zeros"):
        a = torch.randn(n, n, device=DEV, dtype=torch.bfloat16)
        if init == "zeros":
            a.zero_()
        c = torch.empty_like(a)
        fn = lambda: torch.mm(a, a, out=c)
        for w in range(6):
            put("sustained", "mm_%s_window%d" % (init, w), "bf16", "8192x8192x8192",
                bench(fn, min_time=0.5, warmup=1, max_iters=2000), 2.0 * n ** 3)


if __name__ == "__main__":
    p = torch.cuda.get_device_properties(0)
    log("device", p.name, "sms", p.multi_processor_count, "l2", getattr(p, "L2_cache_size", "?"),
        "torch", torch.__version__, "cuda", torch.version.cuda)
    with open(os.path.join(OUT, "env.txt"), "w") as f:
        f.write("device=%s\nsms=%d\nl2=%s\ntorch=%s\ncuda=%s\ncudnn=%s\n" % (
            p.name, p.multi_processor_count, getattr(p, "L2_cache_size", "?"), torch.__version__,
            torch.version.cuda, torch.backends.cudnn.version()))
    order = sys.argv[2].split(",") if len(sys.argv) > 2 else [
        "gemms", "stream", "launch", "attention", "gemms_fp8", "elementwise", "conv", "sustained"]
    for name in order:
        section(globals()[name])
    rows_file.close()
