"""One game as a self-contained HTML page to step through (`balance-sim replay`): the trace's events unchanged
plus one *frame* per step, built here so that the words and the running scores are plain, tested Python:
`{"e": event index, "s": index of the event whose state is shown, "seat": the acting seat or null, "where":
"Round 2 · turn 14", "text": the step in words, "public": the same words as the table hears them (only where
hidden cards make them differ), "score": [per seat], "score_public": [per seat] (only where it differs)}` plus
per-game fields. `template.html` (inline CSS and JavaScript, no network) draws the board from them."""
from __future__ import annotations

import html
import json
from importlib import resources
from pathlib import Path

from sim.game import game_names, get_game

DATA_MARK = "{{DATA}}"
BOARD_MARK = "{{BOARD}}"


def game_of(events: list[dict]) -> str:
    game = events[0].get("game")
    if game not in game_names():
        raise ValueError(f"not a trace: the first event names game {game!r}")
    return game


def page_data(events: list[dict], game_index: int = 0, batch_size: int | None = None, note: str = "") -> dict:
    """Everything the page shows: the events as traced, the frames (the game's replay room,
    GameSpec.replay), and a few labels."""
    spec = get_game(game_of(events))
    replay = spec.module("replay")
    start = events[0]
    players = int(start.get("players", len(start.get("strategies", [])) or 2))
    return {"game": spec.name, "title": spec.title, "seed": start.get("seed"), "game_index": game_index,
            "batch_size": batch_size, "players": players, "strategies": start.get("strategies", []),
            "score_name": replay.SCORE_NAME, "events": events, "frames": replay.frames(events), "note": note}


def build_page(events: list[dict], game_index: int = 0, batch_size: int | None = None, note: str = "") -> str:
    """`note`: a line the page shows under its title (e.g. that the strategies were the default)."""
    data = page_data(events, game_index, batch_size, note)
    # "</" inside a <script> would close it early; "<\/" is the same string to JSON
    blob = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    template = resources.files(__package__).joinpath("template.html").read_text(encoding="utf-8")
    where = f"seed {data['seed']}" + (f", game {game_index}" if game_index else "")
    title = f"{data['title']} replay ({where})"
    page = template.replace(BOARD_MARK, board_script(data["game"])).replace("{{TITLE}}", html.escape(title))
    return page.replace(DATA_MARK, blob)


def board_script(game: str) -> str:
    """The game's `drawBoard(frame)` for the page: `<module>.js` beside its replay module (GameSpec.replay)."""
    return Path(get_game(game).module("replay").__file__).with_suffix(".js").read_text(encoding="utf-8")


def write_replay(path: Path, events: list[dict], game_index: int = 0, batch_size: int | None = None,
                 note: str = "") -> Path:
    import os
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    page = build_page(events, game_index, batch_size, note)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:  # written whole or not at all: a full disk never leaves half a page under the user's name
        tmp.write_text(page, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


PAGE_MARK = '<script id="replay-data" type="application/json">'


def is_replay_page(path: Path) -> bool:
    """Whether the file at `path` is a replay page balance-sim wrote (so `-o` may replace it)."""
    try:
        with open(path, "rb") as f:
            head = f.read(8 * 2**20)
    except OSError:
        return False
    return PAGE_MARK.encode() in head and b"drawBoard" in head


def embedded_data(page: str) -> dict:
    """The JSON a written page carries (for tests and tools that read replays back)."""
    start = page.index(PAGE_MARK) + len(PAGE_MARK)
    stop = page.index("</script>", start)
    return json.loads(page[start:stop])  # JSON reads "<\\/" as "</"
