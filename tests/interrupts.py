"""Ctrl-C at a chosen moment, for the tests of interrupted runs and studies: the real code runs until then."""
import sim.runner
from sim.commands import sensitivity_cmd


def interrupt_at(monkeypatch, batch: int):
    """Ctrl-C arrives while batch `batch` plays (-j 1): the batches before it are saved."""
    real = sim.runner.run_one_batch

    def play(game, cfg, plan, b, seed, debug):
        if b == batch:
            raise KeyboardInterrupt
        return real(game, cfg, plan, b, seed, debug)

    monkeypatch.setattr(sim.runner, "run_one_batch", play)


def interrupt_sensitivity_at(monkeypatch, point: int):
    """The sensitivity command is interrupted as it starts the run of its `point`-th point."""
    real, calls = sim.runner.execute, []

    def execute(*args, **kwargs):
        calls.append(1)
        if len(calls) == point:
            raise sim.runner.RunInterrupted()
        return real(*args, **kwargs)

    monkeypatch.setattr(sensitivity_cmd, "execute", execute)  # where the command calls it
