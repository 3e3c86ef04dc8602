"""The `balance-sim` command line: wiring only. Each command's module (sim/commands/<command>_cmd.py) is
imported when it is run, so `balance-sim CMD` loads only what CMD needs; every mistake is one line, exit 2."""
from __future__ import annotations

import errno
import importlib
import re
import signal
import sys
import warnings

import click

import sim
from sim import inputs
from sim.errors import RunInterrupted, UserError, machine_errors

# command name -> (module under sim/commands/, function)
COMMANDS = {
    "run": ("run_cmd", "run"),
    "report": ("report_cmd", "report"),
    "compare": ("compare_cmd", "compare"),
    "trace": ("trace_cmd", "trace"),
    "replay": ("replay_cmd", "replay"),
    "strategies": ("describe_cmd", "strategies_cmd"),
    "config": ("describe_cmd", "config_cmd"),
    "bench": ("bench_cmd", "bench"),
    "sweep": ("sweep_cmd", "sweep"),
    "tune": ("tune_cmd", "tune"),
    "sensitivity": ("sensitivity_cmd", "sensitivity"),
    "evolve": ("evolve_cmd", "evolve"),
    "exploit": ("exploit_cmd", "exploit"),
    "psro": ("psro_cmd", "psro"),
    "ladder": ("ladder_cmd", "ladder"),
    "main": ("main_cmd", "main_job"),
}

# joblib's "0 tasks ... cancelled" on closing a generator after its last result: noise on every parallel run
warnings.filterwarnings("ignore", message=r"0 tasks which were still being processed", category=UserWarning)


LONGEST_WORD = 200  # a value echoed in a message (a 100 kB --set) is cut to its head and tail, so it stays one line


def shorten(message: str) -> str:
    """Each run of more than LONGEST_WORD characters without a space cut in the middle; one line."""
    def cut(found) -> str:
        word = found.group(0)
        return f"{word[:LONGEST_WORD // 2]}...({len(word) - LONGEST_WORD:,} characters cut)...{word[-LONGEST_WORD // 2:]}"

    return re.sub(rf"[^ ]{{{LONGEST_WORD + 1},}}", cut, " ".join(str(message).split("\n")))


def _fail(message: str) -> None:
    click.echo(f"balance-sim: error: {shorten(message)}", err=True)
    sys.exit(2)


INTERRUPTED = "interrupted (Ctrl-C or SIGTERM) before it finished; what it writes is written only when finished"


def _on_signal(signum, frame):
    """The installed program's Ctrl-C and SIGTERM alike (a service manager's stop is a Ctrl-C): noted, so a command
    that swallowed the KeyboardInterrupt (a plotting library) still ends as interrupted, then raised."""
    sim.runner.INTERRUPTED_BY_SIGNAL = True
    raise KeyboardInterrupt


def _interrupted() -> bool:
    return bool(getattr(sys.modules.get("sim.runner"), "INTERRUPTED_BY_SIGNAL", False))


class Group(click.Group):
    """Loads each command's module on first use; a UserError or usage error is one line on stderr, exit 2."""

    def list_commands(self, ctx):
        return sorted(COMMANDS)

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        module, function = COMMANDS[name]
        return getattr(importlib.import_module(f"sim.commands.{module}"), function)

    def invoke(self, ctx):
        try:
            with machine_errors(lambda exc: f"cannot write {exc.filename or 'the results'}: {exc.strerror}"):
                done = super().invoke(ctx)
        except UserError as exc:
            _fail(str(exc))
        except (KeyboardInterrupt, RunInterrupted):
            _fail(INTERRUPTED)
        except OSError as exc:
            if exc.errno != errno.ENAMETOOLONG:
                raise
            _fail(f"{exc.filename or 'a path'}: {exc.strerror} (a name over 255 bytes or a path over 4,096); "
                  "choose a shorter one")
        except Exception:
            if _interrupted():  # an error from the interruption itself (a figure cut short), not a bug to show
                _fail(INTERRUPTED)
            raise
        if _interrupted():  # the KeyboardInterrupt was swallowed on its way up: still not a finished command
            _fail(INTERRUPTED)
        return done

    def main(self, *args, **kwargs):
        problem = inputs.environment_problem()  # before numba (imported with the commands) reads its variables
        if problem:
            _fail(problem)
        if not args and "args" not in kwargs:  # the installed program itself (click's test runner passes args)
            import sim.runner  # deferred: it imports numba, which must not read a variable refused above
            sim.runner.stop_quietly_once_interrupted()
            for sig in (signal.SIGINT, signal.SIGTERM):
                signal.signal(sig, _on_signal)
        try:
            return super().main(*args, standalone_mode=False, **kwargs)
        except click.exceptions.NoArgsIsHelpError as exc:
            click.echo(exc.ctx.get_help() if exc.ctx else str(exc))
            sys.exit(0)
        except click.UsageError as exc:
            command = exc.ctx.command_path if exc.ctx else "balance-sim"
            _fail(f"{exc.format_message()} (see '{command} --help')")
        except click.ClickException as exc:
            _fail(exc.format_message())
        except click.exceptions.Abort:
            click.echo("aborted", err=True)
            sys.exit(1)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(sim.__version__, prog_name="balance-sim")
def main():
    """Monte Carlo balance simulator for Mohur, Mughal and Merchants of Muziris."""


if __name__ == "__main__":
    main()
