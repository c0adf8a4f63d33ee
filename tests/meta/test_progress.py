"""The progress bar: only on a terminal, only after the delay, never with quiet."""

import io

from fastmetrics.meta._common import Progress


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_on_a_terminal_only(monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    bar = Progress(4, "job", delay=0.0)
    bar.update(2)
    bar.close()
    assert "job [" in terminal.getvalue() and "2/4" in terminal.getvalue()
    quiet = _Terminal()
    monkeypatch.setattr("sys.stderr", quiet)
    bar = Progress(4, "job", quiet=True, delay=0.0)
    bar.update(2)
    bar.close()
    assert quiet.getvalue() == ""
    piped = io.StringIO()
    monkeypatch.setattr("sys.stderr", piped)
    bar = Progress(4, "job", delay=0.0)
    bar.update(2)
    bar.close()
    assert piped.getvalue() == ""


def test_fast_jobs_show_nothing(monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    bar = Progress(4, "job")  # default delay: about a second
    bar.update(1)
    bar.close()
    assert terminal.getvalue() == ""
