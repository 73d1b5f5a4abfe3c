"""`mise run bench` (evals/benchmarks/run_all.py): every benchmark runs even after one misses,
the exit code says whether any missed, and the Markdown summary a CI job shows carries each
one's result and printed figures."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from support import REPO

RUN_ALL = REPO / "evals" / "benchmarks" / "run_all.py"


@pytest.fixture
def run_all(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("run_all_under_test", RUN_ALL)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    (tmp_path / "fast.py").write_text("print('fast: 12 ms (target 50 ms)')\n")
    (tmp_path / "slow.py").write_text(
        "import sys\nprint('slow: 9 s (target 5 s) ``` MISSED')\nsys.exit(1)\n"
    )
    monkeypatch.setattr(module, "HERE", tmp_path)
    monkeypatch.setattr(module, "BENCHMARKS", ("slow.py", "fast.py"))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return module


def test_a_missed_target_fails_the_run_after_every_benchmark_ran(run_all, tmp_path, capsys):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    assert run_all.main(["--summary", str(summary)]) == 1
    out = capsys.readouterr().out
    assert "fast: 12 ms" in out and "bench: missed slow.py" in out
    text = summary.read_text()
    assert text.startswith("earlier step\n## Benchmarks: missed: slow.py")  # appended
    assert "| `slow.py` | **MISSED** (exit 1) |" in text
    assert "| `fast.py` | met |" in text
    # the figures as printed, in a fence the output's own backticks cannot close
    assert "````text\nslow: 9 s (target 5 s) ``` MISSED\n````" in text


def test_the_summary_goes_where_github_actions_reads_it(run_all, tmp_path, monkeypatch):
    monkeypatch.setattr(run_all, "BENCHMARKS", ("fast.py",))
    summary = tmp_path / "step-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert run_all.main([]) == 0
    assert summary.read_text().startswith("## Benchmarks: all targets met")


def test_without_a_summary_file_nothing_is_written(run_all, tmp_path):
    before = sorted(p.name for p in tmp_path.iterdir())
    assert run_all.main([]) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_summary_that_cannot_be_written_is_refused_before_any_benchmark(
    run_all, tmp_path, capsys
):
    assert run_all.main(["--summary", str(tmp_path)]) == 2  # a folder
    captured = capsys.readouterr()
    assert captured.err.startswith(f"bench: --summary {tmp_path}: cannot write")
    assert "fast" not in captured.out  # nothing ran


def test_a_run_stopped_after_the_check_leaves_no_empty_summary(run_all, tmp_path, monkeypatch):
    def interrupted(name):
        raise KeyboardInterrupt

    monkeypatch.setattr(run_all, "run", interrupted)
    summary = tmp_path / "new-summary.md"
    with pytest.raises(KeyboardInterrupt):
        run_all.main(["--summary", str(summary)])
    assert not summary.exists()


def test_output_that_is_not_utf8_stops_no_benchmark(run_all, tmp_path, monkeypatch):
    (tmp_path / "bytes.py").write_text("import sys\nsys.stdout.buffer.write(b'caf\\xe9 3 ms\\n')\n")
    monkeypatch.setattr(run_all, "BENCHMARKS", ("bytes.py", "fast.py"))
    summary = tmp_path / "s.md"
    assert run_all.main(["--summary", str(summary)]) == 0
    assert "caf\ufffd 3 ms" in summary.read_text() and "fast: 12 ms" in summary.read_text()
