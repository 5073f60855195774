"""Read what a report page shows, independently of how it was written: its tables (by id, each row's cell texts and
classes), its summary cards, its sections and its charts' count. Parsed with the standard library's HTML parser;
a page whose elements share an id is refused."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path


@dataclass
class Table:
    headings: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    row_classes: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    titles: list[list[str]] = field(default_factory=list)  # each body cell's hover text ('' for none)

    def records(self) -> list[dict[str, str]]:
        """Each row as {heading: text}."""
        return [dict(zip(self.headings, row, strict=True)) for row in self.rows]

    def hover(self, heading: str) -> list[str]:
        """The hover texts of a column's cells."""
        column = self.headings.index(heading)
        return [row[column] for row in self.titles]


@dataclass
class Page:
    tables: dict[str, Table] = field(default_factory=dict)
    cards: dict[str, str] = field(default_factory=dict)
    sections: list[str] = field(default_factory=list)
    charts: int = 0
    scripts: int = 0
    text: str = ""


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()
        self.table: Table | None = None
        self.cell: list[str] | None = None
        self.card: dict[str, str] | None = None
        self.card_part: str | None = None
        self.texts: list[str] = []
        self.ids: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.append(attrs["id"])
        classes = (attrs.get("class") or "").split()
        if tag == "table":
            self.table = self.page.tables.setdefault(attrs.get("id", f"table{len(self.page.tables)}"), Table())
        elif tag == "tr" and self.table is not None:
            self.row: list[str] = []
            self.row_titles: list[str] = []
            self.row_class = attrs.get("class") or ""
        elif tag in ("td", "th") and self.table is not None:
            self.cell = []
            self.row_titles.append(attrs.get("title") or "")
        elif tag == "a" and self.table is not None and self.cell is not None:
            self.table.links.append(attrs.get("href", ""))
        elif tag == "section":
            self.page.sections.append(attrs.get("id", ""))
        elif tag == "div" and "card" in classes:
            self.card = {}
        elif tag == "div" and self.card is not None and classes and classes[0] in ("label", "value", "note"):
            self.card_part = classes[0]
            self.card[self.card_part] = ""
        elif tag == "div" and "chart" in classes:
            self.page.charts += 1
        elif tag == "script":
            self.page.scripts += 1

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.row.append("".join(self.cell).strip())
            self.cell = None
        elif tag == "tr" and self.table is not None:
            if not self.table.headings:
                self.table.headings = self.row
            else:
                self.table.rows.append(self.row)
                self.table.row_classes.append(self.row_class)
                self.table.titles.append(self.row_titles)
        elif tag == "table":
            self.table = None
        elif tag == "div" and self.card_part is not None:
            self.card_part = None
        elif tag == "div" and self.card is not None and "value" in self.card:
            self.page.cards[self.card["label"]] = self.card["value"]
            self.card = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)
        if self.card is not None and self.card_part is not None:
            self.card[self.card_part] += data
        if self.lasttag not in ("script", "style"):
            self.texts.append(data)


def read(path: Path) -> Page:
    """The page at `path`, as a reader sees it."""
    reader = _Reader()
    reader.feed(Path(path).read_text(encoding="utf-8"))
    reader.page.text = " ".join(reader.texts)
    repeated = {i for i in reader.ids if reader.ids.count(i) > 1}
    assert not repeated, f"{path}: ids used twice (a filter box finds its table by id): {sorted(repeated)}"
    return reader.page
