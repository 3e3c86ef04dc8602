"""Designer workflow: sweeps, tuning, resumable runs, summary-only runs, and the Dask backend."""
import json
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from sim.variants import Target, parse_range, parse_target
from cli_runs import cli as invoke, ok, same_tables, wait_for_batches

SMALL = ["-s", "greedy,racer", "--seed", "5"]


def test_range_and_target_parsing():
    assert parse_range("3:9:1") == [3, 4, 5, 6, 7, 8, 9]
    assert parse_range("0.5:1.5:0.5") == [0.5, 1.0, 1.5]
    t = parse_target("first_player_match_win_rate=0.5:0.01")
    assert (t.low, t.high) == pytest.approx((0.49, 0.51))
    assert parse_target("turns_per_round=25..35") == Target("turns_per_round", 25, 35)
    assert t.verdict({"estimate": 0.5, "ci_low": 0.495, "ci_high": 0.505}) == "meets"
    assert t.verdict({"estimate": 0.5, "ci_low": 0.48, "ci_high": 0.52}) == "plausible"
    assert t.verdict({"estimate": 0.53, "ci_low": 0.52, "ci_high": 0.54}) == "misses"


@pytest.mark.slow
def test_sweep_common_random_numbers_and_outputs(tmp_path):
    out = tmp_path / "sweep"
    r = ok(invoke("sweep", "mohur", "--param", "rules.coin_token", "--values", "0", "5", "-n", "1000",
                  "--batch-size", "500", "-o", out, "-q", "--target", "turns_per_round=0..1000", *SMALL))
    table = pd.read_csv(out / "sweep.csv")
    assert list(table["rules.coin_token"]) == [0, 5]
    assert (out / "sweep_report.html").is_file() and (out / "variant-000" / "games.parquet").is_file()
    assert "rules.coin_token=0; rules.coin_token=5" in r.output  # both meet a target that cannot be missed
    # the coin token only changes scoring, not play: with common random numbers the deals and the moves are
    # the same in both variants, so turn counts match exactly while the coin token changes rupees
    a = pd.read_parquet(out / "variant-000" / "rounds.parquet")
    b = pd.read_parquet(out / "variant-001" / "rounds.parquet")
    first = a[a["round"] == 1].merge(b[b["round"] == 1], on="match", suffixes=("_a", "_b"))
    assert len(first) == 1000
    assert (first["turns_a"] == first["turns_b"]).all()
    total_a = first["rupees_0_a"] + first["rupees_1_a"]
    total_b = first["rupees_0_b"] + first["rupees_1_b"]
    assert ((total_b - total_a) == 5 * (first["coin_token_a"] >= 0)).all()


def test_sweep_bad_value_writes_nothing(tmp_path):
    out = tmp_path / "bad"
    r = invoke("sweep", "mohur", "--param", "rules.hand_limit", "--values", "7", "-3", "-n", "100", "-o", out)
    assert r.exit_code == 2
    assert "rules.hand_limit" in r.output
    assert not out.exists() and not Path(str(out) + ".partial").exists()


def test_tune_finds_the_known_effect(tmp_path):
    """A known effect: one seal to win makes a match one round (rarely two), two or three at least two; successive
    halving must rank seals_to_win = 1 first and show the evidence that it meets the target."""
    out = tmp_path / "tune"
    ok(invoke("tune", "mohur", "--param", "rules.seals_to_win", "--values", "1", "2", "3",
              "--target", "rounds_per_match=0.95..1.05", "--budget", "6000", "--batch-size", "500",
              "-o", out, "-q", *SMALL))
    result = json.loads((out / "tune.json").read_text())
    best = result["ranking"][0]
    assert best["params"] == {"rules.seals_to_win": 1}  # one seal ends every match after one round
    assert best["targets"]["rounds_per_match"]["verdict"] == "meets"
    assert result["spent"] <= 6000


def test_summary_only_matches_full_run(tmp_path):
    full, agg = tmp_path / "full", tmp_path / "agg"
    assert invoke("run", "mohur", "-n", "1500", "--batch-size", "500", "-o", full, "-q", *SMALL).exit_code == 0
    assert invoke("run", "mohur", "-n", "1500", "--batch-size", "500", "-o", agg, "-q", "--summary-only",
                  *SMALL).exit_code == 0
    a = json.loads((full / "summary.json").read_text())
    b = json.loads((agg / "summary.json").read_text())
    assert not list(agg.glob("*.parquet"))
    for name in ("first_player_round_win_rate", "turns_per_round", "rounds_per_match", "win_rate[greedy]"):
        for key in ("estimate", "ci_low", "ci_high", "n"):
            assert b[name][key] == pytest.approx(a[name][key], rel=1e-9), (name, key)


@pytest.mark.slow
def test_interrupted_run_resumes_to_identical_results(tmp_path):
    out, ref = tmp_path / "run", tmp_path / "ref"
    # minutes of play: the signal cannot land after the run's end however late a loaded machine lets it be sent
    args = ["run", "mohur", "-n", str(10**7), "--batch-size", "500", "-o", str(out), "-q", "--no-report", *SMALL]
    proc = subprocess.Popen([sys.executable, "-m", "sim.cli", *args], stderr=subprocess.PIPE, text=True)
    partial = Path(str(out) + ".partial") / "batches"
    wait_for_batches(out, 3, proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 2 and "--resume" in err
    assert not out.exists() and partial.is_dir()
    done = len(list(partial.glob("batch-*.npz")))
    assert done >= 3
    # a partial folder can be reported, marked partial
    ok(invoke("report", Path(str(out) + ".partial"), "-o", tmp_path / "partial-report"))
    assert json.loads((tmp_path / "partial-report" / "summary.json").read_text())["partial"] is True
    # shrink the plan so the test stays short: resume only needs meta.json and the saved batches
    meta_path = Path(str(out) + ".partial") / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta["games"] = (done + 2) * 500
    meta_path.write_text(json.dumps(meta))
    assert invoke("run", "--resume", out, "-q", "--no-report").exit_code == 0
    assert out.is_dir() and not Path(str(out) + ".partial").exists()
    assert invoke("run", "mohur", "-n", str((done + 2) * 500), "--batch-size", "500", "-o", ref, "-q",
                  "--no-report", *SMALL).exit_code == 0
    same_tables(out, ref, "mohur")


@pytest.mark.slow
def test_dask_backend_gives_identical_results(tmp_path):
    pytest.importorskip("dask.distributed")
    local, dask = tmp_path / "local", tmp_path / "dask"
    assert invoke("run", "mohur", "-n", "1500", "--batch-size", "500", "-o", local, "-q", "--no-report",
                  *SMALL).exit_code == 0
    ok(invoke("run", "mohur", "-n", "1500", "--batch-size", "500", "-j", "2", "--backend", "dask", "-o", dask,
              "-q", "--no-report", *SMALL))
    same_tables(local, dask, "mohur")


def test_round_robin_over_named_strategies(tmp_path):
    out = tmp_path / "rr"
    assert invoke("run", "mohur", "-n", "24", "-s", "greedy,racer", "--round-robin", "-o", out, "-q",
                  "--no-report").exit_code == 0
    g = pd.read_parquet(out / "games.parquet")
    pairs = g.groupby(["strategy_0", "strategy_1"], observed=True).size().to_dict()
    # pairings greedy-greedy, greedy-racer, racer-racer, each played both ways round in blocks of two
    assert pairs == {("greedy", "greedy"): 8, ("greedy", "racer"): 4, ("racer", "greedy"): 4, ("racer", "racer"): 8}
    r = invoke("run", "mughal", "-n", "8", "--round-robin", "-o", tmp_path / "m")
    assert r.exit_code == 2 and "--round-robin" in r.output
