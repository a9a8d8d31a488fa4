"""Suite-wide settings: headless Qt, CPU device, no network, no per-example time limits."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PRA_DEVICE", "cpu")

try:
    from hypothesis import settings
except ImportError:              # hypothesis is a test dependency; without it nothing uses it
    pass
else:
    # Hypothesis fails an example that takes longer than its deadline (200 ms by default): a
    # speed limit, which fails on a loaded machine (issue 18). Speed belongs in bench/.
    settings.register_profile("suite", deadline=None)
    settings.load_profile("suite")
