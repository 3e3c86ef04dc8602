"""Tests every registered game passes (OpenSpiel's games_sim_test is the model), parametrised over
`sim.game.game_names()` so a new game needs no edit here; game-specific files keep only the rules."""
from __future__ import annotations

import html as html_text
import json
import re
import shlex
import tomllib
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.replay import embedded_data
from sim.config import build, load_defaults
from sim.errors import UserError
from sim.game import FUNCTIONS, MAIN_TABLE, ROOMS, game_names, get_game
from sim.interface import ENGINE_CONSTANTS, ENGINE_FUNCTIONS, EngineError, check_engine
from sim.registry import HEURISTIC_ONLY, all_names, choices, registered, round_robin_names
from sim.runner import execute
from strategies.search import PARAMS as SEARCH_PARAMS
from cli_runs import cli as _invoke, default_plan, ok, one_line_error, traced
from strategy_params import strategy_arrays

GAMES = game_names()
ROOT = Path(__file__).resolve().parents[1]


def _setup(game: str, players: int):
    spec = get_game(game)
    cfg = spec.validate(build(spec.package), players)
    return spec, cfg


def _heuristics(game: str) -> list[str]:
    return [d.name for d in registered(game) if not d.search]


def _lineup(game: str, players: int, offset: int = 0) -> list[str]:
    names = _heuristics(game)
    return [names[(offset + k) % len(names)] for k in range(players)]


def _play(game, players, names, n, seed, *, debug=False, jobs=1, batch=None, backend="loky"):
    spec, cfg, plan = default_plan(game, players, n, seed, names, batch or n, round_robin=False)
    tables, _ = execute(spec, cfg, plan, jobs=jobs, backend=backend, debug=debug, progress=False)
    return spec, tables


def _player_counts(game):
    spec = get_game(game)
    return sorted({spec.min_players, spec.default_players, spec.max_players})


def test_every_game_is_found():
    """Every package under sim/ with a GAME is a game; nothing else lists them."""
    packages = sorted(p.parent.name for p in (ROOT / "sim").glob("*/__init__.py"))
    assert GAMES == [name for name in packages if "GAME = GameSpec(" in (ROOT / "sim" / name / "__init__.py").read_text()]
    assert len(GAMES) >= 3


# ------------------------------------------------------------------ rooms


@pytest.mark.parametrize("game", GAMES)
def test_every_room_is_where_the_spec_says(game):
    """GameSpec names each room (sim.game.ROOMS) and each holds what the machinery calls."""
    spec = get_game(game)
    rooms = spec.rooms()
    assert set(rooms) == set(ROOMS)
    assert spec.module("package").GAME is spec
    assert (ROOT / spec.docs).is_file() and spec.title in (ROOT / spec.docs).read_text()
    assert load_defaults(spec.package), "defaults.toml holds the game's numbers"
    for room in FUNCTIONS:
        assert callable(spec.function(room)), room
    assert callable(spec.module("determinize").determinize)
    analysis = spec.module("analysis")
    assert callable(analysis.summarize) and callable(analysis.sections)
    replay = spec.module("replay")
    assert callable(replay.frames) and callable(replay.games_frame) and isinstance(replay.SCORE_NAME, str)
    assert "function drawBoard(f)" in Path(replay.__file__).with_suffix(".js").read_text()
    names = [d.name for d in registered(game)]
    assert {"random", "greedy"} <= set(names) and set(spec.bench_lineup) <= set(names)
    assert all(d.module.startswith(spec.strategies + ".") for d in registered(game))


# ------------------------------------------------------------------ command line


@pytest.mark.parametrize("game", GAMES)
def test_every_engine_speaks_the_engine_interface(game):
    spec = get_game(game)
    engine = spec.module("engine")
    check_engine(engine, game)
    s = engine.new_state()
    assert s.dtype == np.int32 and s.shape == (engine.STATE_SIZE,) and not s.any()


def test_an_engine_that_departs_from_the_interface_is_named_with_each_problem():
    from sim.mohur import engine as good  # deferred: any one game's engine to break
    broken = types.ModuleType("broken_engine")
    for name in ENGINE_FUNCTIONS:
        setattr(broken, name, getattr(good, name))
    for name in ENGINE_CONSTANTS:
        setattr(broken, name, getattr(good, name))
    broken.STATE = good.STATE
    del broken.observe                                      # missing
    broken.is_over = good.is_over.py_func                   # not compiled
    broken.STATE_SIZE = good.STATE_SIZE + 1                 # not its layout's size
    broken.ACOLS = 0                                        # not positive
    with pytest.raises(EngineError) as caught:
        check_engine(broken, "broken")
    said = str(caught.value)
    for problem in ("no observe", "is_over is not numba-compiled", "STATE_SIZE is", "ACOLS is 0"):
        assert problem in said, said


@pytest.mark.parametrize("game", GAMES)
def test_strategies_and_config_commands(game):
    """`strategies GAME` lists every strategy and preset once per line; `config GAME` prints the defaults as TOML
    that validate."""
    spec = get_game(game)
    listed = ok(_invoke("strategies", game))
    lines = listed.stdout.splitlines()
    cfg = spec.validate(load_defaults(spec.package), spec.default_players)
    assert lines == all_names(game, cfg.presets) and len(lines) == len(set(lines))
    assert set(lines) >= {d.name for d in registered(game)} | set(load_defaults(spec.package).get("strategies", {}))
    printed = ok(_invoke("config", game))
    parsed = tomllib.loads(printed.stdout)
    assert parsed == load_defaults(spec.package)
    assert spec.validate(parsed, spec.default_players) is not None


@pytest.mark.parametrize("game", GAMES)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(game, tmp_path):
    spec = get_game(game)
    out = tmp_path / "out"
    lineup = ",".join(["greedy"] * (spec.default_players - 1) + ["nosuch"])
    too_many = ",".join(["greedy"] * (spec.max_players + 1))
    cases = [
        (["run", game, "-s", lineup], ["nosuch", "greedy", "random"]),
        (["run", game, "--set", "nosuch=1"], ["nosuch"]),
        (["run", game, "-p", spec.max_players + 1], ["--players", str(spec.max_players)]),
        (["run", game, "-p", spec.min_players - 1], ["--players", str(spec.min_players)]),
        (["run", game, "-n", 0], ["--games"]),
        (["trace", game, "-s", lineup], ["nosuch"]),
        (["trace", game, "-s", too_many], []),
        (["trace", game, "--set", "nosuch=1"], ["nosuch"]),
        (["strategies", game, "--set", "nosuch=1"], ["nosuch"]),
        (["sweep", game, "--param", "nosuch", "--values", 1, 2, "-n", 10], ["nosuch"]),
    ]
    for args, named in cases:
        result = _invoke(*args, *(["-o", out, "-q", "--no-report"] if args[0] == "run" else []),
                         *(["-o", out, "-q"] if args[0] == "sweep" else []))
        one_line_error(result, *named)
        assert not out.exists(), args
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.fixture(scope="module", params=GAMES)
def run_folder(request, tmp_path_factory):
    """A small `run GAME -s all` with its report, per game."""
    game = request.param
    out = tmp_path_factory.mktemp(game) / "run"
    ok(_invoke("run", game, "-n", 240, "--batch-size", 120, "-s", "all", "--seed", 4, "-o", out, "-q"))
    return game, out


@pytest.mark.slow
def test_run_writes_every_table_and_a_self_contained_report(run_folder, tmp_path):
    game, out = run_folder
    spec = get_game(game)
    meta = json.loads((out / "meta.json").read_text())
    assert meta["game"] == game and meta["games"] == 240 and meta["players"] == spec.default_players
    assert not meta.get("partial")
    tables = {name: pd.read_parquet(out / f"{name}.parquet") for name in spec.tables}
    main_table = tables[MAIN_TABLE]
    assert np.array_equal(main_table[spec.id_column].to_numpy(), np.arange(240))
    for name, table in tables.items():  # per-game tables name their game; aggregate ones (counts) do not
        if spec.id_column in table:
            assert table[spec.id_column].between(0, 239).all(), name
    summary = json.loads((out / "summary.json").read_text())
    heuristics = [s["name"] for s in meta["strategies"]]  # the ones `-s all` played
    assert heuristics == round_robin_names(game, spec.validate(meta["config"], meta["players"]).presets)
    assert summary["game"] == game and summary["games"] == 240
    for name in heuristics:
        assert summary[f"win_rate[{name}]"]["n"] > 0, name
        assert np.isfinite(summary[f"strength[{name}]"]["estimate"]), name
    assert sum(summary[f"nash_weight[{name}]"]["estimate"] for name in heuristics) == pytest.approx(1.0)
    for key, m in summary.items():
        if isinstance(m, dict) and m.get("estimate") is not None and m.get("ci_low") is not None:
            if m.get("bound") == "lower":  # e.g. `tuned` winning every game of a small run: no upper end
                assert m["ci_high"] is None and m["ci_low"] <= m["estimate"] + 1e-9, key
                continue
            assert m["ci_low"] <= m["estimate"] + 1e-9 <= m["ci_high"] + 2e-9, key
    assert set(getattr(spec.module("analysis"), "HEADLINES", ())) <= set(summary)
    html = (out / "report.html").read_text()
    assert f"{spec.title} balance report" in html and "data:image/png;base64," in html
    # how the answers move with skill: read on hand-written mirror games, and on tuned mirror games where `-s all`
    # has `tuned`; without it the section says so
    assert "How the answers move with skill" in html and "skill_edge[hand-written]" in summary
    assert summary["conclusions"] and {f["text"] for f in summary["findings"]} & {c["text"] for c in
                                                                                  summary["conclusions"]}
    if "tuned" in heuristics:
        assert "skill_edge[tuned]" in summary and "tuned (evolved)" in html
    else:
        assert "skill_edge[tuned]" not in summary and "no tuned mirror games" in html
    assert "src='http" not in html and 'src="http' not in html
    ok(_invoke("report", out, "-o", tmp_path / "again"))
    assert json.loads((tmp_path / "again" / "summary.json").read_text()) == summary


def _row_of(out, game, k):
    spec = get_game(game)
    main_table = pd.read_parquet(out / f"{MAIN_TABLE}.parquet")
    return main_table[main_table[spec.id_column] == k].iloc[0]


def _seats_of(row, players):
    return [str(row[f"strategy_{p}"]) for p in range(players)], [float(row[f"win_share_{p}"]) for p in range(players)]


def test_report_samples_replay_pages_of_the_games_they_name(run_folder, tmp_path):
    """The report's sample games link replay pages (heuristic players only): each is that row's game, and the
    command printed under the link writes the same page."""
    game, out = run_folder
    spec = get_game(game)
    report = (out / "report.html").read_text()
    assert "'>Sample games</h2>" in report and "replays/closest.html" in report  # the heading has an anchor
    commands = {int(c.split("--game ")[1].split()[0]): html_text.unescape(c)
                for c in re.findall(r"<code>(balance-sim replay [^<]*)</code>", report)}
    pages = sorted((out / "replays").glob("*.html"))
    assert pages
    for page in pages:
        text = page.read_text()
        data = embedded_data(text)
        k = data["game_index"]
        assert data["game"] == game and data["title"] == spec.title and "function drawBoard(f)" in text
        strategies, shares = _seats_of(_row_of(out, game, k), spec.default_players)
        assert data["strategies"] == strategies and data["events"][-1]["win_share"] == shares
        assert data["frames"][-1]["final"] and data["frames"][-1]["e"] == len(data["events"]) - 1
        again = tmp_path / f"again-{k}.html"
        ok(_invoke(*shlex.split(commands[k])[1:], "-o", again))
        assert embedded_data(again.read_text())["events"] == data["events"]


def test_game_k_of_a_run_is_traced_exactly(run_folder):
    """`trace GAME --game K` with the run's seed, lineup and batch size is row K (its seats rotated as the run
    rotated them), the same as `trace --run DIR --game K`; game 0 is the same at any batch size."""
    game, out = run_folder
    spec = get_game(game)
    players = spec.default_players
    for k in (7, 131):  # in the first and the second batch of 120
        events = traced(game, "--seed", 4, "-s", "all", "-p", players, "--game", k, "--batch-size", 120)
        assert events == traced("--run", out, "--game", k)
        strategies, shares = _seats_of(_row_of(out, game, k), players)
        assert events[0]["strategies"] == strategies and events[-1]["win_share"] == shares
    plain = traced(game, "--seed", 4, "-p", players)
    assert plain == traced(game, "--seed", 4, "-p", players, "--game", 0, "--batch-size", 3)


# ------------------------------------------------------------------ configuration


@pytest.mark.parametrize("game", GAMES)
def test_defaults_validate_at_every_player_count(game):
    spec = get_game(game)
    for players in range(spec.min_players, spec.max_players + 1):
        assert spec.validate(build(spec.package), players) is not None
    for players in (spec.min_players - 1, spec.max_players + 1):
        with pytest.raises(UserError, match="players"):
            spec.check_players(players)


def _numeric_leaves(node, path=()):
    """Every (dotted key, value) holding a number or a list of numbers, outside strategy presets."""
    if isinstance(node, dict):
        for key, value in node.items():
            if path == () and key == "strategies":
                continue
            yield from _numeric_leaves(value, path + (key,))
    elif isinstance(node, (int, float)) and not isinstance(node, bool):
        yield ".".join(path), node
    elif isinstance(node, list) and node and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                 for v in node):
        yield ".".join(path), node
    elif isinstance(node, list):  # an array of tables (Mughal's emperors): indexed from 1, as --set does
        for i, value in enumerate(node, start=1):
            yield from _numeric_leaves(value, path + (str(i),))


@pytest.mark.parametrize("game", GAMES)
def test_a_broken_configuration_is_refused_naming_the_key(game):
    """Every numeric key given text is refused with a UserError naming that key (never another exception)."""
    spec = get_game(game)
    leaves = list(_numeric_leaves(load_defaults(spec.package)))
    assert len(leaves) >= 10, "a game's numbers live in its defaults.toml"
    for key, _ in leaves:
        with pytest.raises(UserError) as refused:
            spec.validate(build(spec.package, None, (f'{key}="lots"',)), spec.default_players)
        assert key.split(".")[-1] in str(refused.value), (key, str(refused.value))
    with pytest.raises(UserError, match="unknown key"):
        build(spec.package, None, ("no_such_key=1",))


# ------------------------------------------------------------------ play


@pytest.mark.parametrize("game", GAMES)
def test_every_heuristic_strategy_plays_legally_with_invariants_checked(game):
    """Debug mode checks every invariant (cards and tokens conserved, legal actions only) after every action."""
    names = _heuristics(game)
    for players in _player_counts(game):
        for offset in range(0, len(names), players):
            spec, tables = _play(game, players, _lineup(game, players, offset), 24, seed=5 + offset,
                                 debug=True)
            main = tables[MAIN_TABLE]
            assert len(main) == 24
            assert main["winner"].between(-1, players - 1).all()


@pytest.mark.parametrize("game", GAMES)
def test_random_play_outs_keep_every_invariant(game):
    assert "random" in _heuristics(game), "every game has a random player (the legality baseline)"
    for players in _player_counts(game):
        _, tables = _play(game, players, ["random"] * players, 60, seed=17, debug=True)
        assert len(tables[MAIN_TABLE]) == 60


@pytest.mark.parametrize("game", GAMES)
def test_same_seed_same_tables_at_any_job_count(game):
    spec = get_game(game)
    players = spec.default_players
    names = _lineup(game, players, 1)
    _, one = _play(game, players, names, 400, seed=23, batch=100, jobs=1)
    _, two = _play(game, players, names, 400, seed=23, batch=100, jobs=2, backend="threading")
    assert one.keys() == two.keys()
    for name in one:
        pd.testing.assert_frame_equal(one[name], two[name])
    _, other = _play(game, players, names, 400, seed=24, batch=100, jobs=1)
    assert not one[MAIN_TABLE].equals(other[MAIN_TABLE])


@pytest.mark.parametrize("game", GAMES)
def test_trace_is_game_zero_of_a_one_game_run(game, tmp_path):
    """`trace GAME --seed S` is game 0 of `run GAME -n 1 --seed S`, at every player count."""
    for players in _player_counts(game):
        lineup = ",".join(_lineup(game, players, players))
        for seed in (3, 8):
            events = traced(game, "--seed", seed, "-s", lineup, "-p", players)
            assert events[0]["seed"] == seed and events[0]["game"] == game
            out = tmp_path / f"{players}-{seed}"
            ok(_invoke("run", game, "-n", 1, "--seed", seed, "-s", lineup, "-p", players, "-o", out, "-q",
                       "--no-report"))
            row = pd.read_parquet(out / f"{MAIN_TABLE}.parquet").iloc[0]
            end = events[-1]
            assert end["event"] == "game_end"
            assert end["win_share"] == [float(row[f"win_share_{p}"]) for p in range(players)], (players, seed)
            if "winners" in end:
                winner = end["winners"][0] if len(end["winners"]) == 1 else -1
            else:
                winner = -1 if end["winner"] is None else end["winner"]
            assert winner == int(row["winner"]), (players, seed)


@pytest.mark.parametrize("game", GAMES)
def test_every_seat_wins_sometimes_and_results_cover_every_game(game):
    """Seats rotate, so with equal strategies every seat wins some games; ids run 0..n-1 with no gap."""
    spec = get_game(game)
    players = spec.default_players
    _, tables = _play(game, players, ["greedy"] * players, 600, seed=2, batch=200)
    main = tables[MAIN_TABLE]
    assert np.array_equal(main[spec.id_column].to_numpy(), np.arange(600))
    wins = main["winner"].value_counts()
    assert all(wins.get(seat, 0) > 0 for seat in range(players)), wins.to_dict()


@pytest.mark.parametrize("game", GAMES)
def test_seats_rotate_so_every_strategy_sits_in_every_seat_equally(game):
    """The results name each seat's strategy (`strategy_<seat>`) as the run rotated them: over whole rotations
    every strategy sits in every seat equally often."""
    spec = get_game(game)
    players = spec.default_players
    first, second = _heuristics(game)[:2]
    lineup = [first if k % 2 == 0 else second for k in range(players)]
    _, tables = _play(game, players, lineup, 4 * players * players, seed=9)
    main_table = tables[MAIN_TABLE]
    for name in (first, second):
        per_seat = [int((main_table[f"strategy_{seat}"] == name).sum()) for seat in range(players)]
        assert len(set(per_seat)) == 1 and per_seat[0] > 0, (name, per_seat)


@pytest.mark.parametrize("game", GAMES)
def test_win_shares_sum_to_one_or_nobody_wins(game):
    """`win_share_<seat>` of the main table: each game's shares sum to 1, or to 0 when by configuration nobody
    wins; a sole winner holds the whole win."""
    for players in _player_counts(game):
        _, tables = _play(game, players, _lineup(game, players), 200, seed=31)
        main = tables[MAIN_TABLE]
        shares = main[[f"win_share_{p}" for p in range(players)]].to_numpy()
        assert ((shares >= 0) & (shares <= 1)).all()
        total = shares.sum(axis=1)
        nobody = np.isclose(total, 0)
        assert (nobody | np.isclose(total, 1)).all()
        sole = main["winner"].to_numpy() >= 0
        assert not (nobody & sole).any()
        assert sole.any()
        assert (shares[sole, main["winner"].to_numpy()[sole]] == 1).all()


# ------------------------------------------------------------------ the engine interface (sim/interface.py)

INTERFACE = ("new_game", "current_player", "legal_actions", "apply_action", "is_over", "returns", "observe",
             "check_invariants")


def _engine(game):
    engine = get_game(game).module("engine")
    missing = [name for name in INTERFACE + ("MAX_ACTIONS", "ACOLS", "STATE_SIZE", "OBS_SIZE")
               if not hasattr(engine, name)]
    if missing:
        pytest.skip(f"{game}'s engine does not speak sim.interface yet (no {', '.join(missing)})")
    return engine


def _fresh(engine, cfg, players, seed, game_index):
    s = np.zeros(engine.STATE_SIZE, dtype=np.int32)
    engine.new_game(s, cfg.vector, players, np.uint32(seed), game_index)
    return s


@pytest.mark.parametrize("game", GAMES)
def test_new_game_depends_only_on_seed_and_game(game):
    engine = _engine(game)
    spec = get_game(game)
    for players in _player_counts(game):
        _, cfg = _setup(game, players)
        a, b = _fresh(engine, cfg, players, 41, 3), _fresh(engine, cfg, players, 41, 3)
        assert np.array_equal(a, b)
        others = [_fresh(engine, cfg, players, 41, g) for g in range(4, 10)]
        assert any(not np.array_equal(a, o) for o in others), "each game of a batch is dealt anew"
    assert spec.max_players >= spec.min_players


def _step_through(game, players, seed, game_index, choose_row):
    """One game action by action over the interface, checking at every decision what any engine must guarantee;
    returns (final state, cfg, decisions seen, decisions whose hidden part a determinized world changed)."""
    engine = _engine(game)
    spec = get_game(game)
    _, cfg = _setup(game, players)
    determinize = spec.module("determinize").determinize
    s = _fresh(engine, cfg, players, seed, game_index)
    actions = np.zeros((engine.MAX_ACTIONS, engine.ACOLS), dtype=np.int32)
    obs = np.zeros(engine.OBS_SIZE, dtype=np.int32)
    reused = np.zeros(engine.OBS_SIZE, dtype=np.int32)
    decisions = hidden_varied = 0
    for _ in range(100_000):
        if engine.is_over(s):
            break
        p = engine.current_player(s)
        assert 0 <= p < players
        n = engine.legal_actions(s, cfg.vector, actions)
        assert 0 < n <= engine.MAX_ACTIONS, "a live game always offers an action (a pass is one)"
        obs[:] = 0
        engine.observe(s, cfg.vector, p, obs)
        engine.observe(s, cfg.vector, p, reused)  # a buffer reused from earlier decisions reads the same
        assert np.array_equal(obs, reused)
        world = s.copy()
        determinize(obs, cfg.vector, world)  # another state the seat cannot tell from this one
        seen = np.zeros(engine.OBS_SIZE, dtype=np.int32)
        engine.observe(world, cfg.vector, p, seen)
        assert np.array_equal(seen, obs), "the observation changed with what the seat cannot see"
        hidden_varied += not np.array_equal(world, s)
        decisions += n > 1
        engine.apply_action(s, cfg.vector, actions, choose_row(n))
        engine.check_invariants(s, cfg.vector)
    assert engine.is_over(s), "the game ends"
    return s, cfg, decisions, hidden_varied


@pytest.mark.parametrize("game", GAMES)
def test_interface_step_by_step_keeps_its_promises(game):
    """Random games step by step (`_step_through`: a seat to move, an action while live, invariants, `observe` blind
    to its buffer and to what the seat cannot see); `returns` are win shares summing to 1 (or 0: nobody wins)."""
    engine = _engine(game)
    rng = np.random.default_rng(7)
    varied = 0
    for players in _player_counts(game):
        for k in range(2):
            s, cfg, decisions, hidden = _step_through(game, players, 100 + k, k,
                                                      lambda n: int(rng.integers(0, n)))
            varied += hidden
            assert decisions > 0
            out = np.zeros(players, dtype=np.float64)
            engine.returns(s, cfg.vector, out)
            assert ((out >= 0) & (out <= 1)).all()
            assert np.isclose(out.sum(), 1.0) or np.isclose(out.sum(), 0.0), out
    assert varied > 0, "some decision has something hidden to sample (else the observation test is empty)"


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("strategy", ["random", "greedy"])
def test_bound_play_loop_plays_every_game_to_its_end_in_debug_mode(game, strategy):
    """Random and greedy play-outs through the bound play loop, invariants checked after every action: every game
    ends, with win shares summing to 1 (0 where the configuration lets nobody win)."""
    engine = _engine(game)
    play = get_game(game).module("kernel").play  # the binding the kernel and the trace driver play with
    for players in _player_counts(game):
        spec, cfg = _setup(game, players)
        sids, params = strategy_arrays(game, cfg.presets, [strategy] * players)
        obs = np.zeros(engine.OBS_SIZE, dtype=np.int32)
        actions = np.zeros((engine.MAX_ACTIONS, engine.ACOLS), dtype=np.int32)
        mover = np.zeros(params.shape[1], dtype=np.float64)
        log = np.zeros((0, 3 + engine.ACOLS), dtype=np.int32)
        states = np.zeros((0, engine.STATE_SIZE), dtype=np.int32)
        totals = []
        for g in range(12):
            s = _fresh(engine, cfg, players, 3, g)
            steps = play(s, cfg.vector, sids, params, obs, actions, mover, HEURISTIC_ONLY, True, -1, log, states)
            assert steps > 0 and engine.is_over(s)
            out = np.zeros(players, dtype=np.float64)
            engine.returns(s, cfg.vector, out)
            assert ((out >= 0) & (out <= 1)).all()
            totals.append(out.sum())
        assert all(np.isclose(t, 1.0) or np.isclose(t, 0.0) for t in totals), totals
        assert any(np.isclose(t, 1.0) for t in totals)


# The search player (strategies/search.py), bound per game: what every game's binding must provide. The
# game-specific checks (determinization, information hygiene, strength) stay in tests/<game>/test_<game>_expert.py.

@pytest.mark.parametrize("game", GAMES)
def test_search_player_is_registered_with_its_presets(game):
    spec, cfg = _setup(game, get_game(game).default_players)
    search = [d for d in registered(game) if d.search]
    assert [d.name for d in search] == ["ismcts"]
    assert list(search[0].params)[: len(SEARCH_PARAMS)] == list(SEARCH_PARAMS)  # the shared search's, then the game's
    fast, full = choices(game, cfg.presets, ["expert-fast", "expert"])
    assert fast.base == full.base == "ismcts" and fast.params[0] < full.params[0]
    assert "ismcts" not in _heuristics(game)  # `-s all` and rollouts never play a search player


@pytest.mark.parametrize("game", GAMES)
def test_search_player_refuses_a_search_rollout_policy(game):
    spec, cfg = _setup(game, get_game(game).default_players)
    key = "strategies.expert.rollout"
    with pytest.raises(UserError, match="rollout"):
        spec.validate(build(spec.package, None, (f'{key}="ismcts"',)), spec.default_players)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.slow
def test_search_player_plays_through_run_and_the_report_has_a_skill_section(game, tmp_path):
    players = get_game(game).default_players
    lineup = "ismcts,greedy,random" if players == 2 else ",".join(["ismcts"] + ["greedy"] * (players - 1))
    out = tmp_path / "skill"
    ok(_invoke("run", game, "-n", 8, "-p", players, "-s", lineup, "-o", out, "-q"))
    html = (out / "report.html").read_text()
    assert "How the answers move with skill" in html and "skill gap: search player against" in html
    summary = json.loads((out / "summary.json").read_text())
    assert any(k.startswith("skill_gap[ismcts vs ") for k in summary)


@pytest.mark.parametrize("game", GAMES)
def test_weighted_plays_through_run_and_trace(game, tmp_path):
    """`weighted` against greedy through `run` (both seated in the main table) and `trace` (the names in its first
    event, the game's end its last)."""
    out = tmp_path / "run"
    ok(_invoke("run", game, "-n", 20, "-s", "weighted,greedy", "-j", 1, "--seed", 3, "-o", out, "--no-report", "-q"))
    main = pd.read_parquet(out / f"{MAIN_TABLE}.parquet")
    seated = {name for p in range(get_game(game).default_players) for name in main[f"strategy_{p}"]}
    assert seated == {"weighted", "greedy"}
    events = traced(game, "--seed", 3, "-p", 2, "-s", "weighted,greedy")
    assert events[0]["strategies"] == ["weighted", "greedy"] and events[-1]["event"] == "game_end"
