"""Placeholder until `python -m bench.bench_estimates --calibrate` writes it."""

REFERENCE_MACHINE = "not calibrated"
