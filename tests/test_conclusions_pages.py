"""Every page states a conclusion one way: small real runs of each game (`-s all`, tuned included), a compare, a
sweep, a tune and a sensitivity screening, their pages read sentence by sentence. Wherever a page speaks of the
seat edge, the play style, the top lever, a game's length or a rate a rule should keep at zero, it says the
conclusion's own sentence (summary.json `conclusions`; a sweep's variants', a tune's candidates', a sensitivity
screening's base run's), so no two sections can give different verdicts or numbers; the pooled "Skill" figures
and the advice to nerf our own players are gone."""
import html
import json
import re

import pytest

from analysis import conclusions as C

RUNS = {  # small: seconds each on a warm kernel cache
    "mughal4": ("mughal", "-p", "4", "-n", "1500", "--seed", "5001"),
    "mughal6": ("mughal", "-p", "6", "-n", "1200", "--seed", "5002"),
    "muziris3": ("muziris", "-p", "3", "-n", "1200", "--seed", "5003"),
    "mohur": ("mohur", "-n", "600", "--seed", "5004"),
}
# phrases only a conclusion's sentence may say: id -> pattern
PHRASES = {
    "seat_edge": r"Seating matters|No seat edge we can detect|Too few games to tell a seat edge",
    "play_style": r"dominates the hand-written|is the strongest play style|No single strongest play style|"
                  r"Toss-up between|wins most often of the play styles",
    "top_lever": r"strongest levers? on who wins",
    "length": r"(?:game|match) lasts (?:about )?\d|action steps for every player",
    "safety_end_rate": r"end on a safety rule",
    "round_cap_rate": r"stop at the simulator's round cap",
    "coins_short_rate": r"would need more coins than the box",
}
OWNERS = {"play_style": ("play_style", "best_candidate")}  # tune's toss-up between candidates says "Toss-up between"
NEVER = [r"may be too strong", r"with heuristics", r"with experts", r"\(a real change\)", r"Skill: heuristics",
         r"Conclusions across skill"]


def page_text(path) -> str:
    """The words of a page, tags dropped and entities read, runs of white space as one space."""
    text = re.sub(r"<[^>]+>", " ", path.read_text())
    return re.sub(r"\s+", " ", html.unescape(text))


def check_page(text: str, conclusions: list[dict], *more: list[dict]) -> None:
    """Every phrase only a conclusion may say lies inside a sentence of a conclusion of that question: of
    `conclusions` (a run's), or of any of `more` (a sweep's other variants, a tune's candidates)."""
    for bad in NEVER:
        assert not re.search(bad, text), bad
    every = [c for items in (conclusions, *more) for c in items]
    for cid, pattern in PHRASES.items():
        hits = [m.start() for m in re.finditer(pattern, text)]
        owners = [c for c in every if c["id"] in OWNERS.get(cid, (cid,)) and c.get("text")]
        if not hits:
            continue
        assert owners, (cid, text[hits[0] - 80:hits[0] + 200])
        said = [(m.start(), m.end()) for c in owners for m in re.finditer(re.escape(c["text"]), text)]
        for hit in hits:  # every mention lies inside one of the conclusions' own sentences
            assert any(a <= hit < b for a, b in said), (cid, text[hit - 120:hit + 240])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    from click.testing import CliRunner

    from sim.cli import main
    root = tmp_path_factory.mktemp("pages")
    out = {}
    for name, args in RUNS.items():
        result = CliRunner().invoke(main, ["run", *args, "-j", "1", "-q", "-o", str(root / name)])
        assert result.exit_code == 0, (result.output, result.exception)
        out[name] = root / name
    again = root / "mughal4-again"
    result = CliRunner().invoke(main, ["run", "mughal", "-p", "4", "-n", "1500", "--seed", "5005", "-j", "1", "-q",
                                       "-o", str(again)])
    assert result.exit_code == 0, (result.output, result.exception)
    result = CliRunner().invoke(main, ["compare", str(out["mughal4"]), str(again), "-o", str(root / "cmp")])
    assert result.exit_code == 0, (result.output, result.exception)
    out["compare"] = root / "cmp"
    out["mughal4-again"] = again
    return out


@pytest.mark.parametrize("name", list(RUNS))
def test_every_report_states_each_conclusion_once_and_the_same_way(runs, name):
    summary = json.loads((runs[name] / "summary.json").read_text())
    conclusions = summary["conclusions"]
    ids = {c["id"] for c in conclusions}
    assert {"seat_edge", "top_lever", "length", "skill"} <= ids
    for c in conclusions:
        assert c["verdict"] in (C.REAL, C.NOISE, C.TOSS_UP, C.TOO_FEW) and c["population"] and c["text"]
    for f in summary["findings"]:  # the Findings are the conclusions' sentences
        source = next((c for c in conclusions if c["text"] == f["text"]), None)
        assert source is not None or f["id"].startswith(("strength_bound", "partial", "degenerate")), f
    text = page_text(runs[name] / "report.html")
    check_page(text, conclusions)
    seat = C.by_id(conclusions)["seat_edge"]
    assert text.count(seat["text"]) >= 2  # the Findings and the seat section, word for word
    assert text.count("How the answers move with skill") >= 1
    # one position, one name: the skill section's seat words are the seat finding's ("the player two seats after",
    # not "the player 2 seats after the round-1 first player"; "the player in seat 0", not "seat 0")
    family = "first_player_round_win_rate" if name == "mohur" else \
        "position_win_rate" if name.startswith("muziris") else "seat_win_rate"
    seats = {k: m for k, m in summary.items() if k.startswith("skill_seat[")}
    assert seats
    for key, m in seats.items():
        k = int(key.rsplit("[", 1)[1][:-1])
        words = C.TWO_SEAT[family] if family in C.TWO_SEAT else C.position_words(family, k) + " wins"
        assert m["what"] == words, (key, m["what"])
    style = C.by_id(conclusions).get("play_style")
    if style:  # our evolved and search players are the reference, never the style named
        assert summary["strategy_kinds"][style["leader"]] == "hand-written"


def test_compare_states_each_runs_seat_conclusion_as_its_report_does(runs):
    doc = json.loads((runs["compare"] / "compare.json").read_text())
    text = page_text(runs["compare"] / "compare.html")
    for key, folder in (("a", runs["mughal4"]), ("b", runs["mughal4-again"])):
        seat = C.by_id(json.loads((folder / "summary.json").read_text())["conclusions"])["seat_edge"]
        assert f"In {key.upper()}: {seat['text']}" in text
        assert any(f["text"] == f"In {key.upper()}: {seat['text']}" for f in doc["findings"])
    # the edge's own comparison, A against B, is stated too (a merge had dropped it: "the two runs share no seat")
    edge = json.loads((runs["mughal4"] / "summary.json").read_text())["largest_edge"]["figure"]
    assert doc["edge"] == edge and "The edge is not compared" not in text
    assert any(f["id"] == "edge" and f["figure"] == edge and f["text"].startswith("The edge (") for f in doc["findings"])
    for bad in NEVER:
        assert not re.search(bad, text)


# ---- sweep, tune and sensitivity: each variant's, candidate's and base run's conclusions, as its report says them
@pytest.fixture(scope="module")
def grids(tmp_path_factory):
    from cli_runs import cli, ok
    root = tmp_path_factory.mktemp("grids")
    common = ["-j", "1", "-q"]
    ok(cli("sweep", "mughal", "-p", "4", "--param", "emperors.Jahan.bonus", "--values", "2", "6", "-n", "600",
           "-s", "all", "--reports", *common, "-o", root / "sweep"))
    ok(cli("tune", "mughal", "-p", "4", "--param", "emperors.Jahan.bonus", "--values", "2", "6", "--target",
           "nash_weight[emperor]=0.2..0.4", "--budget", "2000", "-s", "emperor,greedy,denier,dodger", *common,
           "-o", root / "tune"))
    ok(cli("sensitivity", "mohur", "--param", "rules.coin_token", "-n", "200", "--metric",
           "first_player_round_win_rate", "--metric", "turns_per_round", "-s", "all", *common, "-o", root / "sens"))
    ok(cli("run", "mohur", "-n", "200", "--batch-size", "2000", "-s", "all", *common, "-o", root / "base"))
    return root


def test_sweep_says_each_variants_conclusions_as_its_report_does(grids):
    text = page_text(grids / "sweep" / "sweep_report.html")
    variants = [json.loads((grids / "sweep" / f"variant-{i:03d}" / "summary.json").read_text()) for i in (0, 1)]
    items = [v["conclusions"] for v in variants]
    check_page(text, *items)
    for i, (summary, value) in enumerate(zip(variants, ("2", "6"))):
        seat = C.by_id(summary["conclusions"])["seat_edge"]
        assert f"At emperors.Jahan.bonus={value}: {seat['text']}" in text  # the variant's section, word for word
        report = page_text(grids / "sweep" / f"variant-{i:03d}" / "report.html")
        assert seat["text"] in report and any(f["text"] == seat["text"] for f in summary["findings"])
        for c in summary["conclusions"]:  # every conclusion of the variant, as its report's Findings say it
            assert c["text"] in text, c["text"]
    base_seat = C.by_id(variants[0]["conclusions"])["seat_edge"]["text"]
    box = text[text.index("Findings"):text.index("Variants")]
    assert f"At emperors.Jahan.bonus=2: {base_seat}" in box  # the baseline's seat edge is in the Findings


def test_tune_says_its_answer_and_each_candidates_conclusions_once(grids):
    doc = json.loads((grids / "tune" / "tune.json").read_text())
    text = page_text(grids / "tune" / "tune.html")
    picked = C.by_id(doc["conclusions"])["best_candidate"]
    assert picked["verdict"] in (C.REAL, C.TOSS_UP) and picked["text"] in text
    if picked["verdict"] == C.TOSS_UP:  # the all-or-nothing weight: no best named anywhere on the page
        assert picked["text"].startswith("Toss-up between") and "Best candidate" not in text
        assert "the best is" not in text
    else:
        assert picked["text"].startswith(("Best candidate", "Closest candidate"))
    check_page(text, doc["conclusions"], *(c["conclusions"] for c in doc["ranking"]))
    for c in doc["ranking"]:
        for x in c["conclusions"]:
            assert x["text"] in text


def test_sensitivity_says_the_base_runs_conclusions_as_its_report_does(grids):
    base = json.loads((grids / "sens" / "base_summary.json").read_text())
    text = page_text(grids / "sens" / "sensitivity.html")
    check_page(text, base["conclusions"])
    for c in base["conclusions"]:
        assert c["text"] in text
    seat = C.by_id(base["conclusions"])["seat_edge"]
    said = C.sentence_on(base["conclusions"], "first_player_round_win_rate")
    assert f"At your configuration: {said}" in text[text.index("Findings"):text.index("Reading")]
    # the matching report: `run` of the same configuration, seed, games and batches says the same sentences
    run = json.loads((grids / "base" / "summary.json").read_text())
    assert C.by_id(run["conclusions"])["seat_edge"]["text"] == seat["text"]
    assert seat["text"] in page_text(grids / "base" / "report.html")
