"""A YAML mapping that names one key twice is refused wherever the project reads YAML: PyYAML
would let the later value win silently, so appending `suite_threshold: 0.01` to gate.yaml
would loosen the gate and still validate."""

from __future__ import annotations

from pathlib import Path

import pytest

from opskit.textfiles import YamlFileError, load_yaml


def _load(tmp_path: Path, text: str) -> object:
    path = tmp_path / "f.yaml"
    path.write_text(text, encoding="utf-8")
    return load_yaml(path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: 1\nb: 2\na: 3\n", "line 3, column 1: duplicate key 'a'"),
        ("top:\n  x: 1\n  y: 2\n  x: 1\n", "line 4, column 3: duplicate key 'x'"),
        ("- {k: 1, k: 2}\n", "line 1, column 10: duplicate key 'k'"),
        ("1: a\n0x1: b\n", "line 2, column 1: duplicate key 1"),  # the same key, spelt twice
        ("yes: a\ntrue: b\n", "line 2, column 1: duplicate key True"),
        ("'a': 1\n\"a\": 2\n", "line 2, column 1: duplicate key 'a'"),
        ("? a\n? a\n", "line 2, column 3: duplicate key 'a'"),  # a set, too
        ("l:\n  - m: 1\n    n: 2\n    m: 3\n", "line 4, column 5: duplicate key 'm'"),
        # beside a merge, the mapping's own keys still count once each
        ("b: &b {x: 1}\no: {<<: *b, y: 2, y: 3}\n", "line 2, column 19: duplicate key 'y'"),
        # a mapping merged (and so flattened) inside another before it is built on its own
        (
            "b: &b {x: 1}\nt: {<<: &m {<<: *b, z: 1, z: 2}}\nu: *m\n",
            "line 2, column 27: duplicate key 'z'",
        ),
        # a mapping only ever merged, never built on its own
        ("t: {<<: {z: 1, z: 2}}\n", "line 1, column 16: duplicate key 'z'"),
        ("t: {<<: [{a: 1}, {z: 1, z: 2}]}\n", "line 1, column 25: duplicate key 'z'"),
    ],
)
def test_a_duplicate_key_is_refused_with_where(tmp_path, text, message):
    with pytest.raises(YamlFileError) as caught:
        _load(tmp_path, text)
    assert str(caught.value) == message
    assert caught.value.kind == "yaml"


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\nb: 2\n",
        "a: {x: 1}\nb: {x: 2}\n",  # the same key in two mappings
        "- {k: 1}\n- {k: 2}\n",
        "base: &b {x: 1, y: 2}\nover:\n  <<: *b\n  x: 3\n",  # a merge may be overridden
        "b: &b {x: 1}\nt: {<<: &m {<<: *b, x: 2}, y: 1}\nu: *m\n",  # inside a merge too
        "a: &m {k: 1}\nb: *m\n",  # an alias is no duplicate
        "",
    ],
)
def test_distinct_keys_and_merge_overrides_load_as_pyyaml_reads_them(tmp_path, text):
    import yaml

    assert _load(tmp_path, text) == yaml.safe_load(text)


def test_a_merge_override_keeps_the_mappings_own_value(tmp_path):
    got = _load(tmp_path, "base: &b {x: 1, y: 2}\nover:\n  <<: *b\n  x: 3\n")
    assert got == {"base": {"x": 1, "y": 2}, "over": {"x": 3, "y": 2}}


def test_a_syntax_error_is_still_placed(tmp_path):
    with pytest.raises(YamlFileError, match=r"^line 3, column 1 not valid YAML$"):
        _load(tmp_path, "a: 1\nb: [\n")


def test_the_pure_python_loader_refuses_duplicates_too(tmp_path):
    """The fallback that places syntax errors is the same unique-key loader, pure Python."""
    import yaml

    from opskit import textfiles

    loaders = [textfiles.UniqueKeySafeLoader, textfiles.UniqueKeyFastLoader]
    assert issubclass(loaders[0], yaml.SafeLoader)
    assert issubclass(loaders[1], getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    for loader in loaders:
        with pytest.raises(YamlFileError, match="line 2, column 1: duplicate key 'a'"):
            yaml.load("a: 1\na: 2\n", Loader=loader)  # noqa: S506 (a safe loader)


def test_validate_refuses_a_gate_policy_with_a_duplicate_key(evals, capsys):
    from ops_eval.cli import main

    gate = evals / "gate.yaml"
    lines = gate.read_text(encoding="utf-8").splitlines()
    gate.write_text("\n".join([*lines, "suite_threshold: 0.01", ""]), encoding="utf-8")
    assert main(["validate", str(evals)]) == 2
    out, err = capsys.readouterr()
    (said,) = [line for line in out.splitlines() if line.strip()]  # one problem, one line
    where = f"line {len(lines) + 1}, column 1"
    assert said == f"evals/gate.yaml: {where}: duplicate key 'suite_threshold'"
    assert "1 malformed input" in err


def test_the_shipped_evals_still_validate(evals, capsys):
    from ops_eval.cli import main

    assert main(["validate", str(evals)]) == 0, capsys.readouterr()


def test_a_red_team_corpus_with_a_duplicate_key_is_refused(tmp_path):
    """The red-team corpora have their own reader (no aliases); it refuses duplicates too."""
    from ops_eval.redteam import CorpusError
    from ops_eval.redteam.reading import read_yaml

    corpus = tmp_path / "attacks.yaml"
    corpus.write_text("attacks:\n  - id: a\n    id: b\n")
    with pytest.raises(CorpusError, match="line 3, column 5: duplicate key 'id'"):
        read_yaml(corpus)
