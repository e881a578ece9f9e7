"""The command line: python3 -m systole plot RESULTS.h5 -o DIR [--what ...] [--metric NAME]."""

import argparse
import sys

from . import plots
from .results import load


def _what(text):
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    bad = [k for k in kinds if k not in plots.WHAT]
    if bad or not kinds:
        raise argparse.ArgumentTypeError(
            f"unknown figure '{','.join(bad) or text}' (choose from {','.join(plots.WHAT)})")
    return kinds


def parser():
    p = argparse.ArgumentParser(prog="systole", description="Analysis of Systole results files.")
    sub = p.add_subparsers(dest="command", required=True)
    plot = sub.add_parser("plot", help="write PNG figures of a results file",
                          description="Writes PNG figures of a results file and prints each "
                          "file written, one per line.")
    plot.add_argument("results", help="results file written by simrun (.h5)")
    plot.add_argument("-o", "--out", default="figures", help="output folder (default: figures)")
    plot.add_argument("--what", type=_what, default=list(plots.WHAT),
                      help="comma-separated figures (default: all): " + ",".join(plots.WHAT))
    plot.add_argument("--metric", default="time",
                      help="the /sweep column the heat maps show (default: time)")
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        res = load(args.results)
        drawn = plots.plot(res, args.out, args.what, args.metric)
    except (OSError, ValueError) as e:  # NotSystoleFile is a ValueError
        print(f"systole: error: {e}", file=sys.stderr)
        return 2
    for df in drawn.values():
        for note in df.attrs.get("notes", []):
            print(f"systole: note: {note}", file=sys.stderr)
        for path in df.attrs.get("files", []):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
