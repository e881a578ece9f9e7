"""Which SM clock do held-out kernels run at, and does their speed depend on the data (power)?
For a few held-out shapes (FlashAttention-2 and mid-size GEMMs) and the 8192^3 GEMM as the
power-capped reference: 1.0 s of back-to-back CUDA-graph replays on random data, then on zeros
(zeros toggle fewer bits and draw less power: tests/validation/gpu/README.md `sustained`). Each
window's wall-clock start and end (the same clock as nvidia-smi's timestamps) and mean time per
call go to clock_probe.csv in argv[1]; clock_probe.sh logs nvidia-smi every 100 ms beside it."""
import csv
import datetime
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heldout import graph_of, make, GRAPH_CALLS  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
CASES = [("attention", "b8_h16_s2048_d128_c0"), ("attention", "b11_h16_s2432_d128_c0"),
         ("attention", "b17_h16_s512_d128_c1"), ("gemm", "7936x3328x768"),
         ("gemm", "6784x4480x640"), ("gemm", "8192x8192x8192")]
# $CLOCK_CASES overrides them: "kind:shape,kind:shape" (shapes as in heldout*_shapes.csv).
if os.environ.get("CLOCK_CASES"):
    CASES = [tuple(c.split(":", 1)) for c in os.environ["CLOCK_CASES"].split(",")]


def stamp():
    return datetime.datetime.now().strftime("%Y/%m/%d %H:%M:%S.%f")[:-3]


def window(g, seconds=1.0):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    g.replay()
    torch.cuda.synchronize()
    s.record()
    g.replay()
    e.record()
    e.synchronize()
    one = s.elapsed_time(e) * 1e-3
    n = max(3, int(seconds / max(one, 1e-7)))
    begin = stamp()
    s.record()
    for _ in range(n):
        g.replay()
    e.record()
    e.synchronize()
    return begin, stamp(), s.elapsed_time(e) * 1e-3 / (n * GRAPH_CALLS)


def main():
    with open(os.path.join(OUT, "clock_probe.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["kind", "shape", "data", "begin", "end", "seconds_per_call"])
        for kind, shape in CASES:
            for data in ("random", "zeros"):
                fn, _ = make(kind, shape)
                if data == "zeros":
                    for t in fn.__closure__ or ():
                        v = t.cell_contents
                        if isinstance(v, torch.Tensor) and v.is_floating_point() and v.numel() > 1:
                            v.zero_()
                g = graph_of(fn)
                b, e, sec = window(g)
                w.writerow([kind, shape, data, b, e, "%.9f" % sec])
                f.flush()
                print(kind, shape, data, b, e, "%.2f us" % (sec * 1e6), flush=True)
                del g
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
