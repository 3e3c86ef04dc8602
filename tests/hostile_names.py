"""Names a hostile (or careless) user gives presets: markup that would run if a page wrote it raw, a `=` that a
key parser could cut, quotes, ampersands and non-Latin letters. One list, used by every page's escaping test."""
import json
from pathlib import Path

SCRIPT = "<script>document.write(7*191)</script>"
HOSTILE = [SCRIPT, "a=b", "q\"uo'te & <b>amp</b>", "Ünïcødé 名"]
RAW = ("<script>", "<b>amp</b>")  # what must never reach a page as markup


def preset_config(path: Path, base: str = "greedy", names=HOSTILE, round_robin: bool = True) -> Path:
    """A --config file with one preset per hostile name (TOML keys quoted, JSON escapes are TOML's too)."""
    lines = []
    for name in names:
        lines += [f"[strategies.{json.dumps(name, ensure_ascii=False)}]", f'base = "{base}"',
                  f"round_robin = {'true' if round_robin else 'false'}", ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def assert_escaped(page: str, where: str = "", shown: bool = True) -> None:
    """No hostile name's markup stands raw on `page`, and the script's name is there as escaped text (so the name
    did reach the page: a page that dropped every name would pass the first check)."""
    for raw in RAW:
        assert raw not in page, f"{where}: raw {raw!r} on the page"
    assert not shown or "&lt;script&gt;document.write(7*191)&lt;/script&gt;" in page, f"{where}: the name is not shown"
