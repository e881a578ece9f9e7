"""The Python analysis package (tools/python/systole) on results files simrun writes here.

A TPU v4 and an H100 run a small BERT-like block over a 2 x 2 sweep (sequence length x hidden
width), so every figure has data: rooflines, breakdowns, a heat map per system and /compare.
A second, single-system run with one swept axis has no /compare and no heat map. Expected
values are read from the HDF5 file with h5py directly, never from the package under test.

Run by ctest (tests/CMakeLists.txt: python_analysis), which sets SYSTOLE_SIMRUN; by hand:
    PYTHONPATH=tools/python SYSTOLE_SIMRUN=build/bin/simrun /usr/bin/python3 -m unittest \
        discover -s tests/python
"""

import os
import subprocess
import sys
import tempfile
import types
import unittest

import h5py
import numpy as np
import pandas as pd

import systole

SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SIMRUN = os.path.abspath(
    os.environ.get("SYSTOLE_SIMRUN", os.path.join(SOURCE, "build", "bin", "simrun")))
PRESETS = os.path.join(SOURCE, "configs", "presets")

BLOCK = """\
workload:
  name: bert-like
  params: {seq: 128, hidden: 512}
  layers:
    - {name: qkv, m: seq, n: 3 * hidden, k: hidden}
    - {name: attn, op: attention, batch: 1, heads: 8, seq_q: seq, seq_kv: seq, head_dim: 64}
    - {name: out, m: seq, n: hidden, k: hidden}
    - {name: norm, op: layernorm, rows: seq, cols: hidden}
    - {name: up, m: seq, n: 4 * hidden, k: hidden}
    - {name: act, op: gelu, rows: seq, cols: 4 * hidden}
    - {name: down, m: seq, n: hidden, k: 4 * hidden}
"""

TWO_SYSTEMS = f"""\
name: py-two-systems
systems:
  tpuv4: {{base: {PRESETS}/tpuv4_chip.yaml}}
  h100: {{base: {PRESETS}/h100_sxm5.yaml}}
{BLOCK}sweep:
  workload.params.seq: [128, 256]
  workload.params.hidden: [512, 1024]
"""

ONE_SYSTEM = f"""\
name: py-one-system
base: {PRESETS}/tpuv4_chip.yaml
{BLOCK}sweep:
  workload.params.seq: [128, 256]
"""


def simrun(folder, name, text):
    with open(os.path.join(folder, name + ".yaml"), "w") as f:
        f.write(text)
    out = os.path.join(folder, name + ".h5")
    r = subprocess.run([SIMRUN, name + ".yaml", "-o", out, "-j", "2", "--quiet"], cwd=folder,
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise RuntimeError(f"simrun failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return out


def raw_table(f, path):
    """A compound dataset as {column: numpy array}, strings decoded, straight from h5py."""
    data = f[path][()]
    return {n: (np.array([v.decode() for v in data[n]], dtype=object)
                if data[n].dtype.kind == "S" else data[n]) for n in data.dtype.names}


def all_strings(value):
    """Every string inside a DataFrame, dict or list (keys, values, column names)."""
    if isinstance(value, pd.DataFrame):
        yield from all_strings(list(value.columns))
        for c in value.columns:
            if value[c].dtype == object:
                yield from value[c].dropna()
        yield from all_strings(value.attrs)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from all_strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from all_strings(v)
    else:
        yield value


class AnalysisTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="systole-py-")
        cls.dir = cls.tmp.name
        cls.path = simrun(cls.dir, "two", TWO_SYSTEMS)
        cls.single = simrun(cls.dir, "one", ONE_SYSTEM)
        cls.res = systole.load(cls.path)
        cls.h5 = h5py.File(cls.path, "r")
        cls.drawn = systole.plot(cls.res, os.path.join(cls.dir, "figs"))  # every figure, once

    @classmethod
    def tearDownClass(cls):
        cls.h5.close()
        cls.tmp.cleanup()

    @property
    def first_point(self):
        """The stable id (/points/<id>) of the sweep's first point."""
        return raw_table(self.h5, "sweep")["point_id"][0]

    def out(self, name):
        return os.path.join(self.dir, name)

    def metric(self, point_id, name):
        return float(raw_table(self.h5, f"points/{point_id}/metrics")[name][0])

    # ---- loading ----------------------------------------------------------------------------

    def test_sweep_has_a_row_per_point_with_swept_values_and_status(self):
        raw = raw_table(self.h5, "sweep")
        self.assertEqual(len(self.res.sweep), len(raw["point_id"]))
        self.assertEqual(len(self.res.sweep), 8)  # 2 systems x 2 x 2
        self.assertEqual(sorted(self.res.sweep["point_id"]), sorted(raw["point_id"].tolist()))
        self.assertEqual(set(self.res.sweep["status"]), {"ok"})
        for col in ("system", "workload.params.seq", "workload.params.hidden", "error", "time"):
            self.assertIn(col, self.res.sweep.columns)
        self.assertEqual(self.res.systems, ["tpuv4", "h100"])
        self.assertEqual(self.res.meta["swept_paths"],
                         ["system", "workload.params.seq", "workload.params.hidden"])

    def test_layers_are_every_points_table_keyed_by_point_and_system(self):
        total = sum(len(self.h5[f"points/{p}/layers"]) for p in self.h5["points"])
        self.assertEqual(len(self.res.layers), total)
        for pid, d in self.res.layers.groupby("point_id"):
            raw = raw_table(self.h5, f"points/{pid}/layers")
            self.assertEqual(list(d["layer"]), list(raw["layer"]))
            np.testing.assert_array_equal(d["time"].to_numpy(), raw["time"])
            system = dict(zip(*raw_table(self.h5, f"points/{pid}/assignments").values()))["system"]
            self.assertEqual(set(d["system"]), {system})
        tpu = self.res.units["mxu"]
        self.assertEqual(set(tpu["system"]), {"tpuv4"})
        mxu_tables = [f"points/{p}/units/mxu" for p in self.h5["points"]]
        self.assertEqual(len(tpu), sum(len(self.h5[t]) for t in mxu_tables if t in self.h5))

    def test_every_string_is_str_not_bytes(self):
        r = self.res
        frames = [r.sweep, r.layers, r.compare_networks, r.compare_layers, *r.units.values()]
        values = list(all_strings([frames, r.meta, r.config, r.assignments]))
        self.assertTrue(values)
        self.assertFalse([v for v in values if isinstance(v, (bytes, np.bytes_))])
        self.assertIsInstance(r.layers["layer"].iloc[0], str)
        self.assertIsInstance(r.meta["experiment"], str)
        self.assertIn("systems:", r.meta["experiment"])
        self.assertIn("system:", r.config[self.first_point])

    def test_units_are_attached_to_every_column(self):
        r = self.res
        self.assertEqual(systole.units(r.layers, "time"), "s")
        self.assertEqual(systole.units(r.layers, "hbm_bytes"), "B")
        self.assertEqual(systole.units(r.sweep, "achieved_flops"), "FLOP/s")
        self.assertEqual(systole.units(r.compare_networks, "time"), "s")
        self.assertEqual(systole.units(r.units["hbm_channel"], "bandwidth"), "B/s")
        raw_units = [u if isinstance(u, str) else u.decode()
                     for u in self.h5[f"points/{self.first_point}/layers"].attrs["unit"]]
        names = self.h5[f"points/{self.first_point}/layers"].dtype.names
        for name, unit in zip(names, raw_units):
            self.assertEqual(systole.units(r.layers, name), unit, name)
        for df in (r.sweep, r.layers, r.compare_networks, r.compare_layers):
            self.assertEqual(set(systole.units(df)), set(df.columns))
        with self.assertRaises(KeyError):
            systole.units(r.layers, "no_such_column")

    def test_missing_and_foreign_files_raise_clear_errors(self):
        with self.assertRaises(FileNotFoundError):
            systole.load(self.out("absent.h5"))
        text = self.out("text.h5")
        with open(text, "w") as f:
            f.write("not hdf5\n")
        with self.assertRaisesRegex(systole.NotSystoleFile, "not an HDF5 file"):
            systole.load(text)
        foreign = self.out("foreign.h5")
        with h5py.File(foreign, "w") as f:
            f["x"] = np.arange(3)
        with self.assertRaisesRegex(systole.NotSystoleFile, "no /meta"):
            systole.load(foreign)

    def test_single_system_run_has_no_compare_and_no_heat_map(self):
        one = systole.load(self.single)
        self.assertEqual(len(one.sweep), 2)
        self.assertEqual(set(one.sweep["system"]), {"py-one-system"})
        for df in (one.compare_networks, one.compare_layers):
            self.assertTrue(df.empty)
            self.assertIn("no /compare", df.attrs["message"])
        drawn = systole.plot_heatmap(one, self.out("one_figs"))
        self.assertTrue(drawn.empty)
        self.assertEqual(drawn.attrs["files"], [])
        self.assertIn("needs two swept axes, the sweep has 1 (workload.params.seq)",
                      drawn.attrs["notes"][0])
        self.assertTrue(systole.plot_compare(one, self.out("one_figs")).empty)

    # ---- figures ----------------------------------------------------------------------------

    def test_roofline_places_each_layer_at_flops_per_hbm_byte_under_its_points_peaks(self):
        d = self.drawn["roofline"]
        self.assertEqual(len(d), len(self.res.layers))
        for pid, p in d.groupby("point_id"):
            raw = raw_table(self.h5, f"points/{pid}/layers")
            flops = 2.0 * raw["macs"]
            expected = np.where(raw["hbm_bytes"] > 0, flops / np.maximum(raw["hbm_bytes"], 1),
                                np.inf)
            expected[flops == 0] = 0.0
            np.testing.assert_allclose(p["intensity"], expected, rtol=1e-12)
            np.testing.assert_allclose(p["achieved_flops"], raw["achieved_flops"], rtol=1e-12)
            self.assertTrue((p["peak_flops"] == self.metric(pid, "peak_flops")).all())
            self.assertTrue((p["peak_hbm_bandwidth"] ==
                             self.metric(pid, "peak_hbm_bandwidth")).all())
        self.assertGreater((d["flops"] == 0).sum(), 0)  # layernorm and GELU: no MACs
        self.assertTrue((d.loc[d["flops"] == 0, "placed"].str.startswith("bottom edge")).all())
        self.check_files(d, ["roofline_tpuv4.png", "roofline_h100.png"])

    def test_breakdown_sums_to_each_layers_time(self):
        d = self.drawn["breakdown"]
        self.assertEqual(len(d), len(self.res.layers))
        for pid, p in d.groupby("point_id"):
            raw = raw_table(self.h5, f"points/{pid}/layers")
            np.testing.assert_array_equal(p["time"].to_numpy(), raw["time"])
            np.testing.assert_allclose(p[["compute", "memory", "stall"]].sum(axis=1), raw["time"],
                                       rtol=1e-12)
            seconds_per_cycle = raw["time"] / raw["cycles"]
            compute_cycles = np.maximum(raw["compute_bound_cycles"],
                                        raw.get("vector_bound_cycles", 0))
            compute = np.minimum(compute_cycles * seconds_per_cycle, raw["time"])
            memory_bound = raw["hbm_bytes"] / self.metric(pid, "peak_hbm_bandwidth")
            np.testing.assert_allclose(p["compute"], compute, rtol=1e-12)
            np.testing.assert_allclose(p["memory_bound"], memory_bound, rtol=1e-12)
            np.testing.assert_allclose(
                p["memory"], np.minimum(np.maximum(memory_bound - compute_cycles *
                                                   seconds_per_cycle, 0), raw["time"] - compute),
                rtol=1e-12, atol=1e-18)
        self.assertTrue((d[["compute", "memory", "stall"]] >= 0).all().all())
        self.assertGreater(d["compute"].sum(), 0)
        self.assertGreater(d["memory"].sum(), 0)
        self.check_files(d, [f"breakdown_{s}_p{p}.png" for p, s in
                             zip(self.res.sweep["point_id"], self.res.sweep["system"])])

    def test_breakdown_of_a_layer_shorter_than_its_bounds_is_capped_at_its_time(self):
        # A layer that overlapped the one before (layer_overlap) can end sooner after it than
        # its bounds: 100 cycles of 1 ns, a compute bound of 60 cycles, 150 ns of HBM at peak.
        sweep = pd.DataFrame({"point_id": [0], "status": ["ok"], "label": ["x"],
                              "peak_hbm_bandwidth": [1e9]})
        layers = pd.DataFrame({"system": ["s"], "point_id": [0], "layer": ["l"], "time": [100e-9],
                               "cycles": [100], "compute_bound_cycles": [60.0],
                               "hbm_bytes": [150]})
        d = systole.breakdown_data(types.SimpleNamespace(sweep=sweep, layers=layers))
        row = d.iloc[0]
        self.assertAlmostEqual(row["compute"], 60e-9, delta=1e-21)
        self.assertAlmostEqual(row["memory"], 40e-9, delta=1e-21)  # 90 ns beyond, 40 ns left
        self.assertAlmostEqual(row["stall"], 0, delta=1e-21)
        self.assertTrue(row["overlapped"])

    def test_heat_map_grid_holds_the_swept_values_per_system(self):
        d = self.drawn["heatmap"]
        raw = raw_table(self.h5, "sweep")
        self.assertEqual(d.attrs["notes"], [])
        for system in ("tpuv4", "h100"):
            s = d[d["system"] == system]
            grid = systole.plots.heatmap_grid(s, "time")
            self.assertEqual(list(grid.columns), [128, 256])
            self.assertEqual(list(grid.index), [512, 1024])
            self.assertEqual(set(s["x_axis"]), {"workload.params.seq"})
            self.assertEqual(set(s["y_axis"]), {"workload.params.hidden"})
            for i in np.flatnonzero(raw["system"] == system):
                cell = grid.loc[raw["workload.params.hidden"][i], raw["workload.params.seq"][i]]
                self.assertEqual(cell, raw["time"][i])
        self.check_files(d, ["heatmap_tpuv4_time.png", "heatmap_h100_time.png"])
        with self.assertRaisesRegex(ValueError, "no sweep metric 'nope'"):
            systole.plot_heatmap(self.res, self.out("figs"), metric="nope")

    def test_compare_bars_are_the_compare_networks_values(self):
        d = self.drawn["compare"]
        raw = raw_table(self.h5, "compare/networks")
        self.assertEqual(len(d), len(raw["case"]))
        self.assertEqual(len(set(d["case"])), 4)  # the four (seq, hidden) cases
        for i in range(len(raw["case"])):
            row = d[(d["case"] == raw["case"][i]) & (d["system"] == raw["system"][i])]
            self.assertEqual(len(row), 1)
            self.assertEqual(row["time"].iloc[0], raw["time"][i])
            self.assertEqual(row["speedup"].iloc[0], raw["speedup"][i])
        self.assertTrue((d.loc[d["system"] == "tpuv4", "speedup"] == 1.0).all())
        self.check_files(d, ["compare_networks.png"])

    def check_files(self, df, names):
        self.assertEqual(sorted(os.path.basename(f) for f in df.attrs["files"]), sorted(names))
        for f in df.attrs["files"]:
            with open(f, "rb") as png:
                self.assertEqual(png.read(8), b"\x89PNG\r\n\x1a\n")

    # ---- command line -----------------------------------------------------------------------

    def cli(self, *args, wrapper=True):
        env = dict(os.environ, PYTHONPATH=os.path.join(SOURCE, "tools", "python"))
        command = ([os.path.join(SOURCE, "tools", "systole")] if wrapper
                   else [sys.executable, "-m", "systole"])
        return subprocess.run(command + list(args), capture_output=True, text=True, env=env,
                              timeout=300)

    def test_command_line_prints_the_files_it_writes(self):
        figs = self.out("cli")
        r = self.cli("plot", self.path, "-o", figs, "--what", "heatmap,compare")
        self.assertEqual(r.returncode, 0, r.stderr)
        written = r.stdout.split()
        self.assertEqual(len(written), 2 + 1)  # a heat map per system, the comparison
        self.assertEqual(sorted(written), sorted(os.path.join(figs, f) for f in os.listdir(figs)))
        r = self.cli("plot", self.single, "-o", self.out("cli1"), "--what", "heatmap,compare",
                     wrapper=False)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertIn("heat map needs two swept axes", r.stderr)
        self.assertIn("compare: skipped", r.stderr)

    def test_command_line_errors(self):
        r = self.cli("plot", self.out("absent.h5"), "-o", self.out("x"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("systole: error:", r.stderr)
        self.assertIn("does not exist", r.stderr)
        r = self.cli("plot", self.path, "--what", "pie")
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown figure 'pie'", r.stderr)


if __name__ == "__main__":
    unittest.main()
