"""The one exception type inev raises for bad input."""


class InevError(ValueError):
    """Bad input: a malformed file, an invalid model or an impossible request.

    The message is one line that names the offending entry; the command line prints it
    as ``error: <message>`` and exits non-zero.

    Parameters
    ----------
    message : str
        One line naming the offending entry.

    Examples
    --------
    >>> str(InevError("network: link [0, 9] names unknown node 9"))
    'network: link [0, 9] names unknown node 9'
    """
