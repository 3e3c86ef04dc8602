"""How every page is built: strings from a config, a folder or a table are text and reach HTML escaped; only
`Markup`, the tags these helpers made around escaped text, goes in as it is. A page never formats a name into a
tag itself: `tag`, `table` and `esc` do, so escaping holds by construction, not by each call remembering it."""
from __future__ import annotations

import html


class Markup(str):
    """HTML this program built (tags around escaped text): the only string a page inserts as it is. Any other
    string (a strategy's name, a config key, a folder's path) is text and is escaped on the way in."""
    __slots__ = ()


def esc(value) -> Markup:
    """`value` as page text: Markup passes as it is; anything else is str()-ed and escaped (quotes too)."""
    return value if isinstance(value, Markup) else Markup(html.escape(str(value), quote=True))


def markup(*parts) -> Markup:
    """Parts joined into one piece of markup, each escaped unless it is Markup already."""
    return Markup("".join(esc(p) for p in parts))


def tag(name: str, *children, **attrs) -> Markup:
    """`<name attrs>children</name>`, children and attribute values escaped unless Markup (`class_` for class)."""
    text = "".join(f" {k.rstrip('_')}='{esc(v)}'" for k, v in attrs.items() if v is not None)
    return Markup(f"<{name}{text}>{markup(*children)}</{name}>")


def table(head, rows, **attrs) -> Markup:
    """A table: a header row of `head` and a row per item of `rows`, every cell escaped unless Markup."""
    return tag("table", tag("tr", *(tag("th", h) for h in head)),
               *(tag("tr", *(tag("td", c) for c in row)) for row in rows), **attrs)
