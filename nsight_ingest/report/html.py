"""What the HTML pages share: one self-contained document (plotly's script inlined once, so the page works
offline), plotly figures in one style, summary cards, and tables a reader sorts (click a heading) and filters."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# How every chart looks: plotly's white template, legends below the plot (never over a neighbour), no plotly logo.
CONFIG = {"displaylogo": False, "responsive": True}
LAYOUT = {"template": "plotly_white", "margin": {"l": 70, "r": 30, "t": 36, "b": 40}, "font": {"size": 12},
          "legend": {"orientation": "h", "yref": "container", "yanchor": "bottom", "y": 0, "xanchor": "left", "x": 0}}
COLORS = {"first": "#1f77b4", "regressed": "#d62728", "within": "#2ca02c", "band": "rgba(31, 119, 180, 0.15)"}


def escape(text: Any) -> str:
    """Text for HTML."""
    return html.escape(str(text), quote=True)


def figure(fig: Any, title: str, height: int = 380, note: str = "") -> str:
    """A plotly figure under its title, with a note below, as a div of the page (the page holds plotly's script
    once). The title is the page's, not plotly's: plotly's toolbar would cover a long one."""
    fig.update_layout(**{**LAYOUT, "margin": {**LAYOUT["margin"], **fig.layout.margin.to_plotly_json()}},
                      height=height)
    said = f'<p class="note">{escape(note)}</p>' if note else ""
    return (f'<div class="chart"><h3>{escape(title)}</h3>'
            + fig.to_html(full_html=False, include_plotlyjs=False, config=CONFIG) + said + "</div>")


@dataclass(frozen=True)
class Cell:
    """A table cell: its text, and the value it sorts by (a number sorts as a number; None: by its text)."""

    text: str
    sort: float | None = None  # in a numeric column, a cell without one sorts last
    title: str = ""  # shown on hover (a kernel's full name)
    link: str = ""  # the page the text links to


def number(value: float | None, text: str) -> Cell:
    """A number's cell: shown as `text`, sorted by `value` (none: sorts last, whichever way)."""
    return Cell(text, None if value is None else float(value))


def count(value: int | None) -> Cell:
    """A count's cell, with thousands separators ('-' for none, sorting last)."""
    return number(value, "-" if value is None else f"{value:,}")


@dataclass(frozen=True)
class Column:
    """A table column: its heading and whether it holds numbers (right-aligned)."""

    heading: str
    numeric: bool = False
    title: str = ""  # what the heading means, shown on hover
    wraps: bool = False  # long text (kernel names, paths) that may wrap; other cells stay on one line


def table(table_id: str, columns: Sequence[Column], rows: Sequence[Sequence[Cell | str]],
          row_classes: Sequence[str] | None = None, filterable: bool = False, caption: str = "") -> str:
    """A table whose headings sort it (click again to reverse); with `filterable`, a box above keeps the rows that
    hold its text."""
    heads = "".join(f'<th class="{"num" if c.numeric else ""}" title="{escape(c.title)}">{escape(c.heading)}</th>'
                    for c in columns)
    body = []
    for index, row in enumerate(rows):
        cells = []
        for column, cell in zip(columns, row, strict=True):
            cell = cell if isinstance(cell, Cell) else Cell(cell)
            sort = "" if cell.sort is None else f' data-sort="{cell.sort!r}"'
            title = f' title="{escape(cell.title)}"' if cell.title else ""
            kind = "num" if column.numeric else "wraps" if column.wraps else ""
            text = f'<a href="{escape(cell.link)}">{escape(cell.text)}</a>' if cell.link else escape(cell.text)
            cells.append(f'<td class="{kind}"{sort}{title}>{text}</td>')
        row_class = f' class="{row_classes[index]}"' if row_classes else ""
        body.append(f"<tr{row_class}>{''.join(cells)}</tr>")
    search = (f'<input class="filter" type="search" data-table="{table_id}" placeholder="filter rows" '
              f'aria-label="filter {escape(caption or table_id)}">' if filterable else "")
    title = f"<caption>{escape(caption)}</caption>" if caption else ""
    return (f'{search}<table class="sortable" id="{table_id}">{title}<thead><tr>{heads}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>")


def cards(items: Sequence[tuple[str, str, str]]) -> str:
    """Summary cards: (label, value, what it means) each."""
    return '<div class="cards">' + "".join(
        f'<div class="card" title="{escape(note)}"><div class="label">{escape(label)}</div>'
        f'<div class="value">{escape(value)}</div><div class="note">{escape(note)}</div></div>'
        for label, value, note in items) + "</div>"


def section(section_id: str, heading: str, *parts: str, note: str = "") -> str:
    """A titled section of the page."""
    said = f'<p class="note">{escape(note)}</p>' if note else ""
    return f'<section id="{section_id}"><h2>{escape(heading)}</h2>{said}{"".join(parts)}</section>'


_STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px 32px;color:#222;max-width:1500px}
h1{font-size:22px;margin:0 0 4px} .chart h3{font-size:14px;font-weight:600;margin:10px 0 0 8px}
h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
p.note,.meta{color:#555;font-size:13px;margin:4px 0 10px}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:10px;margin:14px 0}
.card{border:1px solid #ddd;border-radius:6px;padding:10px 12px;background:#fafafa}
.card .label{font-size:12px;color:#555}.card .value{font-size:22px;font-weight:600;margin:2px 0}
.card .note{font-size:11px;color:#777}
/* auto-fill, not auto-fit: each chart is drawn as the page is read, into a column the later charts leave as is */
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:16px}
.chart{min-width:0}
table{border-collapse:collapse;font-size:13px;margin:6px 0 12px}
caption{text-align:left;font-weight:600;padding:4px 0}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top;white-space:nowrap}
td.wraps{white-space:normal;overflow-wrap:anywhere;min-width:240px;max-width:620px}
th{background:#f3f3f3;cursor:pointer;user-select:none;white-space:nowrap}
th.sorted-asc::after{content:" \\25B2"} th.sorted-desc::after{content:" \\25BC"}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
tr.regressed td{background:#fde2e2} tr.failed td{background:#fff4c2} tr.unjudged td{color:#666}
input.filter{margin:4px 0;padding:3px 6px;width:280px}
code{background:#f3f3f3;padding:0 3px}
details{margin:6px 0} summary{cursor:pointer;color:#333}
"""

# Sorting and filtering: a click on a heading sorts its table, a numeric column by its cells' data-sort numbers, another
# by their text; a filter box hides the rows without its text.
_SCRIPT = """
document.addEventListener('click', function (event) {
  var th = event.target.closest('table.sortable th');
  if (!th) return;
  var table = th.closest('table'), body = table.tBodies[0], column = th.cellIndex;
  var descending = !th.classList.contains('sorted-desc'), numeric = th.classList.contains('num');
  Array.prototype.forEach.call(th.parentNode.children, function (h) {
    h.classList.remove('sorted-asc', 'sorted-desc');
  });
  th.classList.add(descending ? 'sorted-desc' : 'sorted-asc');
  var rows = Array.prototype.slice.call(body.rows);
  rows.sort(function (a, b) {
    var x = a.cells[column], y = b.cells[column];
    if (numeric) {
      var p = parseFloat(x.dataset.sort), q = parseFloat(y.dataset.sort);
      if (isNaN(p) || isNaN(q)) return isNaN(p) - isNaN(q);  // a cell without a number last, either way
      return descending ? q - p : p - q;
    }
    var order = x.textContent.localeCompare(y.textContent);
    return descending ? -order : order;
  });
  rows.forEach(function (row) { body.appendChild(row); });
});
// a chart drawn before the page was laid out takes its final width
window.addEventListener('load', function () { window.dispatchEvent(new Event('resize')); });
document.addEventListener('input', function (event) {
  if (!event.target.matches('input.filter')) return;
  var text = event.target.value.toLowerCase();
  var table = document.getElementById(event.target.dataset.table);
  Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
    row.style.display = row.textContent.toLowerCase().indexOf(text) >= 0 ? '' : 'none';
  });
});
"""


def page(title: str, body: str, plots: bool = True) -> str:
    """The whole document: plotly's script once (when it `plots`), the style, `body`, and the table script."""
    from plotly.offline import get_plotlyjs

    script = f"<script>{get_plotlyjs()}</script>" if plots else ""
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f"<style>{_STYLE}</style>{script}</head><body>{body}"
            f"<script>{_SCRIPT}</script></body></html>\n")
