"""Printing helpers shared by the golden case programs (imports no library)."""


def refused(call):
    """Runs ``call``; prints ``no error`` or the exception's class and message (150 chars)."""
    try:
        call()
        print("no error")
    except Exception as e:
        print(type(e).__name__, str(e)[:150])
