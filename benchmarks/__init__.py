"""Speed, cost and quality benchmarks of the MemoryOS engine, with baselines from the same run.

Run one with ``python -m benchmarks.<name> [--quick] [--json]`` or all of them with
``python -m benchmarks.run_all --quick``. Results go to ``benchmarks/results/`` (git-ignored).
"""
