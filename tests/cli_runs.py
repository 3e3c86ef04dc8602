"""The CLI in-process for the tests of runs and studies: a command's result, its one-line error, Ctrl-C at a
chosen moment (the real code runs until then), plans of a game's defaults, and waiting on a run in a process."""
import json
import re
import time
from pathlib import Path

import pandas as pd
from click.testing import CliRunner

import sim.runner
from sim.cli import main
from sim.commands import sensitivity_cmd
from sim.config import build
from sim.game import get_game
from sim.registry import choices
from sim.results import partial_path
from sim.runner import Plan


def default_plan(game: str, players: int, games: int, seed: int, names, batch: int, **options):
    """(spec, cfg, plan): `names` play `games` games of the game's defaults in batches of `batch`."""
    spec = get_game(game)
    cfg = spec.validate(build(spec.package), players)
    return spec, cfg, Plan(game, players, games, seed, tuple(choices(game, cfg.presets, list(names))), batch, **options)


def same_tables(a, b, game: str) -> None:
    for table in get_game(game).tables:
        pd.testing.assert_frame_equal(pd.read_parquet(a / f"{table}.parquet"), pd.read_parquet(b / f"{table}.parquet"))


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def ok(result):
    """The command succeeded (else its output and exception are shown); returns its result."""
    assert result.exit_code == 0, (result.output, result.exception)
    return result


def traced(*args):
    """The events `trace ARGS` prints on stdout, one JSON object a line (a note may go to stderr)."""
    return [json.loads(line) for line in ok(cli("trace", *args)).stdout.splitlines()]


PHASE_LINE = re.compile(r".+(\.\.\.|: done in \d+\.\d s)")  # analysis.progress.phase's two lines


def one_line_error(result, *words):
    """The command failed with exit code 2 and one line on stderr, `balance-sim: error: ...` naming `words`.
    Before it only the lines of phases that ran past analysis.progress.QUIET_BELOW may stand, announced or done
    (a loaded machine can slow any phase that far: compare's "reading A" done before reading B fails)."""
    assert result.exit_code == 2, (result.output, result.exception)
    *before, line = result.stderr.strip().splitlines() or [""]
    assert all(PHASE_LINE.fullmatch(b) for b in before) and "Traceback" not in result.output, result.output
    assert line.startswith("balance-sim: error: "), line
    for word in words:
        assert word in line, line
    return line


def interrupt_at(monkeypatch, batch: int, nth: bool = False):
    """Ctrl-C arrives while batch `batch` plays (-j 1): the batches before it are saved. With `nth`, as the
    `batch`-th batch played starts, whatever its index (each variant of a sweep counts its own)."""
    real, played = sim.runner.run_one_batch, []

    def play(game, cfg, plan, b, seed, debug):
        played.append(b)
        if (len(played) if nth else b) == batch:
            raise KeyboardInterrupt
        return real(game, cfg, plan, b, seed, debug)

    monkeypatch.setattr(sim.runner, "run_one_batch", play)


def interrupt_sensitivity_at(monkeypatch, point: int):
    """The sensitivity command is interrupted as it starts the run of its `point`-th point; returns the list that
    grows by one at each run started."""
    real, calls = sim.runner.execute, []

    def execute(*args, **kwargs):
        calls.append(1)
        if len(calls) == point:
            raise sim.runner.RunInterrupted()
        return real(*args, **kwargs)

    monkeypatch.setattr(sensitivity_cmd, "execute", execute)  # where the command calls it
    return calls


def listing(root) -> dict:
    """Every path under root: a file's bytes, "entry" for a folder or a link (never followed)."""
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() and not p.is_symlink() else "entry")
            for p in sorted(root.rglob("*"))}


def saved(out) -> int:
    """The batches an interrupted or running run into `out` has saved."""
    return len(list((partial_path(out) / "batches").glob("batch-*")))


def wait_for_batches(out, count: int, proc, timeout: float = 300) -> int:
    """Wait until the run `proc` (still running) into `out` has saved `count` batches; returns how many it has."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if saved(out) >= count:
            return saved(out)
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError(f"no {count} saved batches in {partial_path(out)} after {timeout} s")


def alive(pid: int) -> bool:
    """The process runs (Linux /proc; a zombie has exited, only its parent's bookkeeping is left)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
