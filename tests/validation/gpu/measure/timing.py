"""How every measurement script here times the GPU and names its kernels (no side effects at
import; measure.py, heldout.py, networks.py and llm.py use it, each as it did on its own before).

bench(fn): warm-up calls, one call to size the loop, then n = max(3, min(max_iters, min_time /
one call)) calls between two CUDA events; the mean per call in seconds.
graph_of_calls(calls): the calls captured in order in one CUDA graph, after a warm-up (the
first three calls; warm_all also runs every call once more, so cuDNN has picked each
algorithm before capture) and one run on a side stream, as capture requires.
time_graph(g): bench() for a graph's replay (at most 200 replays).
kernels_of(fn): the distinct CUDA kernel names one call launches, from the torch profiler."""
import torch


def bench(fn, min_time=0.12, warmup=3, max_iters=500):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    e.synchronize()
    one = s.elapsed_time(e) * 1e-3
    n = max(3, min(max_iters, int(min_time / max(one, 1e-7))))
    s.record()
    for _ in range(n):
        fn()
    e.record()
    e.synchronize()
    return s.elapsed_time(e) * 1e-3 / n


def graph_of_calls(calls, warm_all=False):
    if warm_all:
        for fn in calls[:3] if len(calls) > 3 else calls:  # cuDNN picks its algorithm
            fn()
        for fn in calls:
            fn()
    else:
        for fn in calls[:3]:
            fn()
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for fn in calls:
            fn()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for fn in calls:
            fn()
    return g


def time_graph(g, min_time=0.1):
    g.replay()
    torch.cuda.synchronize()
    return bench(g.replay, min_time=min_time, warmup=0, max_iters=200)


def kernels_of(fn, width=160):
    from torch.profiler import ProfilerActivity, profile

    try:
        with profile(activities=[ProfilerActivity.CUDA]) as p:
            fn()
            torch.cuda.synchronize()
        names = []
        for ev in p.events():
            if ev.device_type == torch.autograd.DeviceType.CUDA and ev.name not in names:
                names.append(ev.name)
        return " | ".join(n[:width] for n in names)
    except Exception as ex:  # the profiler is a nicety; its failure loses no timing
        return "profiler failed: %s" % ex
