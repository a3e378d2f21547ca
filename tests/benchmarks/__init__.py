"""Benchmarks: measured, not asserted. Run ``python -m tests.benchmarks [NAME...]``."""
