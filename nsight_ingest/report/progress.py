"""A progress bar on stderr for long runs (the nightly job), so stdout stays machine-readable."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def progress_bar(total: int, label: str) -> Iterator[Callable[[str], None]]:
    """Show a bar of `total` items on a terminal (nothing otherwise, so that stderr holds only messages); yields a
    callback to call once per finished item."""
    from rich.console import Console
    from rich.progress import Progress

    console = Console(stderr=True)
    with Progress(console=console, transient=True, disable=not console.is_terminal) as progress:
        task = progress.add_task(label, total=total)
        yield lambda _item: progress.advance(task)
