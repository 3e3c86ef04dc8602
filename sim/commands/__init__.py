"""The commands layer: one module per `balance-sim` command (`<command>_cmd.py`), wired by sim/cli.py; each checks
its flags, calls the core and the analysis, and prints paths. Nothing below imports it (pyproject.toml)."""
