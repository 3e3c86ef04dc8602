"""The `balance-sim` command line: wiring only. Each command's module (sim/commands/<command>_cmd.py) is
imported when it is run, so `balance-sim CMD` loads only what CMD needs; every mistake is one line, exit 2."""
from __future__ import annotations

import importlib
import sys
import warnings

import click

import sim
from sim.errors import UserError, machine_errors
from sim.runner import stop_quietly_once_interrupted

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


def _fail(message: str) -> None:
    click.echo(f"balance-sim: error: {message}", err=True)
    sys.exit(2)


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
                return super().invoke(ctx)
        except UserError as exc:
            _fail(str(exc))

    def main(self, *args, **kwargs):
        if not args and "args" not in kwargs:  # the installed program itself (click's test runner passes args)
            stop_quietly_once_interrupted()
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
