"""Writes the simulator's experiments for the held-out shapes from each draw's CSV: draw 1
(heldout_shapes.csv) -> ../heldout_<kind>_<gpu>.yaml, draw 2 (heldout2_shapes.csv) ->
../heldout2_<kind>_<gpu>.yaml, and so on for draws 3-5; one zip sweep per kind and GPU preset, the points in the CSV's order.
test_gpu_heldout.cpp reads the same CSV and checks every shape is simulated exactly once."""
import csv
import os

HERE = os.path.dirname(os.path.abspath(__file__))
DRAWS = (("heldout", "heldout_shapes.csv"), ("heldout2", "heldout2_shapes.csv"),
         ("heldout3", "heldout3_shapes.csv"), ("heldout4", "heldout4_shapes.csv"),
         ("heldout5", "heldout5_shapes.csv"))
GPUS = (("h100", "h100_sxm5", "H100 SXM5"), ("h200", "h200_sxm", "H200 SXM"))
LAYERS = {
    "gemm": "{name: gemm, m: m, n: n, k: k}",
    "gemm_fp8": "{name: gemm, m: m, n: n, k: k, dtype: fp8_e4m3}",
    # PyTorch's flash backend is FlashAttention-2 (README.md: the sdpa_flash rows)
    "attention": "{name: attention, op: attention, batch: b, heads: h, seq_q: s, head_dim: d}",
    # padding r // 2, as F.conv2d(..., padding=k // 2) in measure/heldout.py
    "conv": "{name: conv, op: conv2d, n: n, h: hw, w: hw, c: c, k: k, r: r, s: r, stride: st, "
            "pad: '(r - 1) / 2'}",
}


def fields(kind, shape):
    """The swept parameters of one shape, in zip order."""
    if kind.startswith("gemm"):
        return dict(zip("mnk", shape.split("x")))
    out = {}
    for part in shape.split("_"):
        key = "hw" if part.startswith("hw") else part[0]
        out[key] = part[len(key):]
    if kind == "attention":
        out["causal"] = "true" if out.pop("c") == "1" else "false"
        return out
    out["st"] = out.pop("s")
    return out


def experiment(prefix, csv_name, kind, gpu, preset, title, shapes):
    cols = {}
    for s in shapes:
        for k, v in fields(kind, s).items():
            cols.setdefault(k, []).append(v)
    lines = ["# Held-out %s shapes on the %s preset (README.md, \"Held-out random shapes\"):" % (kind, title),
             "# written by measure/heldout_configs.py from measure/%s; do not edit." % csv_name,
             "name: %s-%s-%s" % (prefix, kind.replace("_", "-"), gpu),
             "base: ../../../configs/presets/%s.yaml" % preset,
             "workload:",
             "  name: %s" % kind,
             "  params: {%s}" % ", ".join("%s: %s" % (k, v[0]) for k, v in cols.items() if k != "causal"),
             "  layers:",
             "    - " + LAYERS[kind]]
    # warmup 1: the clock settled from a simulated pass and the L2 a previous call left, as the
    # measurements' warm-up calls (decided by draw 4, README.md "Draw 4")
    if kind == "attention":
        lines += ["system:", "  mapping: {force_fa2: true}", "  warmup: 1"]
    else:
        lines += ["system: {warmup: 1}"]
    lines += ["sweep:", "  zip:"]
    first = True
    for k, v in cols.items():
        path = "workload.layers[0].causal" if k == "causal" else "workload.params." + k
        lines.append(("    - " if first else "      ") + "%s: [%s]" % (path, ", ".join(v)))
        first = False
    lines.append("output: {file: %s_%s_%s.h5}" % (prefix, kind, gpu))
    return "\n".join(lines) + "\n"


def main():
    for prefix, csv_file in DRAWS:
        with open(os.path.join(HERE, csv_file)) as f:
            rows = list(csv.DictReader(f))
        for gpu, preset, title in GPUS:
            for kind in LAYERS:
                shapes = [r["shape"] for r in rows if r["kind"] == kind]
                with open(os.path.join(HERE, "..", "%s_%s_%s.yaml" % (prefix, kind, gpu)), "w") as f:
                    f.write(experiment(prefix, csv_file, kind, gpu, preset, title, shapes))


if __name__ == "__main__":
    main()
