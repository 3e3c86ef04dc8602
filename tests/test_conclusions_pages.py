"""Every page states a conclusion one way: small real runs of each game (`-s all`, tuned included) and a compare,
their pages read sentence by sentence. Wherever a page speaks of the seat edge, the play style or the top lever,
it says the conclusion's own sentence (summary.json `conclusions`), so no two sections can give different
verdicts or numbers; the pooled "Skill" figures and the advice to nerf our own players are gone."""
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
}
NEVER = [r"may be too strong", r"with heuristics", r"with experts", r"\(a real change\)", r"Skill: heuristics",
         r"Conclusions across skill"]


def page_text(path) -> str:
    """The words of a page, tags dropped and entities read, runs of white space as one space."""
    text = re.sub(r"<[^>]+>", " ", path.read_text())
    return re.sub(r"\s+", " ", html.unescape(text))


def check_page(text: str, conclusions: list[dict]) -> None:
    by_id = C.by_id(conclusions)
    for bad in NEVER:
        assert not re.search(bad, text), bad
    for cid, pattern in PHRASES.items():
        hits = [m.start() for m in re.finditer(pattern, text)]
        c = by_id.get(cid)
        if not hits:
            continue
        assert c is not None, (cid, text[hits[0] - 80:hits[0] + 200])
        said = [(m.start(), m.end()) for m in re.finditer(re.escape(c["text"]), text)]
        for hit in hits:  # every mention lies inside the conclusion's own sentence
            assert any(a <= hit < b for a, b in said), (cid, c["text"], text[hit - 120:hit + 240])


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
    for bad in NEVER:
        assert not re.search(bad, text)
