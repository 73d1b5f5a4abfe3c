"""Sharded runs (`ops-eval run --shard I/N`) and `ops-eval merge`: the shards of a run, merged,
say what one unsharded run of the same trials says; every way shards can fail to be one run's is
refused, naming the shard."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ops_eval import OpsEvalError, RunOptions, execute, load_record, read_evalset
from ops_eval.base.inputs import parse_shard
from ops_eval.cli import main
from ops_eval.models.stand_ins import Saboteur, fixed_model
from ops_eval.results.merge import merge_records, merge_runs
from ops_eval.results.record_parts import shard_slice
from ops_eval.results.records import RecordError, write_record
from support import REPO

OPS = REPO / "evals" / "ops.evalset.json"
CASES = read_evalset(OPS).cases
SKIPPED = "recommend-fix-inc-002"  # fails every trial
CRASHED = "open-incidents"  # errors every trial


def saboteur() -> Saboteur:
    model = Saboteur.from_cases(CASES)
    prompts = {c.eval_id: c.turns[0].prompt for c in CASES}
    model.skip_first_call_on = {prompts[SKIPPED]}
    model.crash_on = {prompts[CRASHED]}
    return model


def run(path: Path, **options):
    # one trial at a time: the saboteur swaps its script around a skipped call, not thread-safe
    model = saboteur()
    chooser = fixed_model(model, "saboteur", "deterministic test model")
    return execute(RunOptions(output=path, repeats=2, **options), chooser=chooser)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One unsharded run of the ops set x 2 repeats, and its 3 shards: (record, path) each."""
    folder = tmp_path_factory.mktemp("shards")
    _, whole, whole_path = run(folder / "whole.json")
    shards = []
    for i in (1, 2, 3):
        _, record, path = run(folder / f"shard{i}.json", shard=(i, 3))
        shards.append((record, path))
    return (whole, whole_path), shards


def _verdicts(record):
    return {
        "cases": [c.model_dump() for c in record.cases],
        "categories": [g.model_dump() for g in record.categories],
        "scorers": [g.model_dump() for g in record.scorers],
        "total": record.total.model_dump(),
        "pass_hat_k": record.pass_hat_k,
        "pass_hat_k_cases": record.pass_hat_k_cases,
        "gate_passed": record.gate_passed,
        "exit_code": record.exit_code,
    }


def test_three_shards_merged_say_what_one_unsharded_run_says(runs, tmp_path):
    (whole, _), shards = runs
    out = tmp_path / "merged.json"
    merged, path = merge_runs([str(p) for _, p in shards], out)
    assert path == out and load_record(out) == merged
    assert _verdicts(merged) == _verdicts(whole)
    gates = {c.case_id: c.gate for c in merged.cases}
    assert gates[SKIPPED] is False and gates[CRASHED] is None and merged.exit_code == 1
    assert merged.pass_hat_k is not None and merged.total.errors == 2
    assert [(t.case_id, t.repeat) for t in merged.trials] == [
        (t.case_id, t.repeat) for t in whole.trials
    ]
    assert merged.merged_from == [r.run_id for r, _ in shards]
    assert merged.run_id not in merged.merged_from and merged.shard is None
    assert any("merged from shards 1/3" in n for n in merged.notes)


def test_the_shards_spans_are_merged_beside_the_merged_record(runs, tmp_path):
    """`ops-eval mlflow --from-run` on the merged run shows ADK's spans of every trial."""
    from ops_eval.playing.spans import read_spans, spans_path

    _, shards = runs
    merged, path = merge_runs([str(p) for _, p in shards], tmp_path / "merged.json")
    spans = read_spans(spans_path(path), merged.run_id)  # refuses another run's file
    assert set(spans) == {(t.case_id, t.repeat) for t in merged.trials}
    assert all(spans[key] for key in spans)


def test_a_shard_without_its_spans_is_named_and_the_others_are_kept(runs, tmp_path):
    import shutil

    from ops_eval.playing.spans import read_spans, spans_path

    _, shards = runs
    copies = []
    for i, (_, p) in enumerate(shards, 1):
        copies.append(tmp_path / f"s{i}.json")
        shutil.copy(p, copies[-1])
        if i != 2:
            shutil.copy(spans_path(p), spans_path(copies[-1]))
    said = []
    merged, path = merge_runs([str(c) for c in copies], tmp_path / "merged.json", said.append)
    assert len(said) == 1 and shards[1][0].run_id in said[0] and "no spans" in said[0]
    kept = read_spans(spans_path(path), merged.run_id)
    assert set(kept) == {(t.case_id, t.repeat) for r, _ in (shards[0], shards[2]) for t in r.trials}


def test_a_shard_record_holds_its_slice_and_passes_its_own_check(runs):
    (whole, _), shards = runs
    ids = [c.eval_id for c in CASES]
    for i, (record, path) in enumerate(shards, 1):
        assert load_record(path) == record
        assert record.shard is not None and (record.shard.index, record.shard.count) == (i, 3)
        assert record.shard.trials == shard_slice(ids, 2, i, 3)
        assert {(t.case_id, t.repeat) for t in record.trials} == set(record.shard.trials)
        assert {c.case_id for c in record.cases} == {c for c, _ in record.shard.trials}
        assert record.selected_cases == ids
        assert any(f"shard {i}/3" in n for n in record.notes)
    assert sum(len(r.trials) for r, _ in shards) == len(whole.trials) == 2 * len(ids)


def test_records_without_a_shard_still_load_and_do_not_write_one(runs):
    (whole, path), _ = runs
    data = json.loads(path.read_text())
    assert "shard" not in data and "merged_from" not in data
    assert load_record(path).shard is None


def _edited(record, path: Path, **changes) -> Path:
    data = json.loads(record.model_dump_json())
    data.update(changes)
    path.write_text(json.dumps(data))
    return path


def test_a_shard_record_with_a_trial_not_its_own_is_refused(runs, tmp_path):
    _, shards = runs
    first, second = shards[0][0], shards[1][0]
    stolen = json.loads(second.trials[0].model_dump_json())
    trials = [json.loads(t.model_dump_json()) for t in first.trials] + [stolen]
    bad = _edited(first, tmp_path / "bad.json", trials=trials)
    with pytest.raises(RecordError, match="shard 1/3, which holds it never"):
        load_record(bad)
    wrong = dict(json.loads(first.model_dump_json())["shard"], index=2)
    with pytest.raises(RecordError, match="are not shard 2/3"):
        load_record(_edited(first, tmp_path / "b2.json", shard=wrong))
    short = [json.loads(t.model_dump_json()) for t in first.trials[1:]]
    with pytest.raises(RecordError, match="no trial of case"):
        load_record(_edited(first, tmp_path / "b3.json", trials=short))


def _refused(specs, match):
    with pytest.raises(OpsEvalError) as err:
        merge_runs(specs, None)
    assert err.value.code == 2 and match in str(err.value), str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    ("field", "value", "what"),
    [
        ("eval_set_sha256", "0" * 64, "eval set"),
        ("seed_sha256", "1" * 64, "seed"),
        ("instruction_sha256", {"ops_copilot": "2" * 64}, "instruction"),
        ("tool_schema_sha256", "3" * 64, "tool schema"),
        ("scorers_sha256", "4" * 64, "scorers"),
        ("criteria", {"threshold": 0.5, "match_type": "IN_ORDER"}, "criteria"),
    ],
)
def test_merge_refuses_shards_of_different_runs(runs, tmp_path, field, value, what):
    _, shards = runs
    odd = _edited(shards[1][0], tmp_path / "odd.json", **{field: value})
    _refused([str(shards[0][1]), str(odd), str(shards[2][1])], f"{odd}: run ")
    _refused([str(shards[0][1]), str(odd), str(shards[2][1])], f"in {what};")


def test_merge_refuses_shards_that_played_one_case_at_two_versions(runs, tmp_path):
    (whole, _), shards = runs
    first, second = shards[0][0], shards[1][0]
    case = first.trials[0].case_id  # repeat 1 in shard 1/3, repeat 2 in shard 2/3
    assert any(t.case_id == case for t in second.trials)
    assert {t.case_sha256 for t in whole.trials if t.case_id == case} == {
        first.trials[0].case_sha256
    }
    trials = [json.loads(t.model_dump_json()) for t in second.trials]
    for t in trials:
        if t["case_id"] == case:  # the case edited (and not locked again) between the shards
            t["case_sha256"] = "a" * 64
            t.pop("case_version", None)
    odd = _edited(second, tmp_path / "odd.json", trials=trials)
    _refused(
        [str(shards[0][1]), str(odd), str(shards[2][1])],
        f"{odd}: run {second.run_id} played case {case} at unlocked aaaaaaaaaaaa",
    )


def test_merged_trials_keep_the_version_of_their_case(runs, tmp_path):
    (whole, _), shards = runs
    merged, _ = merge_runs([str(p) for _, p in shards], tmp_path / "merged.json")
    assert merged.schema_version == 6 and merged.eval_set_cases == whole.eval_set_cases
    assert [(t.case_id, t.case_version, t.case_sha256) for t in merged.trials] == [
        (t.case_id, t.case_version, t.case_sha256) for t in whole.trials
    ]


def test_merge_refuses_another_model(runs, tmp_path):
    _, shards = runs
    model = dict(json.loads(shards[1][0].model_dump_json())["model"], name="other")
    odd = _edited(shards[1][0], tmp_path / "odd.json", model=model)
    _refused([str(shards[0][1]), str(odd), str(shards[2][1])], "in model;")


def test_shards_of_one_model_on_several_servers_merge_naming_every_server(runs, tmp_path):
    """A team runs each shard against its own server of the same model: one run, and the
    merged record says which server played which shard."""
    _, shards = runs
    edited = []
    for i, (record, _) in enumerate(shards, 1):
        model = dict(json.loads(record.model_dump_json())["model"], endpoint=f"http://gpu{i}:8000")
        edited.append(str(_edited(record, tmp_path / f"s{i}.json", model=model)))
    merged, _ = merge_runs(edited, tmp_path / "merged.json")
    assert merged.model.name == shards[0][0].model.name
    assert merged.model.endpoint == "http://gpu1:8000, http://gpu2:8000, http://gpu3:8000"
    assert any("http://gpu2:8000 (shard 2)" in note for note in merged.notes)


def _grouped(shards, tmp_path, groups):
    paths = []
    for (record, _), group in zip(shards, groups, strict=True):
        shard = dict(json.loads(record.model_dump_json())["shard"], group=group)
        paths.append(str(_edited(record, tmp_path / f"{record.run_id}.json", shard=shard)))
    return paths


def test_merge_refuses_shards_of_two_runs_alike_by_their_run_group(runs, tmp_path):
    """Two runs of the same set, model and options look alike shard by shard: only the group
    each was run under tells them apart (eval.yml gives the workflow run's id)."""
    _, shards = runs
    mixed = _grouped(shards, tmp_path, ["run-7", "run-7", "run-8"])
    _refused(mixed, f"{mixed[2]}: run ")
    _refused(mixed, "in run group;")
    _refused(_grouped(shards, tmp_path, ["run-7", "run-7", None]), "in run group;")
    merged, _ = merge_runs(_grouped(shards, tmp_path, ["run-7"] * 3), tmp_path / "m.json")
    assert not any("--run-group" in note for note in merged.notes)


def test_the_run_group_given_to_run_is_in_the_shard_record_and_merge_compares_it(runs, tmp_path):
    _, shards = runs
    grouped = []
    for i in (1, 2):
        _, record, path = run(tmp_path / f"g{i}.json", shard=(i, 3), run_group="ci-42")
        assert record.shard.group == "ci-42" and load_record(path).shard.group == "ci-42"
        grouped.append(str(path))
    _refused([*grouped, str(shards[2][1])], "in run group;")  # the third is of no group
    _, third, path = run(tmp_path / "g3.json", shard=(3, 3), run_group="ci-42")
    merged, _ = merge_runs([*grouped, str(path)], tmp_path / "m.json")
    assert "run group ci-42" in merged.notes


def test_merge_refuses_an_output_that_is_a_link_to_one_of_its_shards(runs, tmp_path):
    import os

    _, shards = runs
    linked = tmp_path / "link.json"
    os.link(shards[0][1], linked)
    before = linked.read_bytes()
    with pytest.raises(OpsEvalError, match="would overwrite shard"):
        merge_runs([str(p) for _, p in shards], linked)
    assert Path(shards[0][1]).read_bytes() == before


def test_shards_without_a_run_group_merge_saying_it_was_taken_on_trust(runs, tmp_path):
    _, shards = runs
    merged, _ = merge_runs([str(p) for _, p in shards], tmp_path / "m.json")
    assert any("carry no --run-group" in note for note in merged.notes)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--run-group", "ci-1"], "--run-group: names the shards of one run; give it with --shard"),
        (["--shard", "1/2", "--run-group", "a b"], "--run-group: 'a b' is not a group name"),
        (["--shard", "1/2", "--run-group=-x"], "--run-group: '-x' is not a group name"),
    ],
)
def test_a_bad_run_group_is_one_line_exit_2(argv, message, capsys, tmp_path):
    assert main(["run", "--model", "x/y", "--output", str(tmp_path / "r.json"), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "r.json").exists()


def test_merge_refuses_an_output_that_is_one_of_its_shards(runs, tmp_path):
    import shutil

    _, shards = runs
    copies = [tmp_path / f"s{i}.json" for i in (1, 2, 3)]
    for (_, p), c in zip(shards, copies, strict=True):
        shutil.copy(p, c)
    before = copies[0].read_bytes()
    with pytest.raises(OpsEvalError, match=f"would overwrite shard {shards[0][0].run_id}"):
        merge_runs([str(c) for c in copies], copies[0])
    assert copies[0].read_bytes() == before


def test_merge_refuses_other_repeats_or_cases_or_count(runs, tmp_path):
    _, shards = runs
    ids = [c.eval_id for c in CASES]
    folder = tmp_path
    _, _, other_path = run(folder / "other.json", shard=(2, 3), cases=ids[1:])
    _refused([str(shards[0][1]), str(other_path)], "in selected cases;")
    _, _, three_path = execute(
        RunOptions(output=folder / "r3.json", repeats=3, shard=(2, 3), cases=ids[:2]),
        chooser=fixed_model(saboteur(), "saboteur", "test"),
    )
    _, _, first2_path = execute(
        RunOptions(output=folder / "r2.json", repeats=2, shard=(1, 3), cases=ids[:2]),
        chooser=fixed_model(saboteur(), "saboteur", "test"),
    )
    _refused([str(first2_path), str(three_path)], "in repeats;")
    _, _, four_path = execute(
        RunOptions(output=folder / "c4.json", repeats=2, shard=(2, 4), cases=ids[:2]),
        chooser=fixed_model(saboteur(), "saboteur", "test"),
    )
    _refused([str(first2_path), str(four_path)], "in shard count;")


def test_merge_refuses_overlapping_shards(runs, tmp_path):
    _, shards = runs
    copy = tmp_path / "again.json"
    copy.write_text(shards[0][1].read_text())
    _refused([str(shards[0][1]), str(shards[1][1]), str(copy)], f"{copy}: shard 1/3 overlaps")


def test_merge_refuses_overlapping_trials(runs):
    """Two records that each pass their own check cannot hold one trial twice, unless they
    claim the same shard; checked on the records directly all the same."""
    _, shards = runs
    first = shards[0][0]
    second = shards[1][0].model_copy(update={"trials": [*shards[1][0].trials, first.trials[0]]})
    with pytest.raises(OpsEvalError, match=r"b: shard 2/3 overlaps a in trial\(s\) "):
        merge_records([("a", first), ("b", second)], "m")


def test_merge_refuses_missing_trials_naming_them(runs):
    _, shards = runs
    missing = ", ".join(f"{c} #{r}" for c, r in shards[1][0].shard.trials[:3])
    with pytest.raises(OpsEvalError) as err:
        merge_runs([str(shards[0][1]), str(shards[2][1])], None)
    assert err.value.code == 2 and missing in str(err.value)
    assert "shard(s) 2/3 not given" in str(err.value)


def test_merge_refuses_a_record_that_is_not_a_shard(runs):
    (whole, whole_path), shards = runs
    _refused([str(shards[0][1]), str(whole_path)], f"{whole_path}: run {whole.run_id} is not a")


def test_merge_cli_writes_under_the_runs_folder_and_names_shards_by_run_id(
    runs, tmp_path, monkeypatch, capsys
):
    _, shards = runs
    monkeypatch.setenv("OPS_RUNS_DIR", str(tmp_path))
    for record, path in shards:  # the runs folder holds the shards: named by run id
        write_record(record, tmp_path / path.name)
    code = main(["merge", *(r.run_id for r, _ in shards)])
    out = capsys.readouterr().out
    assert code == 1  # the sabotaged case fails the merged run's gate
    said = next(ln for ln in out.splitlines() if ln.startswith("run record: "))
    written = Path(said.removeprefix("run record: "))
    assert written.parent == tmp_path and "-ops-merged-" in written.name
    assert load_record(written).merged_from == [r.run_id for r, _ in shards]
    assert main(["merge", shards[0][0].run_id]) == 2
    assert "in no shard given" in capsys.readouterr().err


@pytest.mark.parametrize("raw", ["0/3", "4/3", "a/b", "1/0", "1", "1/3/2", "-1/3", ""])
def test_a_malformed_shard_is_refused(raw):
    with pytest.raises(OpsEvalError) as err:
        parse_shard("--shard", raw)
    assert err.value.code == 2 and "--shard" in str(err.value)


def test_malformed_shard_on_the_command_line_is_one_line_exit_2(capsys):
    assert main(["run", "--shard", "4/3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--shard" in err


def test_a_shard_with_no_trial_is_refused_before_anything_runs(tmp_path):
    with pytest.raises(OpsEvalError) as err:
        run(tmp_path / "r.json", cases=["list-skills"], shard=(3, 3))
    assert err.value.code == 2 and "holds no trial (the run has 2 trial(s))" in str(err.value)
    assert not (tmp_path / "r.json").exists()
    with pytest.raises(OpsEvalError, match="needs 1 <= I <= N"):
        run(tmp_path / "r.json", shard=(0, 3))


def test_the_slice_is_every_nth_trial_in_plan_order():
    assert shard_slice(["a", "b"], 2, 1, 3) == [("a", 1), ("b", 2)]
    assert shard_slice(["a", "b"], 2, 2, 3) == [("a", 2)]
    assert shard_slice(["a", "b"], 2, 3, 3) == [("b", 1)]
    assert shard_slice(["a"], 1, 1, 1) == [("a", 1)]


def test_the_gate_refuses_a_shard_as_candidate_and_never_takes_one_as_baseline(
    runs, tmp_path, ops_env, capsys
):
    """A shard is a slice of a run's trials: gated alone, or taken as a baseline, it would
    compare pass rates over different trials."""
    import shutil

    from ops_eval.cli import main

    (whole, whole_path), shards = runs
    folder = tmp_path / "runs"
    folder.mkdir()
    ops_env.setenv("OPS_RUNS_DIR", str(folder))
    shard, shard_path = shards[0]
    shutil.copy(shard_path, folder / shard_path.name)
    assert main(["gate", shard.run_id]) == 2
    assert "is shard 1/3 of a run" in capsys.readouterr().err
    shutil.copy(whole_path, folder / whole_path.name)
    assert main(["gate", whole.run_id, "--baseline", shard.run_id]) == 2
    said = capsys.readouterr()
    assert "one shard of a run" in said.out + said.err


def test_a_shard_is_computed_without_listing_the_whole_plan():
    """Each shard is every count-th trial of the plan, from its position: the same trials as
    filtering the whole plan, for every shape of run."""
    from ops_eval.results.record_parts import planned

    for cases in (["a"], ["a", "b", "c"], [f"c{i}" for i in range(7)]):
        for repeats in (1, 2, 5):
            for count in (1, 2, 3, 8):
                for index in range(1, count + 1):
                    whole = planned(cases, repeats)
                    expected = [k for p, k in enumerate(whole) if p % count == index - 1]
                    assert shard_slice(cases, repeats, index, count) == expected
