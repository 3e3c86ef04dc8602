"""`balance-sim report`: (re)write the report of a results folder."""
from __future__ import annotations

import contextlib
import functools
from pathlib import Path

import click

from analysis.progress import reporting
from analysis.report import build_report, build_summary_report, write_atomically
from analysis.summary import SUMMARISER
from sim import inputs, report_folder, results
from sim.commands.options import say
from sim.errors import UserError, machine_errors
from sim.lock import exclusive, shared
from sim.runner import ends_if_interrupted
from sim.setup import from_meta


@click.command()
@click.argument("folder", type=click.Path(file_okay=False), callback=inputs.existing_folder)
@click.option("-o", "--out", default=None, type=click.Path(file_okay=False),
              help="Where to write the report (default: the results folder itself).")
@click.option("-q", "--quiet", is_flag=True, help="No progress lines.")
def report(folder, out, quiet):
    """Write report.html, the plots and summary.json for a results FOLDER."""
    folder = Path(folder)
    if out is not None:
        inputs.output_folder(out, staged=False, own_name=False)  # written into: '.' is a place too
        out = str(inputs.by_name(out))  # its lock goes by its name
    if not folder.is_dir():  # before its lock, which would make the folders above it
        raise UserError(f"{folder}: no such folder")
    if out is not None and Path(out).exists() and Path(out).resolve() == folder.resolve():
        out = None  # -o the folder itself: the default
    target = Path(out) if out is not None else folder
    with contextlib.ExitStack() as held:
        if out is None:  # the report is written into the folder: a writer of it
            held.enter_context(exclusive(folder, "report"))
            results.check_installable(folder, ("report.html",))  # before minutes of building
        else:
            held.enter_context(shared(folder, "report"))
            held.enter_context(exclusive(target))
            results.check_output(target, "report")
        kind, content, meta = report_folder.load(folder, summariser=SUMMARISER)
        if meta.get("partial"):
            click.echo(f"partial run: reporting the {meta['games']:,} of {meta['planned_games']:,} games that "
                       "finished", err=True)
        if kind == "tables" and meta.get("partial") and "summary" in content:  # an interrupted --summary-only run
            kind, content = "summary", {**content["summary"], "partial": True}  # its batches merged
        build = build_summary_report if kind == "summary" else functools.partial(build_report, game_of_run=from_meta)

        def build_in(staging: Path):
            with ends_if_interrupted():  # a Ctrl-C swallowed by a plotting library: still nothing installed
                summary = build(content, meta, staging)
            if out is not None:  # a folder of its own: marked ours, so a later report may replace it
                names = sorted({p.name for p in staging.iterdir()} | {results.META})
                results.write_meta(staging, {"kind": "report", "game": meta["game"], "source": str(folder),
                                             "partial": bool(meta.get("partial")), "files": names})
            return summary

        try:
            with machine_errors(lambda exc: f"cannot write the report in {target}: {exc.strerror}; nothing there "
                                            "was changed"):
                with reporting(None if quiet else say):
                    write_atomically(target, build_in)
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM (sim.cli): the staging folder is gone, the lock let go
            raise UserError(f"interrupted: no report written; {target} is as it was") from None
        except KeyError as exc:  # a column the game's analysis needs: tables edited, or copied from another run
            raise UserError(f"{folder}: its tables lack {exc} that a {meta['game']} report needs (edited, or from "
                            "another run?); make it again with 'balance-sim run'") from None
    click.echo(str(target / "report.html"))
