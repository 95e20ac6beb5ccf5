"""Printing helpers shared by the golden case programs (imports no library)."""


def refused(call, width=150):
    """Runs ``call``; prints ``no error`` or the exception's class and the first ``width``
    characters of its message (a program whose messages match PyTorch's only in their first
    part passes a smaller width)."""
    try:
        call()
        print("no error")
    except Exception as e:
        print(type(e).__name__, str(e)[:width])
