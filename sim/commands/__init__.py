"""The commands layer: one module per `balance-sim` command (`<command>_cmd.py`), wired by sim/cli.py.

A command checks its flags, calls the simulation core (sim.setup, sim.runner, sim.results, ...) and the analysis
(pages, figures), and prints paths. Nothing below this layer imports it (import-linter, pyproject.toml).
"""
