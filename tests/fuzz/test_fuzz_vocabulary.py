"""Fuzz target: labels built from the harness's vocabulary (`results.vocabulary`). For any text
a detail may hold -- the harness's words, seed ids, numbers, `#` tokens and planted words glued
by punctuation, escapes and quotes, or arbitrary Unicode -- and any values the trial said, the
label a minimal run keeps passes `audit-run`'s check (no run of 8 or more characters outside the
vocabulary), is one line within its length, and holds none of the planted words. Never raises."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from ops_eval.results.minimal import DataKey, Minimal

MINIMAL = Minimal(DataKey("fuzz-key-0123456789abcdef"))
PLANTED = ["Marguerite", "Okonkwo", "ZEBRAQUASAR", "Zoë", "Ярослав", "4155550199"]
WORDS = st.sampled_from(
    ["the", "answer", "does", "not", "contain", "expected", "got", "turn", "call", "inventory",
     "INC-002", "get_service_status", "name", "status", "SEV1", "3", "0.50", "95%", "#1a2b3c4d",
     *PLANTED, "Marguerite Okonkwo", "415-555-0199"]
)  # fmt: skip
GLUE = st.sampled_from(["", " ", ", ", "'", '"', "\\t", "\\n", "\t", "\n", "=", "(", ")", "_", "…"])
BUILT = st.lists(st.one_of(WORDS, GLUE, st.text(max_size=6)), max_size=60).map("".join)


@example(text="the " * 37 + "a interrupted run", said=[])  # a clamp would cut a word
@given(text=st.one_of(BUILT, st.text(max_size=300)), said=st.lists(WORDS, max_size=4))
def test_a_label_about_a_trial_passes_the_audit_and_holds_no_planted_word(text, said):
    kept = MINIMAL.about(text, said)
    assert len(kept) <= MINIMAL.label_chars and "\n" not in kept
    assert MINIMAL.vocabulary.foreign(kept) == []
    for word in PLANTED:
        assert word.lower() not in kept.lower()
