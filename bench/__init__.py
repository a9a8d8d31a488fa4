"""Benchmarks: each case prints `name: ours X s, reference Y s, ratio Z` (ARCHITECTURE §8)."""
