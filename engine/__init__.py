"""Privacy Risk Auditor engine: everything that computes. Never imports Qt.

Heavy dependencies (torch, ortools, reportlab, dp_accounting) are imported inside the
functions that need them so that importing ``engine`` stays cheap.
"""

import os

__version__ = "0.1.0"

# torch's CPU kernels run on OpenMP threads that, by default, spin at full speed while they wait
# for each other. On a machine whose cores other programs also use, a spinning thread takes
# the core from the thread it waits for: with other work on both cores, the model audit's
# held-out sample ran 48–94 s with spinning threads against 10–18 s with threads that sleep
# while they wait, and 16–20 s on one thread (bench/bench_threads.py; issue 21, "estimates that
# hold"). Sleeping threads give the same numbers (the thread count is unchanged) and cost
# nothing measurable on a quiet machine. OpenMP reads this once, when torch loads, so it is set
# here, before any engine module imports torch; a user's own setting is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
