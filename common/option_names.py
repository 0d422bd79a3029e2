"""How a message names an option: ``--total-rate`` on the command line, ``total_rate`` to a
caller of the library.

A library function that refuses a setting says which one, and a user reads the message where
they gave it: at a shell prompt a flag, in a notebook the keyword argument (or the key of a
sweep file, which is the same name). The library therefore never writes a flag itself; it
writes :func:`option` of the setting's keyword name, and :func:`inev.common.cli.main` runs
every command inside :func:`command_line`, where that reads as the flag. Outside a command
(a notebook, a test, a Spark worker of a sweep, whose error rows name a sweep file's keys)
it reads as the name.

``tests/test_vocabulary.py`` checks that no library module writes a flag, and that every
name given to :func:`option` is a flag of some command.

>>> option("total_rate")
'total_rate'
>>> with command_line():
...     f"{option('total_rate')} needs {option('method')}"
'--total-rate needs --method'
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_FLAGS: ContextVar[bool] = ContextVar("inev_option_names_as_flags", default=False)
"""Whether messages name options as command-line flags (inside :func:`command_line`)."""


def option(name: str, flag: str | None = None) -> str:
    """The user's name of the setting ``name`` (a keyword argument's name, ``total_rate``).

    Parameters
    ----------
    name : str
        The setting as a caller of the library gives it: its keyword name with underscores,
        or, for a switch whose flag names its other value, ``name=value``.
    flag : str, optional
        The flag's own name where it is not ``name`` (``estimated_latency`` for
        ``strict_latency=False``), with underscores.

    Returns
    -------
    str
        ``--total-rate`` (``--estimated-latency``) inside :func:`command_line`, else ``name``.

    Examples
    --------
    >>> option("latency_bound"), option("strict_latency=False", flag="estimated_latency")
    ('latency_bound', 'strict_latency=False')
    >>> with command_line():
    ...     option("strict_latency=False", flag="estimated_latency")
    '--estimated-latency'
    """
    return "--" + (flag or name).replace("_", "-") if _FLAGS.get() else name


@contextmanager
def command_line() -> Iterator[None]:
    """Name options as flags while the block runs (what a command does around its work).

    Examples
    --------
    >>> with command_line():
    ...     option("time_budget")
    '--time-budget'
    >>> option("time_budget")
    'time_budget'
    """
    token = _FLAGS.set(True)
    try:
        yield
    finally:
        _FLAGS.reset(token)
