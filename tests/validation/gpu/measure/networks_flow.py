"""Measures zoo networks as networks: ResNet-50 and BERT-large (bf16, batch 1 and 8) with real
data flow (each layer consumes the previous layer's output, every layer instance has its own
weights), so the L2 holds what it would hold in a real forward pass. This complements
networks.py, whose per-layer graphs reuse the same tensors and so keep elementwise layers'
operands L2-resident. Shapes and layer names are those of workloads/resnet50.yaml and
workloads/bert_large.yaml; what those files leave out (ReLU, batch norm, biases) is left out here;
the max pool and average pool of ResNet-50 and BERT's head split/merge copies run, unattributed
(in the network's time, in no layer's). Per layer: the summed GPU time of the kernels it launched (torch profiler,
`record_function` ranges, one eager pass after warm-up). Per network: one CUDA graph of the
whole forward, replayed and timed with CUDA events.
Usage: python3 networks_flow.py OUTDIR  (writes OUTDIR/networks_flow.csv)."""
import csv
import os
import sys

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, record_function

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
DEV, DT = torch.device("cuda"), torch.bfloat16
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.backends.cudnn.benchmark = True
out_file = open(os.path.join(OUT, "networks_flow.csv"), "w", newline="")
out = csv.writer(out_file)
out.writerow(["network", "batch", "layer", "seconds", "calls"])


def rnd(*s, cl=False):
    t = torch.randn(*s, device=DEV, dtype=DT) * 0.05
    return t.to(memory_format=torch.channels_last) if cl else t


class Net:
    """A forward pass as a list of (layer name, callable) in order; callables share `env`."""

    def __init__(self):
        self.steps = []

    def add(self, name, fn):
        self.steps.append((name, fn))

    def run(self, env, ranges):
        for name, fn in self.steps:
            if ranges and name is not None:
                with record_function("L:" + name):
                    fn(env)
            else:
                fn(env)


def resnet(b):
    n, env = Net(), {"x": rnd(b, 3, 224, 224, cl=True)}
    w = lambda k, c, r: rnd(k, c, r, r, cl=True)
    wc1 = w(64, 3, 7)
    n.add("conv1", lambda e: e.__setitem__("x", F.conv2d(e["x"], wc1, stride=2, padding=3)))
    n.add(None, lambda e: e.__setitem__("x", F.max_pool2d(e["x"], 3, 2, 1)))
    c_in = 64
    for stage, width, blocks, stride in ((2, 64, 3, 1), (3, 128, 4, 2), (4, 256, 6, 2), (5, 512, 3, 2)):
        for i in range(blocks):
            first = i == 0
            tag = lambda s: "conv%d_1%s" % (stage, s) if first else "conv%d_%s" % (stage, s)
            wa, wb, wcc = w(width, c_in, 1), w(width, width, 3), w(4 * width, width, 1)
            s = stride if first else 1
            n.add(tag("a"), lambda e, wa=wa: e.__setitem__("a", F.conv2d(e["x"], wa)))
            n.add(tag("b"), lambda e, wb=wb, s=s: e.__setitem__("a", F.conv2d(e["a"], wb, stride=s, padding=1)))
            n.add(tag("c"), lambda e, wcc=wcc: e.__setitem__("a", F.conv2d(e["a"], wcc)))
            if first:
                wp = w(4 * width, c_in, 1)
                n.add(tag("proj"), lambda e, wp=wp, s=s: e.__setitem__("x", F.conv2d(e["x"], wp, stride=s)))
            n.add("conv%d_add" % stage, lambda e: e.__setitem__("x", e["a"] + e["x"]))
            c_in = 4 * width
    wfc = rnd(2048, 1000)
    n.add(None, lambda e: e.__setitem__("p", F.adaptive_avg_pool2d(e["x"], 1).flatten(1)))
    n.add("fc", lambda e: e.__setitem__("y", e["p"] @ wfc))
    return n, env


def bert(b, seq=512, d=1024, heads=16, ff=4096, layers=24):
    n, env = Net(), {"x": rnd(b * seq, d)}
    for _ in range(layers):
        wqkv, wo, wup, wdn = rnd(d, 3 * d), rnd(d, d), rnd(d, ff), rnd(ff, d)
        g, bb = torch.ones(d, device=DEV, dtype=DT), torch.zeros(d, device=DEV, dtype=DT)

        def heads_of(e):
            qkv = e["qkv"].view(b, seq, 3, heads, d // heads).permute(2, 0, 3, 1, 4)
            e["q"], e["k"], e["v"] = qkv[0], qkv[1], qkv[2]

        n.add("qkv_proj", lambda e, w=wqkv: e.__setitem__("qkv", e["x"] @ w))
        n.add(None, heads_of)
        n.add("attention", lambda e: e.__setitem__("a", F.scaled_dot_product_attention(e["q"], e["k"], e["v"])))
        n.add(None, lambda e: e.__setitem__("a", e["a"].transpose(1, 2).reshape(b * seq, d)))
        n.add("out_proj", lambda e, w=wo: e.__setitem__("a", e["a"] @ w))
        n.add("attn_residual", lambda e: e.__setitem__("h", e["a"] + e["x"]))
        n.add("attn_norm", lambda e, g=g, bb=bb: e.__setitem__("h", F.layer_norm(e["h"], (d,), g, bb)))
        n.add("ffn_up", lambda e, w=wup: e.__setitem__("u", e["h"] @ w))
        n.add("ffn_gelu", lambda e: e.__setitem__("u", F.gelu(e["u"])))
        n.add("ffn_down", lambda e, w=wdn: e.__setitem__("y", e["u"] @ w))
        n.add("ffn_residual", lambda e: e.__setitem__("y", e["y"] + e["h"]))
        n.add("ffn_norm", lambda e, g=g, bb=bb: e.__setitem__("x", F.layer_norm(e["y"], (d,), g, bb)))
    return n, env


def graph_time(net, env):
    x0 = {k: v.clone() for k, v in env.items()}
    for _ in range(3):
        env.update({k: v.clone() for k, v in x0.items()})
        net.run(env, False)
    torch.cuda.synchronize()
    env.update({k: v.clone() for k, v in x0.items()})
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        net.run(env, False)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    env.update({k: v.clone() for k, v in x0.items()})
    with torch.cuda.graph(g):
        net.run(env, False)
    g.replay()
    torch.cuda.synchronize()
    st, en = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    st.record()
    for _ in range(20):
        g.replay()
    en.record()
    en.synchronize()
    env.update(x0)
    return st.elapsed_time(en) * 1e-3 / 20


def layer_times(net, env):
    x0 = {k: v.clone() for k, v in env.items()}
    net.run(env, False)
    torch.cuda.synchronize()
    env.update(x0)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        net.run(env, True)
        torch.cuda.synchronize()
    per, calls = {}, {}
    for ev in p.events():
        if ev.device_type != torch.autograd.DeviceType.CUDA and ev.name.startswith("L:"):
            t = ev.device_time_total if hasattr(ev, "device_time_total") else ev.cuda_time_total
            per[ev.name[2:]] = per.get(ev.name[2:], 0.0) + t * 1e-6
            calls[ev.name[2:]] = calls.get(ev.name[2:], 0) + 1
    return per, calls


for b in (1, 8):
    for name, make in (("resnet50", resnet), ("bert_large", bert)):
        try:
            net, env = make(b)
            whole = graph_time(net, env)
            per, calls = layer_times(net, env)
            for layer in per:
                out.writerow([name, b, layer, "%.9f" % per[layer], calls[layer]])
            attributed = sum(per.values())
            out.writerow([name, b, "(sum of layers)", "%.9f" % attributed, ""])
            out.writerow([name, b, "(whole network, one graph)", "%.9f" % whole, 1])
            out_file.flush()
            print("%s b%d: graph %.1f us, layers' kernels %.1f us" %
                  (name, b, whole * 1e6, attributed * 1e6), flush=True)
            del net, env
            torch.cuda.empty_cache()
        except Exception as ex:
            print("FAILED", name, b, repr(ex), flush=True)
out_file.close()
