"""Suite-wide settings: headless Qt, CPU device, no network, no per-example time limits."""

import os
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PRA_DEVICE", "cpu")
# The app-data folder (engine.estimates.machine: this machine's measured times) in a folder of
# the suite's own: a developer's "Measure this machine" must not change what tests estimate.
os.environ["PRA_APP_DATA"] = tempfile.mkdtemp(prefix="pra-app-data-")

try:
    from hypothesis import settings
except ImportError:              # hypothesis is a test dependency; without it nothing uses it
    pass
else:
    # Hypothesis fails an example that takes longer than its deadline (200 ms by default): a
    # speed limit, which fails on a loaded machine (issue 18). Speed belongs in bench/.
    settings.register_profile("suite", deadline=None)
    settings.load_profile("suite")
