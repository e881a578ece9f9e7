"""Figures of a results file, drawn with matplotlib's Agg canvas (no display needed).

Each plot_* function takes a systole.Results and an output folder, writes PNG files there and
returns the data it drew as a DataFrame (df.attrs["files"]: the files written;
df.attrs["notes"]: what it skipped and why), so tests check the data, not pixels. The *_data
functions compute the same frames without drawing.
"""

import functools
import math
import os
import re
import textwrap

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

WHAT = ("roofline", "breakdown", "heatmap", "compare")
COLOURS = {"compute": "#4c72b0", "memory": "#dd8452", "stall": "#c44e52"}
_PREFIXES = [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1, "")]
_TIME_UNITS = [(1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")]


def quantity(value, unit):
    """`value` with an SI prefix: 1.23 ms, 4.1 TFLOP/s, 2.0 GB."""
    if value is None or not np.isfinite(value):
        return "-"
    if unit == "s":
        scale, name = time_unit(abs(value))
        return f"{value / scale:.3g} {name}"
    for scale, prefix in _PREFIXES:
        if abs(value) >= scale:
            return f"{value / scale:.3g} {prefix}{unit}".rstrip()
    return f"{value:.3g} {unit}".rstrip()


def time_unit(seconds):
    """(scale, name) to show `seconds` in: the largest unit that keeps it >= 1."""
    for scale, name in _TIME_UNITS:
        if seconds >= scale:
            return scale, name
    return _TIME_UNITS[-1]


def _file_name(*parts):
    return "_".join(re.sub(r"[^A-Za-z0-9_.-]+", "-", str(p)).strip("-") for p in parts) + ".png"


def _save(fig, out_dir, name):
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, name)
    FigureCanvasAgg(fig)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    return path


def _finish(df, files, notes):
    df.attrs["files"] = list(files)
    df.attrs["notes"] = list(notes)
    return df


def short_label(text):
    """A point label or /compare case, shorter: the system left out, workload files by name,
    "workload.params" dropped: "gpt3_175b, {batch: 1, tokens: 1, context: 2048}"."""
    text = re.sub(r"(^|, )system=[^,]*", "", text).lstrip(", ")
    text = re.sub(r"workload\.file=(?:[^,]*/)?([^,/]+?)\.yaml", r"\1", text)
    return re.sub(r"workload\.params(=|\.)", lambda m: "" if m.group(1) == "=" else "", text)


def _draw_each(df, key, draw, out_dir):
    """`draw(key value, rows, out_dir)` -> file, for each value of `key` in `df`."""
    files = [draw(k, d, out_dir) for k, d in df.groupby(key, sort=False)] if len(df) else []
    return _finish(df, files, df.attrs["notes"])


def _ok_points(res):
    s = res.sweep
    return s[s["status"] == "ok"] if "status" in s.columns else s


# ---- roofline -------------------------------------------------------------------------------


def roofline_data(res):
    """One row per layer of every point that ran: FLOPs (2 x useful MACs), HBM bytes, the
    intensity FLOPs / HBM bytes, achieved FLOP/s, and the point's recorded peaks (peak_flops,
    peak_hbm_bandwidth in /sweep) with the roof at that intensity."""
    need = {"peak_flops", "peak_hbm_bandwidth"}
    if not len(res.layers) or not need <= set(res.sweep.columns):
        df = pd.DataFrame()
        note = ("no layer tables" if not len(res.layers) else
                "the points record no peak_flops / peak_hbm_bandwidth (an older results file)")
        return _finish(df, [], [f"roofline: skipped: {note}"])
    peaks = _ok_points(res)[["point_id", "label", "peak_flops", "peak_hbm_bandwidth"]]
    layers = res.layers.merge(peaks, on="point_id", how="inner")
    flops = 2.0 * layers["macs"].astype(float)
    hbm = layers["hbm_bytes"].astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        intensity = np.where(hbm > 0, flops / hbm, np.where(flops > 0, np.inf, 0.0))
        achieved = (layers["achieved_flops"].astype(float) if "achieved_flops" in layers
                    else flops / layers["time"].astype(float))
    df = pd.DataFrame({
        "system": layers["system"], "point_id": layers["point_id"], "label": layers["label"],
        "layer": layers["layer"], "op": layers["op"], "time": layers["time"].astype(float),
        "flops": flops, "hbm_bytes": hbm, "intensity": intensity, "achieved_flops": achieved,
        "peak_flops": layers["peak_flops"].astype(float),
        "peak_hbm_bandwidth": layers["peak_hbm_bandwidth"].astype(float)})
    df["ridge_intensity"] = df["peak_flops"] / df["peak_hbm_bandwidth"]
    df["roof_flops"] = np.minimum(df["peak_flops"], df["intensity"] * df["peak_hbm_bandwidth"])
    df["placed"] = np.select(
        [df["flops"] <= 0, ~np.isfinite(df["intensity"])],
        ["bottom edge: no FLOPs (vector or elementwise layer)", "right edge: no HBM bytes"],
        "at its intensity")
    df.attrs["units"] = {"time": "s", "flops": "FLOP", "hbm_bytes": "B", "intensity": "FLOP/B",
                         "achieved_flops": "FLOP/s", "peak_flops": "FLOP/s",
                         "peak_hbm_bandwidth": "B/s", "ridge_intensity": "FLOP/B",
                         "roof_flops": "FLOP/s"}
    return _finish(df, [], [])


def plot_roofline(res, out_dir):
    """roofline_<system>.png: the roof of each point's recorded peaks and every layer at
    (FLOPs / HBM bytes, achieved FLOP/s), one colour per design point."""
    return _draw_each(roofline_data(res), "system", _draw_roofline, out_dir)


def _draw_roofline(system, d, out_dir):
    fig = Figure(figsize=(8.5, 6))
    ax = fig.add_subplot()
    on = d[d["placed"] == "at its intensity"]
    xs = np.concatenate([on["intensity"].to_numpy(), d["ridge_intensity"].to_numpy()])
    x_lo, x_hi = max(xs[xs > 0].min() / 4, 1e-3) if (xs > 0).any() else 0.1, xs.max() * 4
    peak = d["peak_flops"].max()
    ys = on["achieved_flops"].to_numpy()
    y_lo = min(ys[ys > 0].min() / 4, peak / 1e3) if (ys > 0).any() else peak / 1e4
    roofs = d.drop_duplicates(["peak_flops", "peak_hbm_bandwidth"])
    grid = np.logspace(math.log10(x_lo), math.log10(x_hi), 200)
    for _, r in roofs.iterrows():
        ax.plot(grid, np.minimum(r["peak_flops"], grid * r["peak_hbm_bandwidth"]), color="black",
                lw=1.2, alpha=0.8)
        roof = f"{quantity(r['peak_flops'], 'FLOP/s')}, {quantity(r['peak_hbm_bandwidth'], 'B/s')}"
        ax.annotate(roof, (x_hi, r["peak_flops"]), ha="right", va="bottom", fontsize=7)
    label_layers = len(d) <= 30
    for k, (pid, p) in enumerate(d.groupby("point_id", sort=False)):
        colour = f"C{k % 10}"
        x = p["intensity"].clip(upper=x_hi).where(p["flops"] > 0, x_lo * 1.2)
        x = x.where(np.isfinite(p["intensity"]), x_hi)
        y = p["achieved_flops"].where(p["flops"] > 0, y_lo * 1.2)
        markers = np.select([p["flops"] <= 0, ~np.isfinite(p["intensity"])], ["v", ">"], "o")
        for m in np.unique(markers):
            ax.scatter(x[markers == m], y[markers == m], marker=m, color=colour, s=28, zorder=3)
        ax.scatter([], [], marker="o", color=colour,
                   label=textwrap.shorten(f"point {pid}: {short_label(p['label'].iloc[0])}", 70))
        if label_layers:
            for xi, yi, name in zip(x, y, p["layer"]):
                ax.annotate(name, (xi, yi), fontsize=6, xytext=(3, 2), textcoords="offset points")
    ax.set(xscale="log", yscale="log", xlim=(x_lo, x_hi * 1.05), ylim=(y_lo, peak * 2),
           xlabel="arithmetic intensity: FLOPs / HBM bytes moved (FLOP/B)",
           ylabel="achieved FLOP/s (2 x useful MACs / simulated time)",
           title=f"Roofline: {system} (peaks recorded by each point)")
    ax.grid(True, which="both", lw=0.3, alpha=0.5)
    ax.legend(fontsize=7, loc="lower right",
              title="v: no FLOPs (vector layer, bottom edge); >: no HBM bytes (right edge)",
              title_fontsize=6)
    return _save(fig, out_dir, _file_name("roofline", system))


# ---- per-layer time breakdown ---------------------------------------------------------------

BREAKDOWN_LEGEND = {
    "compute": "compute: the layer's compute bound (MXU / tensor-core MACs, vector-unit work "
               "at peak rate)",
    "memory": "memory: HBM bytes / peak HBM bandwidth beyond the compute bound",
    "stall": "stall: simulated time beyond both (operand and result stalls, fill/drain, "
             "weight loads, launch gaps, HBM below peak)",
}


def breakdown_data(res):
    """Splits each layer's simulated time into compute + memory + stall, which sum to it:
    compute = min(time, compute bound), memory = the part of HBM bytes / peak HBM bandwidth
    beyond the compute bound (capped at what time is left), stall = the rest. Bounds in
    cycles are converted with the layer's own seconds per cycle. `overlapped` marks layers whose
    bounds exceed their time (work that ran before the layer before it ended)."""
    ok = _ok_points(res)
    if not len(res.layers) or "peak_hbm_bandwidth" not in ok.columns:
        return _finish(pd.DataFrame(), [], ["breakdown: skipped: no layer tables with peaks"])
    L = res.layers.merge(ok[["point_id", "label", "peak_hbm_bandwidth"]], on="point_id")
    time = L["time"].astype(float)
    cycles = L["cycles"].astype(float)
    per_cycle = np.where(cycles > 0, time / cycles.where(cycles > 0, 1), 0.0)
    bound = L["compute_bound_cycles"].astype(float).fillna(0)
    if "vector_bound_cycles" in L:
        bound = np.maximum(bound, L["vector_bound_cycles"].astype(float).fillna(0))
    compute_bound = bound * per_cycle
    memory_bound = L["hbm_bytes"].astype(float) / L["peak_hbm_bandwidth"].astype(float)
    compute = np.minimum(compute_bound, time)
    memory = np.minimum(np.maximum(memory_bound - compute_bound, 0), time - compute)
    df = pd.DataFrame({
        "system": L["system"], "point_id": L["point_id"], "label": L["label"],
        "layer": L["layer"], "time": time, "compute": compute, "memory": memory,
        "stall": time - compute - memory, "compute_bound": compute_bound,
        "memory_bound": memory_bound,
        "overlapped": np.maximum(compute_bound, memory_bound) > time * (1 + 1e-9)})
    df.attrs["units"] = {c: "s" for c in ("time", "compute", "memory", "stall", "compute_bound",
                                          "memory_bound")}
    return _finish(df, [], [])


def plot_breakdown(res, out_dir):
    """breakdown_<system>_p<id>.png: one stacked bar per layer (compute / memory / stall)."""
    return _draw_each(breakdown_data(res), "point_id", _draw_breakdown, out_dir)


def _draw_breakdown(pid, d, out_dir):
    scale, unit = time_unit(d["time"].max())
    fig = Figure(figsize=(9, 1.6 + 0.28 * len(d)))
    ax = fig.add_subplot()
    y = np.arange(len(d))[::-1]
    left = np.zeros(len(d))
    for part in ("compute", "memory", "stall"):
        values = d[part].to_numpy() / scale
        ax.barh(y, values, left=left, color=COLOURS[part], label=BREAKDOWN_LEGEND[part])
        left += values
    names = [f"{n} *" if o else n for n, o in zip(d["layer"], d["overlapped"])]
    ax.set_yticks(y, names, fontsize=7)
    system = d["system"].iloc[0]
    ax.set(xlabel=f"simulated time ({unit})",
           title=textwrap.shorten(f"{system}, point {pid}: {short_label(d['label'].iloc[0])}", 100))
    note = "  * its bounds exceed its time: it overlapped the layer before" \
        if d["overlapped"].any() else ""
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.8 / (1 + 0.3 * len(d))),
              title=f"total {quantity(d['time'].sum(), 's')}{note}", title_fontsize=7)
    ax.grid(True, axis="x", lw=0.3, alpha=0.5)
    return _save(fig, out_dir, _file_name("breakdown", system, f"p{pid}"))


# ---- sweep heat maps ------------------------------------------------------------------------


def sweep_axes(res, system):
    """The swept axes of `system`'s points, `system` itself left out: lists of paths, where
    paths that advance together (a zip) form one axis."""
    s = res.sweep[res.sweep["system"] == system]
    ids = set(s["point_id"])
    paths = [p for p in res.meta["swept_paths"] if p != "system"]
    for pid in ids:
        paths += [p for p in res.assignments.get(pid, {}) if p not in paths and p != "system"]
    varying = [p for p in paths if p in s.columns and
               all(p in res.assignments.get(i, {}) for i in ids) and s[p].nunique() > 1]
    axes = []
    for p in varying:
        for axis in axes:
            q = axis[0]
            if s[[p, q]].drop_duplicates().shape[0] == s[p].nunique() == s[q].nunique():
                axis.append(p)
                break
        else:
            axes.append([p])
    return axes


def _axis_values(s, axis):
    if len(axis) == 1:
        return s[axis[0]]
    return s[axis].astype(str).agg(" / ".join, axis=1)


def _ordered(values):
    unique = list(dict.fromkeys(values))
    try:
        return sorted(unique)
    except TypeError:
        return unique


def heatmap_data(res, metric="time"):
    """For each system with exactly two swept axes: one row per design point with its x and y
    values (first and second axis, in /sweep order) and the metric. Systems with another
    number of axes are skipped with a note."""
    if metric not in res.sweep.columns:
        numeric = [c for c in res.sweep.columns if pd.api.types.is_numeric_dtype(res.sweep[c])]
        raise ValueError(f"no sweep metric '{metric}' (numeric columns: {', '.join(numeric)})")
    frames, skipped = [], {}  # (axes count, names) -> systems
    for system in res.systems:
        axes = sweep_axes(res, system)
        if len(axes) != 2:
            names = "; ".join(" + ".join(a) for a in axes) or "none"
            skipped.setdefault((len(axes), names), []).append(system)
            continue
        s = res.sweep[res.sweep["system"] == system]
        value = s[metric].where(s["status"] == "ok") if "status" in s else s[metric]
        frames.append(pd.DataFrame({
            "system": system, "point_id": s["point_id"], "x_axis": " + ".join(axes[0]),
            "y_axis": " + ".join(axes[1]), "x": _axis_values(s, axes[0]),
            "y": _axis_values(s, axes[1]), metric: value}))
    notes = [f"heatmap: skipped for {', '.join(systems)}: a heat map needs two swept axes, "
             f"the sweep has {n} ({names})" for (n, names), systems in skipped.items()]
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    df.attrs["units"] = {metric: res.sweep.attrs["units"].get(metric, "")}
    df.attrs["metric"] = metric
    return _finish(df, [], notes)


def heatmap_grid(d, metric):
    """One system's heat-map rows as the grid drawn: index y values, columns x values."""
    grid = d.pivot(index="y", columns="x", values=metric)
    return grid.reindex(index=_ordered(d["y"]), columns=_ordered(d["x"]))


def plot_heatmap(res, out_dir, metric="time"):
    """heatmap_<system>_<metric>.png: the metric over the two swept axes of each system."""
    df = heatmap_data(res, metric)
    draw = functools.partial(_draw_heatmap, metric=metric, unit=df.attrs["units"][metric])
    return _draw_each(df, "system", draw, out_dir)


def _draw_heatmap(system, d, out_dir, metric, unit):
    grid = heatmap_grid(d, metric)
    cells = grid.to_numpy(dtype=float)
    scale, shown = time_unit(np.nanmax(cells)) if unit == "s" else (1.0, unit)
    fig = Figure(figsize=(1.6 + 1.3 * grid.shape[1], 1.4 + 0.8 * grid.shape[0]))
    ax = fig.add_subplot()
    im = ax.imshow(cells / scale, cmap="viridis", aspect="auto", origin="lower")
    ax.set_xticks(range(grid.shape[1]), [str(v) for v in grid.columns], fontsize=8)
    ax.set_yticks(range(grid.shape[0]), [str(v) for v in grid.index], fontsize=8)
    bright = im.norm(cells / scale) > 0.6  # viridis turns yellow: dark text there
    for (i, j), v in np.ndenumerate(cells):
        ax.text(j, i, quantity(v, unit) if np.isfinite(v) else "failed", ha="center",
                va="center", fontsize=7, color="black" if bright[i, j] else "white")
    ax.set(xlabel=d["x_axis"].iloc[0], ylabel=d["y_axis"].iloc[0], title=f"{system}: {metric}")
    fig.colorbar(im, ax=ax, label=f"{metric} ({shown})" if shown else metric)
    return _save(fig, out_dir, _file_name("heatmap", system, metric))


# ---- systems side by side -------------------------------------------------------------------


def compare_data(res):
    """/compare/networks as drawn: per case and system its time, the speedup against the
    reference (first) system, and the ratios per peak FLOP/s and per watt."""
    n = res.compare_networks
    if not len(n):
        return _finish(pd.DataFrame(), [], [f"compare: skipped: {n.attrs.get('message', '')}"])
    cols = ["case", "system", "point_id", "time", "speedup", "per_peak_ratio", "per_watt_ratio",
            "achieved_flops", "mac_utilization", "bound"]
    df = n[[c for c in cols if c in n.columns]].copy()
    df.insert(1, "network", [short_label(c) for c in df["case"]])
    df.attrs["units"] = {c: n.attrs["units"].get(c, "") for c in df.columns if c != "network"}
    return _finish(df, [], [])


def plot_compare(res, out_dir):
    """compare_networks.png: per case (network), a bar per system: speedup against the first
    system, and the simulated time on a log axis."""
    df = compare_data(res)
    if not len(df):
        return df
    cases = list(dict.fromkeys(df["case"]))
    systems = list(dict.fromkeys(df["system"]))
    width = 0.8 / len(systems)
    fig = Figure(figsize=(max(7, 1.1 * len(cases) * (1 + 0.2 * len(systems))), 8))
    top, bottom = fig.subplots(2, 1, sharex=True)
    x = np.arange(len(cases))
    for k, system in enumerate(systems):
        d = df[df["system"] == system].set_index("case").reindex(cases)
        pos = x - 0.4 + width * (k + 0.5)
        top.bar(pos, d["speedup"], width, color=f"C{k % 10}", label=system)
        bottom.bar(pos, d["time"], width, color=f"C{k % 10}")
        for xi, v in zip(pos, d["speedup"]):
            if np.isfinite(v):
                top.annotate(f"{v:.2f}", (xi, v), ha="center", va="bottom", fontsize=6)
    top.axhline(1.0, color="black", lw=0.8)
    top.set(ylabel=f"speedup against {systems[0]} (its time / this time)",
            title="Systems side by side (/compare/networks)")
    top.legend(fontsize=8)
    bottom.set(yscale="log", ylabel="simulated time (s)")
    bottom.set_xticks(x, [textwrap.fill(short_label(c), 24) for c in cases], fontsize=7)
    for a in (top, bottom):
        a.grid(True, axis="y", lw=0.3, alpha=0.5)
    return _finish(df, [_save(fig, out_dir, "compare_networks.png")], [])


PLOTTERS = {"roofline": plot_roofline, "breakdown": plot_breakdown, "heatmap": plot_heatmap,
            "compare": plot_compare}


def plot(res, out_dir, what=WHAT, metric="time"):
    """Every figure in `what`: {kind: the DataFrame it drew}."""
    out = {}
    for kind in what:
        if kind not in PLOTTERS:
            raise ValueError(f"unknown figure '{kind}' (one of {', '.join(WHAT)})")
        extra = {"metric": metric} if kind == "heatmap" else {}
        out[kind] = PLOTTERS[kind](res, out_dir, **extra)
    return out
