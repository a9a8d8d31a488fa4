"""Suite-wide settings: headless Qt, CPU device, no network."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PRA_DEVICE", "cpu")
