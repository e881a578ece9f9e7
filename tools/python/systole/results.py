"""Reads a Systole results file (simrun's HDF5, DESIGN.md section 4) into pandas DataFrames.

Layout read here (sim/stats/results_file.h): /meta (attributes, /meta/experiment,
/meta/swept_paths), /config/<id>, /sweep, /points/<id>/{assignments,metrics,layers,units/<kind>},
/compare/{networks,layers}. Tables are compound datasets whose `unit` and `field_descriptions`
attributes hold one string per column; they become df.attrs["units"] and
df.attrs["descriptions"] ({column: text}). Fixed-length HDF5 strings come back from h5py as
bytes and are decoded here, so every string a caller sees is a `str`.
"""

import errno
import os

import h5py
import numpy as np
import pandas as pd


class NotSystoleFile(ValueError):
    """The file exists but is not a Systole results file (not HDF5, or no /meta group)."""


def _text(value):
    """One HDF5 string (bytes, numpy bytes or str) as a str."""
    if isinstance(value, (bytes, np.bytes_)):
        return bytes(value).decode("utf-8", "replace")
    return str(value)


def _point_order(g, name):
    """A point group's place in the sweep: its `index` attribute (the grid position; the group's
    name is the point's stable id, a hash of its swept values), else its name if numeric."""
    if "index" in g.attrs:
        return (0, int(g.attrs["index"]), name)
    return (1, int(name), name) if name.isdigit() else (2, 0, name)


def _attr(obj, name, default=""):
    """An attribute as str, int or float (a one-element string array as its element)."""
    if name not in obj.attrs:
        return default
    value = obj.attrs[name]
    if isinstance(value, np.ndarray):
        return [_text(v) for v in value.ravel()] if value.dtype.kind in "OSU" else value.tolist()
    if isinstance(value, (bytes, np.bytes_, str)):
        return _text(value)
    return value.item() if isinstance(value, np.generic) else value


def _attr_list(obj, name):
    value = _attr(obj, name, [])
    return value if isinstance(value, list) else [value]


def _lines(ds):
    """A string dataset (scalar or one-dimensional) as a list of str."""
    data = ds[()]
    if isinstance(data, np.ndarray):
        return [_text(v) for v in data.ravel()]
    return [_text(data)]


def _column(values):
    if values.dtype.kind in "SO":
        return [_text(v) for v in values]
    return values


def empty(message):
    """An empty DataFrame saying why it is empty (df.attrs["message"])."""
    df = pd.DataFrame()
    df.attrs.update(units={}, descriptions={}, message=message)
    return df


def read_table(ds):
    """A compound dataset as a DataFrame with its units and descriptions in df.attrs."""
    data = ds[()]
    names = list(data.dtype.names or ())
    df = pd.DataFrame({n: _column(data[n]) for n in names}, columns=names)
    units = _attr_list(ds, "unit")
    descriptions = _attr_list(ds, "field_descriptions")
    df.attrs["units"] = {n: (units[i] if i < len(units) else "") for i, n in enumerate(names)}
    df.attrs["descriptions"] = {
        n: (descriptions[i] if i < len(descriptions) else "") for i, n in enumerate(names)
    }
    df.attrs["description"] = _attr(ds, "description")
    return df


def units(df, column=None):
    """The unit of `column` in a DataFrame from systole.load ('' for a plain number), or the
    whole {column: unit} mapping without `column`. KeyError for a column the frame lacks."""
    table = df.attrs.get("units", {})
    if column is None:
        return dict(table)
    if column not in df.columns:
        raise KeyError(f"no column '{column}' (columns: {', '.join(map(str, df.columns))})")
    return table.get(column, "")


def _with_keys(df, keys, key_units):
    """`df` with key columns (point id, system, ...) in front, their units added."""
    out = df.copy()
    for i, (name, value) in enumerate(keys.items()):
        if name in out.columns:
            out[name] = value
        else:
            out.insert(i, name, value)
    out.attrs = {k: dict(v) if isinstance(v, dict) else v for k, v in df.attrs.items()}
    out.attrs["units"] = {**key_units, **df.attrs.get("units", {})}
    return out


def _concat(frames, message, description):
    """Row-wise union of tables (columns in first-seen order) keeping units and descriptions."""
    if not frames:
        return empty(message)
    out = pd.concat(frames, ignore_index=True, sort=False)
    merged_units, merged_desc = {}, {}
    for f in frames:
        for k, v in f.attrs.get("units", {}).items():
            merged_units.setdefault(k, v)
        for k, v in f.attrs.get("descriptions", {}).items():
            merged_desc.setdefault(k, v)
    out.attrs.update(units=merged_units, descriptions=merged_desc, description=description)
    return out


class Results:
    """One results file as DataFrames.

    meta: dict of the /meta attributes, plus `experiment` (resolved YAML) and `swept_paths`.
    sweep: one row per design point: point_id, system, each swept path, status, error,
        wall_seconds, the point's key metrics (time, achieved_flops, peak_flops, ...), label.
    layers: every point's /points/<id>/layers, keyed by point_id and system.
    units: {kind: DataFrame} of /points/<id>/units/<kind> (mxu, dma, hbm_channel, ...),
        keyed the same way.
    compare_networks, compare_layers: /compare/networks and /compare/layers (empty, with
        df.attrs["message"], when the experiment compared no systems).
    config: {point_id: resolved YAML of the point}.
    assignments: {point_id: {swept path: value as given}}.
    Every DataFrame carries df.attrs["units"] ({column: unit}); see systole.units().
    """

    def __init__(self, path):
        self.path = str(path)
        if not os.path.exists(self.path):
            raise FileNotFoundError(errno.ENOENT, "results file does not exist", self.path)
        if not h5py.is_hdf5(self.path):
            raise NotSystoleFile(f"{self.path}: not an HDF5 file")
        with h5py.File(self.path, "r") as f:
            if "meta" not in f:
                raise NotSystoleFile(f"{self.path}: not a Systole results file (no /meta group)")
            self.meta = self._read_meta(f["meta"])
            self._read_points(f)
            self.sweep = self._read_sweep(f)
            self._read_compare(f)

    # ---- /meta, /config, /points ------------------------------------------------------------

    @staticmethod
    def _read_meta(g):
        meta = {k: _attr(g, k) for k in g.attrs}
        meta["experiment"] = _lines(g["experiment"])[0] if "experiment" in g else ""
        meta["swept_paths"] = _lines(g["swept_paths"]) if "swept_paths" in g else []
        return meta

    def _system_of(self, assignments):
        """The point's system: its `system` assignment, else the experiment's name."""
        return assignments.get("system", self.meta.get("experiment_name", ""))

    def _read_points(self, f):
        self.config, self.assignments, self._point_attrs = {}, {}, {}
        layer_frames, unit_frames = [], {}
        points = f["points"] if "points" in f else {}
        for name in sorted(points, key=lambda n: _point_order(points[n], n)):
            pid, g = name, points[name]
            assigned = {}
            if "assignments" in g:
                a = read_table(g["assignments"])
                assigned = dict(zip(a["path"], a["value"]))
            self.assignments[pid] = assigned
            self._point_attrs[pid] = {k: _attr(g, k) for k in g.attrs}
            if "metrics" in g:
                self._point_attrs[pid]["metrics"] = read_table(g["metrics"])
            if "config" in f and name in f["config"]:
                self.config[pid] = _lines(f["config"][name])[0]
            keys = {"point_id": pid, "system": self._system_of(assigned)}
            key_units = {"point_id": "", "system": ""}
            if "layers" in g:
                layer_frames.append(_with_keys(read_table(g["layers"]), keys, key_units))
            if "units" in g:
                for kind in g["units"]:
                    t = _with_keys(read_table(g["units"][kind]), keys, key_units)
                    unit_frames.setdefault(kind, []).append(t)
        self.layers = _concat(
            layer_frames,
            f"{self.path}: no point has a layer table (no points, or every point failed)",
            "one row per layer per design point",
        )
        self.units = {
            kind: _concat(frames, "", f"one row per unit instance per design point ({kind})")
            for kind, frames in unit_frames.items()
        }

    # ---- /sweep -----------------------------------------------------------------------------

    def _read_sweep(self, f):
        if "sweep" in f:
            df = read_table(f["sweep"])
            message = ""
        else:  # a .partial file: the table is written when the run completes
            df = self._sweep_from_points()
            message = f"{self.path}: no /sweep table (the run did not finish); built from /points"
        if "system" not in df.columns:
            df.insert(min(1, len(df.columns)), "system",
                      [self._system_of(self.assignments.get(str(p), {})) for p in df["point_id"]]
                      if "point_id" in df.columns else [])
            df.attrs["units"]["system"] = ""
        df["label"] = [self._point_attrs.get(str(p), {}).get("label", "") for p in df["point_id"]]
        df.attrs["units"]["label"] = ""
        df.attrs["message"] = message
        return df

    def _sweep_from_points(self):
        rows, unit_map = [], {"point_id": "", "status": "", "error": "", "wall_seconds": "s"}
        for pid, attrs in self._point_attrs.items():
            row = {"point_id": pid, **self.assignments[pid]}
            row.update(status=attrs.get("status", ""), error=attrs.get("error", ""),
                       wall_seconds=attrs.get("wall_seconds", np.nan))
            metrics = attrs.get("metrics")
            if metrics is not None and len(metrics):
                row.update(metrics.iloc[0].to_dict())
                unit_map.update(metrics.attrs["units"])
            rows.append(row)
        df = pd.DataFrame(rows, columns=None if rows else ["point_id", "status", "error"])
        df.attrs.update(units={c: unit_map.get(c, "") for c in df.columns}, descriptions={})
        return df

    # ---- /compare ---------------------------------------------------------------------------

    def _read_compare(self, f):
        why = (f"{self.path}: no /compare/{{}} (the experiment compared no systems: it has no "
               "`systems:`, or no case ran on two systems)")
        g = f["compare"] if "compare" in f else {}
        self.compare_networks = (read_table(g["networks"]) if "networks" in g
                                 else empty(why.format("networks")))
        self.compare_layers = (read_table(g["layers"]) if "layers" in g
                               else empty(why.format("layers")))

    # ---- helpers ----------------------------------------------------------------------------

    @property
    def systems(self):
        """System names in the order of /sweep (the experiment's order)."""
        return list(dict.fromkeys(self.sweep["system"])) if len(self.sweep) else []

    def point_layers(self, point_id):
        """The layer table of one design point."""
        df = self.layers[self.layers["point_id"] == point_id] if len(self.layers) else self.layers
        out = df.dropna(axis=1, how="all").reset_index(drop=True)
        out.attrs = dict(self.layers.attrs)
        return out

    def __repr__(self):
        return (f"<systole.Results {self.path}: {len(self.sweep)} points, systems "
                f"{', '.join(self.systems) or '-'}, {len(self.layers)} layer rows, "
                f"/compare {'yes' if len(self.compare_networks) else 'no'}>")


def load(path):
    """Reads a results file written by simrun. FileNotFoundError when it does not exist,
    systole.NotSystoleFile when it is not a Systole results file."""
    return Results(path)
