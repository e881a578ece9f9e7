"""Systole's analysis package: a results file (simrun's HDF5) as pandas DataFrames, and its
figures (roofline, per-layer time breakdown, sweep heat maps, systems side by side).

    import systole
    r = systole.load("results.h5")
    r.sweep, r.layers, r.units["mxu"], r.compare_networks, r.compare_layers, r.meta
    systole.units(r.layers, "time")           # 's'
    systole.plot_roofline(r, "figures/")      # writes PNGs, returns the data it drew

Needs h5py, pandas, numpy and matplotlib (Debian: python3-h5py python3-pandas
python3-matplotlib). The command line: tools/systole plot RESULTS.h5 -o DIR.
"""

from .plots import (breakdown_data, compare_data, heatmap_data, plot, plot_breakdown,
                    plot_compare, plot_heatmap, plot_roofline, roofline_data, sweep_axes)
from .results import NotSystoleFile, Results, load, units

__all__ = ["load", "Results", "NotSystoleFile", "units", "plot", "plot_roofline",
           "plot_breakdown", "plot_heatmap", "plot_compare", "roofline_data", "breakdown_data",
           "heatmap_data", "compare_data", "sweep_axes"]
