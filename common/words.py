"""Words for people: plurals and short lists, used by every command's output."""

from __future__ import annotations

from collections.abc import Iterable


def plural(count: int, word: str, many: str | None = None) -> str:
    """The count with its noun in the right number.

    >>> plural(1, "query", "queries"), plural(3, "query", "queries"), plural(0, "link")
    ('1 query', '3 queries', '0 links')
    """
    return f"{count} {word if count == 1 else (many or word + 's')}"


def listing(items: Iterable[object], limit: int | None = None) -> str:
    """Items joined by commas; beyond ``limit`` items, how many more there are.

    >>> listing([3, 1, 2]), listing(range(10), limit=4)
    ('3, 1, 2', '0, 1, 2, 3 and 6 more')
    """
    shown = [str(i) for i in items]
    if limit is None or len(shown) <= limit:
        return ", ".join(shown)
    return ", ".join(shown[:limit]) + f" and {len(shown) - limit} more"
