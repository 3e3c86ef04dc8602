"""Shared fixtures for the generic machinery tests (CLI, runner)."""
import pytest
from click.testing import CliRunner


@pytest.fixture
def cli(tmp_path, monkeypatch):
    """Invoke `balance-sim` in-process from a scratch working directory; returns click's Result."""
    from sim.cli import main

    monkeypatch.chdir(tmp_path)
    runner = CliRunner()

    def invoke(*args):
        return runner.invoke(main, [str(a) for a in args])

    return invoke
