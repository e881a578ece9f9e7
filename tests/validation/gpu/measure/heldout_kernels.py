"""The kernels behind each held-out shape (heldout_shapes.csv): for every case, 20 calls under the
PyTorch profiler (CUPTI), and for each kernel the mean device duration per call and its launch
configuration from the Kineto trace (grid, block, registers per thread, shared memory, the
profiler's estimated occupancy). Separates a kernel's own time from the gaps between kernels that
heldout.py's graph timing includes. Writes heldout_kernels.csv into argv[1]; the shapes file is
$HELDOUT_SHAPES, as for heldout.py."""
import csv
import json
import os
import sys
import tempfile

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heldout import SHAPES, make  # noqa: E402  (the same cases, built the same way)

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
CALLS = 20


def kernels(fn):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        for _ in range(CALLS):
            fn()
        torch.cuda.synchronize()
    path = tempfile.mktemp(suffix=".json")
    p.export_chrome_trace(path)
    with open(path) as f:
        events = json.load(f).get("traceEvents", [])
    os.remove(path)
    out = {}
    for e in events:
        if e.get("cat") not in ("kernel", "gpu_memset", "gpu_memcpy"):
            continue
        a = e.get("args", {})
        k = out.setdefault(e["name"], {"n": 0, "us": 0.0, "grid": a.get("grid"), "block": a.get("block"),
                                       "regs": a.get("registers per thread"),
                                       "smem": a.get("shared memory"),
                                       "occ": a.get("est. achieved occupancy %")})
        k["n"] += 1
        k["us"] += float(e.get("dur", 0))
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, SHAPES)) as f:
        cases = list(csv.DictReader(f))
    with open(os.path.join(OUT, "heldout_kernels.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["kind", "shape", "kernel", "calls_per_case", "us_per_call", "grid", "block",
                    "registers", "shared_memory", "est_occupancy"])
        for c in cases:
            try:
                fn, _ = make(c["kind"], c["shape"])
                for name, k in kernels(fn).items():
                    w.writerow([c["kind"], c["shape"], name[:200], k["n"] / CALLS, "%.3f" % (k["us"] / k["n"]),
                                k["grid"], k["block"], k["regs"], k["smem"], k["occ"]])
                    print(c["shape"], name[:60], "%.2f us" % (k["us"] / k["n"]), k["grid"], k["block"],
                          k["regs"], k["smem"], flush=True)
            except Exception as ex:
                print("FAILED", c, repr(ex)[:300], flush=True)
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
