"""The options `sweep` and `tune` share: `--param KEY (--values ... | --range ...)` groups, parsed by hand (click
cannot take a variable number of values per option), and the checks both make before anything is played."""
from __future__ import annotations

import argparse
import re

from sim import inputs
from sim.commands.options import BACKENDS, check_backend, out_or_default
from sim.config import parse_value
from sim.errors import UserError
from sim.setup import DEFAULT_SEED, load_setup
from analysis.summary import summary_for
from sim.runner import Plan, assemble, run_one_batch
from sim.variants import PROBE_GAMES, Target, parse_range, variant_meta


def _is_option(token: str) -> bool:
    """`-n`, `--seed`: an option; `-1`, `-0.5`: a negative value."""
    try:
        float(token)
    except ValueError:
        return token.startswith("-")
    return False


def _split_params(tokens: list[str]) -> tuple[list, list[str]]:
    """Pull `--param KEY (--values V1 V2 ... | --range START:STOP:STEP)` groups out of the arguments."""
    params, rest, i = [], [], 0
    while i < len(tokens):
        tok = tokens[i]
        if tok == "--param":
            if i + 1 >= len(tokens):
                raise UserError("--param needs a configuration key, e.g. --param tokens.diamond")
            params.append([tokens[i + 1], None])
            i += 2
        elif tok == "--values":
            if not params:
                raise UserError("--values must follow a --param KEY")
            j = next((k for k in range(i + 1, len(tokens)) if _is_option(tokens[k])), len(tokens))
            if j == i + 1:
                raise UserError(f"--values for {params[-1][0]}: give one or more values")
            params[-1][1] = [parse_value(v) for v in tokens[i + 1:j]]
            i = j
        elif tok == "--range":
            if not params or i + 1 >= len(tokens):
                raise UserError("--range START:STOP:STEP must follow a --param KEY")
            params[-1][1] = parse_range(tokens[i + 1])
            i += 2
        else:
            rest.append(tok)
            i += 1
    for key, values in params:
        if values is None:
            raise UserError(f"--param {key}: give its values with --values V1 V2 ... or --range START:STOP:STEP")
    keys = [key for key, _ in params]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:  # a grid over the same key twice would play one value under the other's label
        raise UserError(f"--param {repeated[0]}: given more than once; name each key once, with all its values "
                        "(--values V1 V2 ...)")
    return [(k, v) for k, v in params], rest


def parse_options(prog: str, args, *own: tuple):
    """The `--param` groups, then the options sweep and tune share and their `own` ((flag, argparse keywords), ...)."""
    params, rest = _split_params(list(args))

    class Parser(argparse.ArgumentParser):
        def error(self, message):
            raise UserError(f"{prog}: {message}")

    parser = Parser(prog=prog, add_help=False)
    parser.add_argument("-n", "--games", type=int, default=None)
    parser.add_argument("-s", "--strategies", default="all")
    parser.add_argument("-p", "--players", type=int, default=None)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("-j", "--jobs", type=int, default=1)
    parser.add_argument("-o", "--out", default=None)
    parser.add_argument("--config", dest="config_file", default=None)
    parser.add_argument("--set", dest="sets", action="append", default=[])
    parser.add_argument("--target", dest="targets", action="append", default=[])
    parser.add_argument("--backend", choices=BACKENDS, default="loky")
    parser.add_argument("--scheduler", default=None)
    parser.add_argument("-q", "--quiet", action="store_true")
    for flag, kwargs in own:
        parser.add_argument(flag, **kwargs)
    return params, parser.parse_args(rest)


MAX_CANDIDATES = 4096  # tune: candidates drawn from the grid (each is played at least one batch)
PASS_THROUGH = {"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": ["-h", "--help"]}


def sweep_setup(kind: str, game: str, opts, targets) -> tuple:
    """What sweep and tune check before anything is played: (spec, players, chosen, round_robin, out)."""
    inputs.jobs(opts.jobs)
    inputs.seed(opts.seed)
    inputs.batch_size(opts.batch_size)
    check_backend(opts.backend, opts.scheduler, opts.quiet)
    if opts.out is not None:
        inputs.output_folder(opts.out)
    spec, players, cfg, chosen, rr = load_setup(game, opts.config_file, opts.sets, opts.players, opts.strategies)
    out = out_or_default(opts.out, f"{spec.name}-{kind}")
    check_targets(spec, cfg, players, chosen, rr, targets)
    inputs.dask_scheduler(opts.backend, opts.scheduler)
    return spec, players, chosen, rr, out


def check_targets(spec, cfg, players, chosen, round_robin, targets: list[Target]) -> None:
    """Refuse a --target that names no figure of the game, learnt from a few games played in memory (the names
    depend on game, strategies and players); `name[..]` passes when `name` is a figure."""
    if not targets:
        return
    for t in targets:
        if not re.match(r"^[\w\[\]=.<>-]+$", t.metric):
            raise UserError(f"--target {t.metric!r}: not a metric name")
    plan = Plan(spec.name, players, PROBE_GAMES, 0, tuple(chosen), PROBE_GAMES, round_robin)
    tables = assemble(spec, plan, [run_one_batch(spec.name, cfg, plan, 0, 0, False)])
    summary = summary_for(tables, variant_meta(spec, players, plan, cfg))
    names = sorted(k for k, v in summary.items() if isinstance(v, dict))
    bases = {n.split("[")[0] for n in names}
    for t in targets:
        if t.metric not in names and t.metric.split("[")[0] not in bases:
            raise UserError(f"--target {t.metric}: not a figure of {spec.name}; allowed: "
                            + ", ".join(n for n in names if "[" not in n) + " (and their [..] variants in summary.json)")
