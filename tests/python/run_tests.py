"""ctest's entry to the Python tests: runs every test_*.py here with unittest. Exits 77 (ctest
SKIP_RETURN_CODE) only where Debian's python3-h5py, python3-pandas or python3-matplotlib is
missing; tools/setup.sh installs them, so CI runs the tests."""

import importlib.util
import os
import sys
import unittest

missing = [m for m in ("h5py", "pandas", "numpy", "matplotlib") if not importlib.util.find_spec(m)]
if missing:
    print(f"SKIP: Python modules missing: {', '.join(missing)} (tools/setup.sh --deps installs "
          "python3-h5py python3-pandas python3-matplotlib)")
    sys.exit(77)
suite = unittest.defaultTestLoader.discover(os.path.dirname(os.path.abspath(__file__)))
sys.exit(0 if unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful() else 1)
