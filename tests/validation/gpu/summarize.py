"""Prints the measurement tables of tests/validation/gpu/README.md from the CSVs in data/
(python3 summarize.py > tables.md): every figure in those tables comes from here."""
import csv
import os
import statistics

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
RUNS = ("h100_run1", "h100_run2", "h200_run1")


def rows(run):
    with open(os.path.join(DATA, run + ".csv")) as f:
        return list(csv.DictReader(f))


def index(run):
    out = {}
    for r in rows(run):
        out.setdefault((r["group"], r["name"], r["dtype"], r["shape"]), r)  # first of duplicates
    return out


def val(r, col):
    return float(r[col]) if r and r[col] else None


def cell(v, digits=0):
    if v is None:
        return "-"
    return "%.*f" % (digits if digits or abs(v) >= 100 else 1, v)


def table(head, body):
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for b in body:
        print("| " + " | ".join(b) + " |")
    print()


def keys(group, names=None):
    seen = []
    for run in RUNS:
        for r in rows(run):
            k = (r["group"], r["name"], r["dtype"], r["shape"])
            if r["group"] == group and (names is None or r["name"] in names) and k not in seen:
                seen.append(k)
    return seen


def spread(a, b):
    return None if a is None or b is None else 100.0 * (b - a) / a


def rate_table(title, group, col, digits=0, names=None, kernels=False, scale=1.0):
    print("**%s** (`%s`, column `%s`)\n" % (title, group, col))
    idx = {run: index(run) for run in RUNS}
    body = []
    for k in keys(group, names):
        v = [val(idx[run].get(k), col) for run in RUNS]
        v = [None if x is None else x * scale for x in v]
        row = ["%s %s %s" % (k[1], k[2], k[3])] + [cell(x, digits) for x in v]
        row.append(cell(spread(v[0], v[1]), 1))
        if kernels:
            kern = (idx["h100_run1"].get(k) or idx["h200_run1"].get(k) or {}).get("kernels", "")
            kern = kern.replace("Memset (Device) | ", "").replace(" | ", " + ")
            row.append("`%s`" % kern[:60] if kern else "")
        body.append(row)
    head = ["what", "H100 run1", "H100 run2", "H200", "run2 vs run1 %"]
    table(head + (["kernel (profiler, first 60 chars)"] if kernels else []), body)


def membench():
    mb = {}
    for run in RUNS:
        chase, bw = [], []
        with open(os.path.join(DATA, run + "_membench.csv")) as f:
            for line in f:
                p = line.strip().split(",")
                if p[0] == "chase":
                    chase.append((p[1], int(p[2]), float(p[3]), float(p[4])))
                elif p[0] == "readbw":
                    bw.append((int(p[1]), float(p[4])))
        mb[run] = (chase, bw)
    print("**Pointer chase** (cycles per dependent load at the SM clock; ns at 1980 MHz)\n")
    body = []
    for i, c in enumerate(mb["h100_run1"][0]):
        fp = c[1]
        size = "%d KiB" % (fp >> 10) if fp < (1 << 20) else "%d MiB" % (fp >> 20)
        row = ["%s %s" % (c[0], size)]
        for run in RUNS:
            x = mb[run][0][i]
            row.append("%.1f (%.1f)" % (x[2], x[3]))
        body.append(row)
    table(["mode, footprint", "H100 run1", "H100 run2", "H200"], body)
    print("**All-SM read bandwidth** (`readbw`, .cg float4 loads, GB/s)\n")
    body = []
    for i, b in enumerate(mb["h100_run1"][1]):
        body.append(["%d MiB" % (b[0] >> 20)] + ["%.0f" % mb[run][1][i][1] for run in RUNS])
    table(["footprint", "H100 run1", "H100 run2", "H200"], body)


def sustained():
    print("**Sustained 8192^3 bf16** (`sustained`: six windows of back-to-back products, "
          "each timed for at least 0.5 s; TFLOP/s)\n")
    body = []
    for run in ("h100_run2", "h200_run1"):
        for init in ("random", "zeros"):
            v = [float(r["tflops"]) for r in rows(run) if r["name"].startswith("mm_%s" % init)]
            body.append([run, init, " / ".join("%.0f" % x for x in v),
                         "%.0f" % statistics.mean(v)])
    table(["run", "data", "windows 0-5", "mean"], body)


def clocks():
    print("**Clocks** (`*_clocks.csv`, nvidia-smi every 200 ms)\n")
    body = []
    for run in RUNS:
        with open(os.path.join(DATA, run + "_clocks.csv")) as f:
            data = list(csv.reader(f))[1:]
        sm = [int(r[1].split()[0]) for r in data]
        mem = sorted({r[2].strip() for r in data})
        pw = [float(r[3].split()[0]) for r in data]
        capped = [s for s, r in zip(sm, data) if r[5].strip() == "0x0000000000000004"]
        hot = [s for s, p in zip(sm, pw) if p >= 600]
        body.append([run, str(len(data)), ", ".join(mem), "%.0f" % max(pw), str(max(sm)),
                     "%d (%d-%d MHz)" % (len(capped), min(capped), max(capped)),
                     "%d-%d" % (min(hot), max(hot))])
    table(["run", "samples", "memory clock", "max W", "max SM MHz",
           "samples SW power cap (SM clock)", "SM MHz at >= 600 W"], body)


if __name__ == "__main__":
    rate_table("GEMMs, TFLOP/s", "gemm", "tflops", 0, kernels=True)
    rate_table("STREAM, GB/s", "stream", "gbytes_per_s", 0)
    rate_table("Copy within or near the L2, GB/s", "l2copy", "gbytes_per_s", 0)
    membench()
    rate_table("Attention forward, TFLOP/s", "attention", "tflops", 0, kernels=True)
    rate_table("ResNet-50 convolutions, batch 32, fp16, TFLOP/s", "conv", "tflops", 0, kernels=True)
    rate_table("Elementwise, 16384x8192 bf16, GB/s (read + write)", "elementwise", "gbytes_per_s", 0)
    rate_table("Launch overhead, us per kernel", "launch", "seconds", 2, scale=1e6)
    sustained()
    clocks()
