"""A forger who can write the gate ledger and recomputes its chain: what each defence stops.

Without a key the chain has no secret, so a rewritten verdict or pin counts -- the gate says so
in its output. An override's own rules are re-checked on every read, key or not, so one appended
by hand with a reason or name `gate override` refuses is refused. With OPS_LEDGER_KEY set, every
line carries an HMAC of its hash, and a line the forger wrote or rewrote is refused (exit 2).
"""

from __future__ import annotations

import pytest
from gate_runs import ALL_PASS, DROPPED, write_run

from ops_eval.cli import main
from support import forge_ledger

KEY = "a-secret-of-ci-not-of-the-runner"
REASON = "known flake in the embedded model's tokenizer; tracked in OPS-42"


@pytest.fixture
def runs(tmp_path, ops_env):
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path))
    return tmp_path


def _regressed_baseline(runs, capsys):
    """base0001 passes; cand0001 regresses against it (recorded as regressed); cand0002 is
    as bad as cand0001."""
    write_run(runs, "base0001", ALL_PASS, 1, judged=True)
    write_run(runs, "cand0001", DROPPED, 2)
    assert main(["gate", "cand0001"]) == 1
    write_run(runs, "cand0002", DROPPED, 3)
    capsys.readouterr()


def _as_passed(bodies):
    """cand0001's regressed verdict turned into a pass: it becomes an automatic baseline."""
    for body in bodies:
        if body.get("candidate") == "cand0001":
            body.update(verdict="pass", passed=True, failures=[])
    return bodies


def test_unsigned_a_rewritten_verdict_counts_and_the_gate_says_it_can(runs, capsys):
    """The documented limit of an unsigned ledger, shown: the forged pass makes cand0001 the
    baseline, and cand0002, regressed as much, passes against it."""
    _regressed_baseline(runs, capsys)
    forge_ledger(runs / "gate-ledger.jsonl", _as_passed)
    assert main(["gate", "cand0002"]) == 0
    out = capsys.readouterr().out
    assert "baseline run cand0001" in out or "cand0001" in out
    assert "is not signed (OPS_LEDGER_KEY unset)" in out
    assert "can rewrite a line and recompute the chain" in out


@pytest.mark.parametrize("forger_key", [None, b"another-key-of-16-chars"], ids=["none", "other"])
def test_signed_a_rewritten_verdict_is_refused(runs, capsys, ops_env, forger_key):
    ops_env.setenv("OPS_LEDGER_KEY", KEY)
    _regressed_baseline(runs, capsys)
    forge_ledger(runs / "gate-ledger.jsonl", _as_passed, key=forger_key)
    assert main(["gate", "cand0002"]) == 2
    err = capsys.readouterr().err
    assert "gate-ledger.jsonl: line 1: " in err  # the first line the forger re-signed or left bare
    assert ("not signed" in err) if forger_key is None else ("signature is not" in err)


def test_signed_lines_read_back_and_the_gate_says_so(runs, capsys, ops_env):
    ops_env.setenv("OPS_LEDGER_KEY", KEY)
    _regressed_baseline(runs, capsys)
    assert main(["gate", "cand0002", "--baseline", "base0001"]) == 1
    out = capsys.readouterr().out
    assert "is signed (OPS_LEDGER_KEY)" in out
    assert all('"sig":' in line for line in (runs / "gate-ledger.jsonl").read_text().splitlines())


def test_an_unsigned_ledger_is_refused_once_a_key_is_set(runs, capsys, ops_env):
    _regressed_baseline(runs, capsys)
    ops_env.setenv("OPS_LEDGER_KEY", KEY)
    assert main(["gate", "cand0002"]) == 2
    assert "line 1: not signed, and OPS_LEDGER_KEY is set" in capsys.readouterr().err


def test_a_key_too_short_to_be_a_secret_is_bad_configuration(runs, capsys, ops_env):
    ops_env.setenv("OPS_LEDGER_KEY", "short")
    write_run(runs, "cand0001", ALL_PASS, 1)
    assert main(["gate", "cand0001"]) == 2
    assert "OPS_LEDGER_KEY: 5 characters; a signing key has at least 16" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("by", "reason", "says"),
    [
        ("\u200b", REASON, "not in normal form"),
        ("", REASON, "at least 1 character"),
        ("ana", "x", "needs at least 10 visible characters"),
        ("ana", "!!!!!!!!!!!!", "needs at least 3 letters or digits"),
        ("a\u200bna", REASON, "not in normal form"),
        ("ana", "r" * 501, "at most 500"),
    ],
    ids=["zero-width-name", "empty-name", "one-letter", "no-words", "hidden-char", "too-long"],
)
def test_an_override_appended_by_hand_is_held_to_the_clis_rules(runs, capsys, by, reason, says):
    """`gate override` refuses these; an override line forged with them (chain recomputed) is
    refused when the gate reads the ledger, not shown as OVERRIDDEN."""
    _regressed_baseline(runs, capsys)

    def overridden(bodies):
        verdict = next(b for b in bodies if b.get("candidate") == "cand0001")
        decided = {k: verdict[k] for k in verdict if k not in ("kind", "passed", "at")}
        return [*bodies, {**decided, "kind": "override", "by": by, "reason": reason}]

    forge_ledger(runs / "gate-ledger.jsonl", overridden)
    assert main(["gate", "cand0001"]) == 2
    captured = capsys.readouterr()
    assert "OVERRIDDEN" not in captured.out
    assert "gate-ledger.jsonl: line 3: not a ledger entry" in captured.err and says in captured.err


def test_an_override_the_cli_would_take_still_reads_back(runs, capsys):
    """The re-check refuses only what the CLI refuses: a forged override that follows the
    rules is, unsigned, indistinguishable from a real one (the documented limit)."""
    _regressed_baseline(runs, capsys)

    def overridden(bodies):
        verdict = next(b for b in bodies if b.get("candidate") == "cand0001")
        decided = {k: verdict[k] for k in verdict if k not in ("kind", "passed", "at")}
        return [*bodies, {**decided, "kind": "override", "by": "ana", "reason": REASON}]

    forge_ledger(runs / "gate-ledger.jsonl", overridden)
    assert main(["gate", "cand0001"]) == 0
    assert "OVERRIDDEN by ana" in capsys.readouterr().out


def _override_of(bodies, by="mallory"):
    verdict = next(b for b in reversed(bodies) if b.get("candidate") == "cand0001")
    decided = {k: verdict[k] for k in verdict if k not in ("kind", "passed", "at")}
    return {**decided, "kind": "override", "by": by, "reason": REASON}


@pytest.mark.parametrize("key", [None, KEY], ids=["unsigned", "signed-by-a-key-holder"])
def test_a_second_override_appended_by_hand_is_refused(runs, capsys, ops_env, key):
    """`gate override` records one override per failed verdict; a second one appended by hand
    (even signed, by someone holding the key) is refused when the ledger is read."""
    if key:
        ops_env.setenv("OPS_LEDGER_KEY", key)
    _regressed_baseline(runs, capsys)
    assert main(["gate", "override", "cand0001", "--reason", REASON, "--by", "ana"]) == 0
    forge_ledger(
        runs / "gate-ledger.jsonl",
        lambda bodies: [*bodies, _override_of(bodies)],
        key=key.encode() if key else None,
    )
    assert main(["gate", "cand0001"]) == 2
    captured = capsys.readouterr()
    assert "mallory" not in captured.out
    assert "line 4: an override that `gate override` would refuse: that verdict was already" in (
        captured.err
    )


def test_an_override_before_any_failed_verdict_is_refused(runs, capsys):
    """An override written before its run was ever gated would turn the first failed verdict
    into OVERRIDDEN (exit 0)."""
    write_run(runs, "base0001", ALL_PASS, 1, judged=True)
    write_run(runs, "cand0001", DROPPED, 2)
    assert main(["gate", "cand0001"]) == 1
    capsys.readouterr()
    forge_ledger(  # the override goes before the verdict it copies
        runs / "gate-ledger.jsonl", lambda bodies: [bodies[0], _override_of(bodies), *bodies[1:]]
    )
    assert main(["gate", "cand0001"]) == 2
    err = capsys.readouterr().err
    assert (
        "line 2: an override that `gate override` would refuse: no gate verdict of its run" in err
    )
