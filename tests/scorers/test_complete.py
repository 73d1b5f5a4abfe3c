"""The `complete` scorer: one non-empty terminal response per expected turn."""

from __future__ import annotations

from ops_eval.scorers.complete import complete


def test_a_response_per_turn_passes(trial, plan):
    assert complete(trial("memory-note-then-recall"), plan).passed


def test_an_empty_response_fails(trial, plan):
    score = complete(trial("memory-note-then-recall", responses=["Saved.", "  "]), plan)
    assert score.outcome == "fail" and score.detail == "no response in turn(s) 2"


def test_a_missing_turn_fails(trial, plan):
    view = trial("memory-note-then-recall")
    view.turns = view.turns[:1]
    score = complete(view, plan)
    assert score.outcome == "fail" and score.detail == "1 responses for 2 turns"
