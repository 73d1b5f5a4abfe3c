"""`ops-eval history`: one row per run record under the runs folder, oldest first, as a table a
person reads (the default), CSV, JSON or a self-contained HTML page; each run compared with the
previous run of its series (eval set x model). Synthetic records (the real aggregation over
made-up outcomes) in a temporary runs folder, dispatched through the command's own parser as
`ops-eval` will."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import re
from pathlib import Path

import pytest

from ops_eval.base.stats import pass_hat_k, wilson
from ops_eval.cli import main
from ops_eval.outputs.history.formats import CSV_COLUMNS, csv_cell, render
from ops_eval.outputs.history.rows import set_matches
from ops_eval.results.records import RecordError, load_record, write_record
from ops_eval.results.synthetic import synthetic_record

OTHER = "ollama/qwen<script>alert(1)</script>"  # a model name that must come out escaped


def history(*argv: str) -> int:
    """`ops-eval history ARGV` through the CLI's own entry point, in this process."""
    return main(["history", *argv])


def as_csv(*argv: str) -> int:
    """`ops-eval history --format csv ARGV`: the columns a machine reads."""
    return history("--format", "csv", *argv)


def write(folder: Path, name: str, outcomes, **kwargs) -> None:
    write_record(synthetic_record(outcomes, run_id=name, **kwargs), folder / f"{name}.json")


@pytest.fixture
def runs(tmp_path, ops_env) -> Path:
    """Four runs, written out of order: three of the ops set with the default model (the second
    with a new seed, the third with repeats and an error), one with another model, and one of
    another eval set."""
    folder = tmp_path / "runs"
    folder.mkdir()
    write(
        folder,
        "r3",
        [("a", "happy", [True, False, True]), ("b", "edge", [True, None, True])],
        started_at="2026-01-03T00:00:00+00:00",
        seed_sha256="6" * 64,
    )
    write(
        folder,
        "r1",
        [("a", "happy", [True]), ("b", "edge", [False])],
        started_at="2026-01-01T00:00:00+00:00",
    )
    write(
        folder,
        "r2",
        [("a", "happy", [True]), ("b", "edge", [True])],
        started_at="2026-01-02T00:00:00+00:00",
        seed_sha256="6" * 64,
    )
    write(
        folder,
        "o1",
        [("a", "happy", [True]), ("b", "edge", [True])],
        started_at="2026-01-02T12:00:00+00:00",
        model=OTHER,
    )
    write(
        folder,
        "x1",
        [("a", "happy", [False])],
        started_at="2026-01-04T00:00:00+00:00",
        eval_set="evals/redteam/myops.evalset.json",
    )
    ops_env.setenv("OPS_RUNS_DIR", str(folder))
    return folder


def csv_rows(text: str) -> list[dict[str, str]]:
    reader = csv.DictReader(io.StringIO(text))
    assert tuple(reader.fieldnames or ()) == CSV_COLUMNS
    return list(reader)


def test_the_default_is_a_table_that_leads_with_the_newest_run(runs, capsys):
    """No --format: a heading on the newest run, then a row per run with its short id, start
    to the minute, the set's name, the rate with its interval in whole percent, and what
    changed in short -- never the CSV's raw floats (0.09453120573...)."""
    write(
        runs,
        "0a88960c0358d1e2f3",  # a long run id, shown by its first 12 characters
        [("a", "happy", [True]), ("b", "edge", [False]), ("c", "edge", [False])],
        started_at="2026-01-05T10:31:53.123+02:00",
        seed_sha256="6" * 64,
    )
    assert history() == 0
    out, err = capsys.readouterr()
    assert err == ""
    lines = out.splitlines()
    assert lines[0] == (
        "history: 6 runs of 2 eval sets with 2 models, newest 0a88960c0358 "
        "(ops, synthetic/model) 1/3 (33%)"
    )
    assert "run_id" not in out and not re.search(r"\d\.\d{3,}", out)  # no CSV, no raw float
    assert lines[-1].startswith("pass rate over valid trials, 95% Wilson interval;")
    assert "--format csv|json|html" in lines[-1]
    header = lines[2].split()
    assert header[:3] == ["run", "started", "(UTC)"] and header[-1] == "changed"
    rows = {line.split()[0]: line for line in lines[4:-2]}
    assert list(rows) == ["r1", "r2", "o1", "r3", "x1", "0a88960c0358"]
    assert [round(100 * bound) for bound in wilson(1, 2)] == [9, 91]
    assert "1/2 50% [9–91%]" in rows["r1"] and "2026-01-01 00:00" in rows["r1"]
    assert rows["r1"].rstrip().endswith("first run") and rows["r2"].rstrip().endswith("seed")
    assert rows["r3"].rstrip().endswith("nothing")  # the previous run of its series: r2
    assert "4/5 80% [38–96%]" in rows["r3"] and "pass^3 0% (1 case)" in rows["r3"]
    assert " ops " in rows["r1"] and " myops " in rows["x1"]  # the set's name, not its path
    assert "2026-01-05 08:31" in rows["0a88960c0358"]  # UTC, to the minute
    assert OTHER in rows["o1"]  # plain text: no escaping outside HTML


def test_the_table_keeps_long_names_whole_and_counts_moved_cases(tmp_path, ops_env, capsys):
    """A model name longer than any column width stays whole; cases that moved since the
    previous run are counted, each kind; tokens are compact and seconds whole."""
    from ops_eval.results.synthetic import case_hash

    model = "openai/smollm2-135m-instruct-q8_0-with-a-very-long-name-nobody-would-cut"
    two = [("a", "happy", [True]), ("b", "edge", [True])]
    write(tmp_path, "g1", two, started_at="2026-01-01T00:00:00+00:00", model=model)
    write(
        tmp_path,
        "g2",
        [("a", "happy", [True] * 4), ("b", "edge", [True] * 4), ("c", "happy", [True] * 4)],
        started_at="2026-01-02T00:00:00+00:00",
        eval_set_sha256="f" * 64,
        versions={"b": (2, case_hash("b", edit=1))},
        model=model,
    )
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path))
    assert history() == 0
    out = capsys.readouterr().out
    assert (
        out.splitlines()[0] == "history: 2 runs of evals/ops.evalset.json, newest g2 12/12 (100%)"
    )
    assert out.count(model) == 2  # one per row, whole
    assert out.splitlines()[5].endswith(" eval_set, cases: 1 added, 1 changed")  # one line
    assert " 1.3k " in out and " 12 " in out  # 12 trials of 110 tokens; 12 seconds
    assert "pass^4 100% (3 cases)" in out


def test_csv_is_one_row_per_run_oldest_first_with_rates_intervals_and_tokens(runs, capsys):
    assert as_csv() == 0
    out, err = capsys.readouterr()
    assert err == "" and out.startswith(",".join(CSV_COLUMNS) + "\n")  # for machines, as before
    rows = csv_rows(out)
    assert [r["run_id"] for r in rows] == ["r1", "r2", "o1", "r3", "x1"]
    r1, _, o1, r3, x1 = rows
    assert (r1["passed"], r1["n"], r1["rate"], r1["errors"]) == ("1", "2", "0.5", "0")
    low, high = wilson(1, 2)
    assert (float(r1["ci_low"]), float(r1["ci_high"])) == pytest.approx((low, high))
    assert r1["trajectory_mean"] == "0.5" and r1["repeats"] == "1"
    assert r1["pass_hat_k"] == "" and r1["pass_hat_k_cases"] == ""  # no repeats, no pass^k
    assert (r1["prompt_tokens"], r1["output_tokens"], r1["total_tokens"]) == ("200", "20", "220")
    assert r1["seconds"] == "2.0" and r1["git_commit"] == ""
    assert r1["eval_set"] == "evals/ops.evalset.json" and r1["model"] == "synthetic/model"
    assert r1["file"] == "r1.json"
    # r3: 6 trials, one errored -- the rate is over the 5 valid ones, the error apart
    assert (r3["passed"], r3["n"], r3["errors"]) == ("4", "5", "1")
    assert float(r3["rate"]) == pytest.approx(0.8)
    assert (float(r3["ci_low"]), float(r3["ci_high"])) == pytest.approx(wilson(4, 5))
    assert float(r3["trajectory_mean"]) == pytest.approx(4 / 5)  # the error is no 0
    # pass^3: case a 2 of 3 -> C(2,3)/C(3,3) = 0; case b has 2 valid trials < 3: left out
    assert r3["repeats"] == "3" and r3["pass_hat_k_cases"] == "1"
    assert float(r3["pass_hat_k"]) == pass_hat_k(3, 2, 3) == 0.0
    assert r3["prompt_tokens"] == "500" and r3["total_tokens"] == "550"  # errors have no turns
    assert r3["seconds"] == "6.0"
    assert o1["model"] == OTHER and x1["eval_set"] == "evals/redteam/myops.evalset.json"


def test_changes_are_since_the_previous_run_of_the_same_series(runs, capsys):
    assert as_csv() == 0
    rows = {r["run_id"]: r for r in csv_rows(capsys.readouterr().out)}
    assert rows["r1"]["changed"] == "first run" and rows["r1"]["previous_run"] == ""
    assert rows["r2"]["changed"] == "seed" and rows["r2"]["previous_run"] == "r1"
    # o1 ran between r2 and r3, with another model: another series, not r3's baseline
    assert rows["o1"]["changed"] == "first run"
    assert rows["r3"]["previous_run"] == "r2" and rows["r3"]["changed"] == ""
    assert rows["x1"]["changed"] == "first run"


def test_several_changes_are_joined_with_semicolons(tmp_path, ops_env, capsys):
    write(tmp_path, "a", [("a", "happy", [True])], started_at="2026-01-01T00:00:00+00:00")
    write(
        tmp_path,
        "b",
        [("a", "happy", [True]), ("b", "edge", [True])],
        started_at="2026-01-02T00:00:00+00:00",
        seed_sha256="6" * 64,
        tool_schema_sha256="8" * 64,
    )
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path))
    assert as_csv() == 0
    rows = csv_rows(capsys.readouterr().out)
    assert rows[1]["changed"] == "cases;seed;tool_schema"  # in the order of gate.changes.KINDS


def test_the_sets_growth_is_shown_case_by_case_since_the_previous_run(tmp_path, ops_env, capsys):
    from ops_eval.results.synthetic import case_hash

    two = [("a", "happy", [True]), ("b", "edge", [True])]
    write(tmp_path, "g1", two, started_at="2026-01-01T00:00:00+00:00")
    write(
        tmp_path,
        "g2",
        [*two, ("c", "happy", [True])],
        started_at="2026-01-02T00:00:00+00:00",
        eval_set_sha256="f" * 64,
        versions={"b": (2, case_hash("b", edit=1))},
    )
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path))
    assert as_csv() == 0
    rows = {r["run_id"]: r for r in csv_rows(capsys.readouterr().out)}
    assert rows["g1"]["cases_changed"] == ""
    assert rows["g2"]["changed"] == "eval_set;cases"
    assert rows["g2"]["cases_changed"] == "added: c v1; changed: b v1 -> v2"
    assert history("--format", "json") == 0
    g1, g2 = json.loads(capsys.readouterr().out)
    assert g1["cases_changed"] is None  # the first run of its series
    moved = g2["cases_changed"]
    assert (moved["shared"], moved["removed"]) == (1, [])
    assert moved["added"] == [{"case": "c", "version": 1, "sha256": case_hash("c")}]
    assert moved["changed"][0]["baseline"]["version"] == 1
    assert moved["changed"][0]["candidate"] == {"version": 2, "sha256": case_hash("b", edit=1)}
    assert history("--format", "html") == 0
    page = capsys.readouterr().out
    assert "added: c v1" in page and "changed: b v1 -&gt; v2" in page


def test_json_nests_the_rate_the_tokens_and_each_change_with_both_values(runs, capsys):
    assert history("--format", "json") == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["run_id"] for d in data] == ["r1", "r2", "o1", "r3", "x1"]
    r1, r2, _, r3, _ = data
    assert r1["pass_rate"]["k"] == 1 and r1["pass_rate"]["n"] == 2
    assert r1["pass_rate"]["rate"] == 0.5
    assert (r1["pass_rate"]["low"], r1["pass_rate"]["high"]) == pytest.approx(wilson(1, 2))
    assert r1["tokens"] == {"prompt": 200, "output": 20, "total": 220}
    assert r1["pass_hat_k"] is None and r1["pass_hat_k_cases"] is None and r1["repeats"] == 1
    assert r1["git_commit"] is None and r1["seconds"] == 2.0
    assert r1["changed"] is None and r1["previous_run"] is None  # first of its series
    assert r2["previous_run"] == "r1"
    assert r2["changed"] == [{"name": "seed", "baseline": "5" * 64, "candidate": "6" * 64}]
    assert r3["changed"] == [] and r3["errors"] == 1
    assert r3["pass_hat_k"] == 0.0 and r3["pass_hat_k_cases"] == 1
    assert r3["trajectory_mean"] == pytest.approx(0.8)


def test_a_run_without_a_trajectory_value_has_no_mean(tmp_path, ops_env, capsys):
    write(tmp_path, "e", [("a", "happy", [None, None])])
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path))
    assert history("--format", "json") == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["trajectory_mean"] is None and row["errors"] == 2
    assert row["pass_rate"] == {"k": 0, "n": 0, "rate": None, "low": 0.0, "high": 1.0}


@pytest.mark.parametrize(
    ("wanted", "kept"),
    [
        ("ops", ["r1", "r2", "o1", "r3"]),
        ("evals/ops.evalset.json", ["r1", "r2", "o1", "r3"]),
        ("ops.evalset.json", ["r1", "r2", "o1", "r3"]),
        ("myops", ["x1"]),
        ("redteam/myops.evalset.json", ["x1"]),
    ],
)
def test_set_filter_takes_a_path_suffix_or_a_name(runs, capsys, wanted, kept):
    assert as_csv("--set", wanted) == 0
    assert [r["run_id"] for r in csv_rows(capsys.readouterr().out)] == kept


def test_set_matching_is_by_whole_path_components():
    assert set_matches("evals/ops.evalset.json", "./evals/ops.evalset.json")
    assert not set_matches("evals/myops.evalset.json", "ops.evalset.json")
    assert not set_matches("evals/myops.evalset.json", "ops")
    assert not set_matches("evals/ops.evalset.json", "evals")


def test_model_filter_is_exact_and_keeps_whole_series(runs, capsys):
    assert as_csv("--model", OTHER) == 0
    assert [r["run_id"] for r in csv_rows(capsys.readouterr().out)] == ["o1"]
    assert as_csv("--model", "synthetic/model", "--set", "ops") == 0
    rows = csv_rows(capsys.readouterr().out)
    assert [r["run_id"] for r in rows] == ["r1", "r2", "r3"]
    assert [r["changed"] for r in rows] == ["first run", "seed", ""]


def test_html_is_one_page_with_a_band_per_series_and_escaped_names(runs, tmp_path, capsys):
    out = tmp_path / "history.html"
    assert history("--output", str(out)) == 0  # the format follows the suffix
    _, err = capsys.readouterr()
    assert err == f"history: 5 run(s) -> {out}\n"
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>")
    assert len(re.findall(r"<svg ", page)) == 3  # ops x default model, ops x OTHER, myops
    bands = re.findall(r'<polygon class="band" points="([^"]+)"', page)
    assert len(bands) == 3
    # the first series has three runs: up through 3 upper bounds, back through 3 lower ones
    corners = [tuple(map(float, p.split(","))) for p in bands[0].split()]
    assert len(corners) == 6
    xs = [x for x, _ in corners]
    assert xs[:3] == sorted(xs[:3]) and xs[3:] == sorted(xs[3:], reverse=True)
    upper, lower = corners[:3], corners[:2:-1]
    assert all(hi[1] <= lo[1] for hi, lo in zip(upper, lower, strict=True))  # SVG y grows down
    assert len(re.findall(r"<circle ", page)) == 5  # a point per run
    for label in ("0%", "25%", "50%", "75%", "100%"):
        assert f">{label}</text>" in page
    assert "<script" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert not re.search(r"(src|href)=['\"]https?://", page)  # self-contained
    assert "first run" in page and ">seed</span>" in page


def test_html_to_stdout_when_asked(runs, capsys):
    assert history("--format", "html", "--model", OTHER) == 0
    page = capsys.readouterr().out
    assert page.startswith("<!doctype html>") and page.count('<polygon class="band"') == 1


def test_files_that_are_not_run_records_are_counted_on_stderr(runs, capsys):
    (runs / "junk.json").write_text("{}", encoding="utf-8")
    (runs / "notes.json").write_text("not json", encoding="utf-8")
    (runs / "r1.md").write_text("# a report, not *.json", encoding="utf-8")
    assert history("--format", "json") == 0
    out, err = capsys.readouterr()
    assert len(json.loads(out)) == 5
    assert err == (
        "passed over 2 file(s) that are not run records: "
        "first: junk.json: not a run record (no schema_version)\n"
    )


def test_a_filter_matching_no_record_is_bad_input(runs, capsys):
    assert history("--set", "nosuch") == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"error: no run record in {runs} matches --set nosuch ")
    assert "evals/ops.evalset.json" in err and "synthetic/model" in err  # what there is
    assert history("--model", "synthetic") == 2  # exact, not a prefix
    assert "matches --model synthetic " in capsys.readouterr().err
    assert history("--set", " ") == 2
    assert "--set: empty" in capsys.readouterr().err


@pytest.mark.parametrize("make", [False, True])
def test_no_run_record_at_all_is_bad_input(tmp_path, ops_env, capsys, make):
    folder = tmp_path / "runs"
    if make:
        folder.mkdir()
        (folder / "junk.json").write_text("[]", encoding="utf-8")
    ops_env.setenv("OPS_RUNS_DIR", str(folder))
    assert history() == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.endswith(f"error: no run record in {folder}; run `mise run eval` first\n")
    assert ("passed over 1 file(s)" in err) is make


def test_an_output_that_is_a_folder_or_unwritable_is_refused(runs, tmp_path, capsys):
    assert history("--output", str(tmp_path)) == 2
    assert "is a folder" in capsys.readouterr().err
    missing = tmp_path / "no" / "such" / "history.csv"
    assert history("--output", str(missing)) == 2
    err = capsys.readouterr().err
    assert str(missing) in err and "cannot write" in err and not missing.exists()


def test_the_table_to_a_file_by_default_and_csv_or_json_by_suffix(runs, tmp_path, capsys):
    plain, as_json = tmp_path / "history.txt", tmp_path / "history.json"
    assert history("--output", str(plain)) == 0
    assert plain.read_text(encoding="utf-8").startswith("history: 5 runs of 2 eval sets ")
    assert history("--output", str(as_json)) == 0
    assert len(json.loads(as_json.read_text(encoding="utf-8"))) == 5
    as_csv_file = tmp_path / "history.csv"
    assert history("--output", str(as_csv_file)) == 0
    assert as_csv_file.read_text(encoding="utf-8").startswith("run_id,started_at,")
    assert capsys.readouterr().out == ""


def test_csv_and_json_do_not_import_jinja2():
    """The html format is the only one that needs jinja2 (the CLI starts fast without it); the
    table, the default, needs only tabulate."""
    import subprocess
    import sys

    code = (
        "import sys, tempfile, os, pathlib\n"
        "from ops_eval.results.records import write_record\n"
        "from ops_eval.results.synthetic import synthetic_record\n"
        "d = tempfile.mkdtemp()\n"
        "write_record(synthetic_record([('a', 'happy', [True])]), pathlib.Path(d) / 'r.json')\n"
        "os.environ['OPS_RUNS_DIR'] = d\n"
        "from ops_eval.outputs.history.export import export_history\n"
        "assert export_history(fmt='json')[1] == 1 and export_history(fmt='csv')[1] == 1\n"
        "assert export_history()[0].startswith('history: 1 run of ')\n"
        "assert 'jinja2' not in sys.modules, 'jinja2 imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_csv_text_cells_that_a_spreadsheet_would_run_are_neutralised(tmp_path, ops_env, capsys):
    """OWASP's CSV injection advice: a text cell starting with = + - @ tab or CR gets a leading
    single quote, so a spreadsheet shows it instead of evaluating it."""
    model, eval_set = '=HYPERLINK("http://x")', "@SUM(1+1)/ops.evalset.json"
    record = synthetic_record([("a", "happy", [True])], model=model, eval_set=eval_set)
    write_record(record, tmp_path / "+cmd|calc!A1.json")
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path))
    assert as_csv() == 0
    (row,) = csv_rows(capsys.readouterr().out)
    assert row["model"] == "'" + model
    assert row["eval_set"] == "'" + eval_set
    assert row["file"] == "'+cmd|calc!A1.json"
    assert row["run_id"] == "synthetic"
    assert row["passed"] == "1" and row["rate"] == "1.0"  # numbers as they were


@pytest.mark.parametrize("text", ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"])
def test_every_dangerous_first_character_is_quoted(text):
    assert csv_cell(text) == "'" + text


@pytest.mark.parametrize("value", [-1, -2.5, 0, 3.0, "plain", "a=b", "", " =x"])
def test_numbers_and_harmless_text_are_left_alone(value):
    assert csv_cell(value) == value


def test_a_record_with_nan_is_refused_on_load_and_passed_over(tmp_path, ops_env, capsys):
    """NaN cannot reach the history: the record that carries one is no run record."""
    record = synthetic_record([("a", "happy", [True])], run_id="n1")
    data = record.model_dump(mode="json")
    data["trials"][0]["scores"]["trajectory"]["value"] = float("nan")
    path = tmp_path / "n1.json"
    path.write_text(json.dumps(data), encoding="utf-8")  # json writes NaN
    with pytest.raises(RecordError) as caught:
        load_record(path)
    assert "\n" not in str(caught.value) and "finite" in str(caught.value)
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path))
    assert history("--format", "json") == 2
    out, err = capsys.readouterr()
    assert out == "" and "passed over 1 file(s)" in err and "n1.json" in err


def test_json_never_writes_nan(runs):
    """Should a NaN reach a row anyway, the JSON format refuses it instead of writing `NaN`,
    which is not JSON."""
    from ops_eval.outputs.history.rows import history_rows
    from ops_eval.results.run_index import scan

    records, _ = scan(runs)
    row = dataclasses.replace(history_rows(records)[0], trajectory_mean=float("nan"))
    with pytest.raises(ValueError, match="JSON"):
        render([row], "json", runs)


def test_a_filter_never_changes_which_run_is_previous(tmp_path, ops_env, capsys):
    """A series is keyed by the eval set's file name and the model, so runs started from
    different folders are one series; `--set` by path shows part of it, but each run is still
    compared with the previous run of its whole series."""
    write(tmp_path, "p1", [("a", "happy", [True])], started_at="2026-01-01T00:00:00+00:00")
    write(
        tmp_path,
        "p2",
        [("a", "happy", [True])],
        started_at="2026-01-02T00:00:00+00:00",
        eval_set="ops.evalset.json",  # the same set, run from inside evals/
        seed_sha256="6" * 64,
    )
    write(
        tmp_path,
        "p3",
        [("a", "happy", [True])],
        started_at="2026-01-03T00:00:00+00:00",
        seed_sha256="6" * 64,
    )
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path))
    assert as_csv() == 0
    rows = {r["run_id"]: r for r in csv_rows(capsys.readouterr().out)}
    assert rows["p3"]["previous_run"] == "p2" and rows["p3"]["changed"] == ""
    assert as_csv("--set", "evals/ops.evalset.json") == 0
    rows = {r["run_id"]: r for r in csv_rows(capsys.readouterr().out)}
    assert list(rows) == ["p1", "p3"]
    assert rows["p3"]["previous_run"] == "p2" and rows["p3"]["changed"] == ""
    assert history("--format", "html") == 0
    page = capsys.readouterr().out
    assert page.count("<svg ") == 1  # one series, one trend, whatever folder each ran from


@pytest.mark.parametrize("option", ["--model", "--set"])
@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_filter_is_refused(runs, capsys, option, value):
    assert history(option, value) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"error: {option}: empty")


def test_a_notes_column_appears_only_for_a_run_with_something_to_note(runs):
    """An interrupted run, or one that kept minimal data, says so in a `notes` column; with
    nothing to note there is no such column."""
    from ops_eval.outputs.history.rows import history_rows
    from ops_eval.results.run_index import scan

    records, _ = scan(runs)
    rows = history_rows(records)
    assert "notes" not in render(rows, "table", runs).splitlines()[2]
    stopped = "interrupted after 2 of 25 trials (Ctrl-C)"
    rows[1] = dataclasses.replace(rows[1], interrupted=stopped, data="minimal")
    text = render(rows, "table", runs)
    assert text.splitlines()[2].split()[-1] == "notes"
    r2 = next(line for line in text.splitlines() if line.startswith("r2 "))
    assert "interrupted after 2 of 25 trials" in r2 and "minimal data" in text


@pytest.mark.parametrize("width", [1, 8, 20, 36])
def test_a_wrapped_cell_breaks_between_parts_and_never_inside_a_name(width):
    from ops_eval.outputs.history.table import packed

    parts = ["eval_set", "cases: 1 added, 24 removed", "openai/smollm2-135m-instruct-q8_0", "seed"]
    lines = packed(parts, width).splitlines()
    words = [w.rstrip(",") for line in lines for w in line.split()]
    assert words == " ".join(parts).replace(",", "").split()  # every word whole, in order
    assert "openai/smollm2-135m-instruct-q8_0" in words
    assert all(len(line.rstrip(",")) <= width for line in lines if " " in line)  # or one word
