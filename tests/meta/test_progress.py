"""The progress bar: only on a terminal, only after the delay, never with quiet; its line with
the time left, drawn against a fake clock."""

import io

import pytest

from fastmetrics._progress import Progress, bar_line, seconds


class _Terminal(io.StringIO):
    def isatty(self):
        return True


class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_progress_bar_on_a_terminal_only(monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    bar = Progress(4, "job", delay=0.0)
    bar.update(2)
    bar.close()
    assert "job [" in terminal.getvalue() and " 50% " in terminal.getvalue()
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


def test_bar_line_shows_share_time_spent_and_time_left():
    assert bar_line("report", 45, 100, 3.2) == "report [#########           ]  45% 3.2s ETA 3.9s"
    assert bar_line("job", 0, 10, 0.5) == "job [                    ]   0% 0.5s ETA ?"
    assert bar_line("job", 10, 10, 75.0) == "job [####################] 100% 1m15s ETA 0.0s"


@pytest.mark.parametrize("value, text", [(0.04, "0.0s"), (59.94, "59.9s"), (65, "1m05s"), (7380, "2h03m")])
def test_durations(value, text):
    assert seconds(value) == text


def test_bar_redraws_with_the_eta_of_a_fake_clock(monkeypatch):
    terminal, clock = _Terminal(), _Clock()
    monkeypatch.setattr("sys.stderr", terminal)
    bar = Progress(10, "sweep", clock=clock)
    clock.now += 0.5
    bar.advance(2)  # within the delay: nothing yet
    assert terminal.getvalue() == ""
    clock.now += 1.5
    bar.advance(2)  # 4 of 10 in 2 s: 3 s left
    assert terminal.getvalue() == "\rsweep [########            ]  40% 2.0s ETA 3.0s"
    clock.now += 0.05
    bar.advance(1)  # redrawn at most every 0.1 s
    assert terminal.getvalue().count("\r") == 1
    clock.now += 3.0
    bar.update(10)
    bar.close()
    lines = terminal.getvalue().split("\r")
    assert lines[-1] == "sweep [####################] 100% 5.0s ETA 0.0s\n"
