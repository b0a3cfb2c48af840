"""Support for driving micrograd-widget in a real Chromium: shared by tests/browser and benchmarks/bench_widget.py."""
