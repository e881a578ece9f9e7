#!/usr/bin/env python3
"""ResNet-50's layers that cuDNN ran as Hopper implicit-GEMM kernels (data/<gpu>_networks_run1.csv,
measure/networks.py: each layer alone, 20 calls in one CUDA graph), simulated with that kernel's
own tile (its sm90_xmma_fprop name: tilesize<M>x<N>x<K>_warpgroupsize<A>x<B>x1) through simrun:
splits a layer's error into the tile choice and the device's timing of that tile (README.md,
"Implicit-GEMM convolutions on sm_90"). Usage: cudnn_tiles.py SIMRUN [h100|h200 ...]"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PRESET = {"h100": "h100_sxm5", "h200": "h200_sxm"}


def layers(gpu):
    rows = []
    with open(os.path.join(HERE, "data", f"{gpu}_networks_run1.csv")) as f:
        for line in f:
            c = line.strip().split(",")
            m = re.search(r"sm90_xmma_fprop.*tilesize(\d+)x(\d+)x(\d+)_warpgroupsize(\d+)x(\d+)", line)
            if c[0] != "resnet50" or not m:
                continue
            shape = dict((p[0], int(p[1:])) for p in c[4].split())
            rows.append((c[1], c[2], shape, [int(x) for x in m.groups()], float(c[6]) * 1e6))
    return rows


def simulate(simrun, gpu, rows):
    col = lambda f: "[" + ", ".join(str(f(r)) for r in rows) + "]"
    keys = [("workload.params.n", lambda r: r[2]["n"]), ("workload.params.h", lambda r: r[2]["h"]),
            ("workload.params.c", lambda r: r[2]["c"]), ("workload.params.k", lambda r: r[2]["k"]),
            ("workload.params.r", lambda r: r[2]["r"]), ("workload.params.st", lambda r: r[2]["s"])]
    keys += [(f"system.mapping.{k}", (lambda i: lambda r: r[3][i])(i))
             for i, k in enumerate(["tile_m", "tile_n", "tile_k", "warps_m", "warps_n"])]
    sweep = "\n".join(("    - " if i == 0 else "      ") + f"{k}: {col(f)}" for i, (k, f) in enumerate(keys))
    yaml = (f"name: cudnn-tiles-{gpu}\nbase: {HERE}/../../../configs/presets/{PRESET[gpu]}.yaml\n"
            "workload:\n  name: conv\n  params: {n: 1, h: 14, c: 256, k: 256, r: 3, st: 1}\n  layers:\n"
            "    - {name: conv, op: conv2d, n: n, h: h, w: h, c: c, k: k, r: r, s: r, stride: st, "
            "pad: '(r - 1) / 2'}\n" f"sweep:\n  zip:\n{sweep}\n")
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "x.yaml"), "w") as f:
            f.write(yaml)
        out = subprocess.run([simrun, "x.yaml", "-o", "x.h5", "-j", "2"], cwd=d, capture_output=True,
                             text=True, check=True).stdout
    sims = {}
    for line in out.splitlines():
        m = re.match(r"\s+(\d+)\s+[0-9a-f]{12}\s+.*\sok\s+([\d,]+)\s+([\d.]+) us", line)
        if m:
            sims[int(m.group(1))] = (int(m.group(2).replace(",", "")), float(m.group(3)))
    return [sims[i] for i in range(len(rows))]


def main():
    simrun = sys.argv[1]
    print("| GPU | batch | layer | cuDNN tile | CTAs | k-tiles | measured us | simulated us | error | MHz |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for gpu in sys.argv[2:] or ["h100", "h200"]:
        rows = layers(gpu)
        for r, (cycles, us) in zip(rows, simulate(simrun, gpu, rows)):
            s, t = r[2], r[3]
            m = s["n"] * (s["h"] // s["s"]) ** 2
            ctas = -(-m // t[0]) * -(-s["k"] // t[1])
            kt = s["r"] ** 2 * -(-s["c"] // t[2])
            print(f"| {gpu} | {r[0]} | {r[1]} | {t[0]}x{t[1]}x{t[2]} wg{t[3]}x{t[4]} | {ctas} | {kt} | "
                  f"{r[4]:.2f} | {us:.2f} | {100 * (r[4] / us - 1):+.1f}% | {cycles / us:.0f} |")


if __name__ == "__main__":
    main()
