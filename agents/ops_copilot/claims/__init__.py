"""Claims: what a reference or a response asserts about the seed, as (entity, attribute, value)
with a polarity -- "inventory status down", "not INC-002 severity SEV1", "INC-999 does not exist".

The `facts` scorer compares the two sets: each claim of the reference must be asserted, and none
contradicted. Reading is conservative: a value is tied to an entity only when the sentence makes
the link plain (the same clause, a parenthesis right after the entity, "entity: values", a list
after a colon, or "it" for the previous sentence's subject), a past state ("was down", "from
down to ...") is not a current one, and a conditional ("once it is approved") asserts nothing;
anything else is not a claim. It is a reader of plain answers, not a parser of English: the
tests in tests/scorers/test_facts.py say what it reads.

The vocabulary -- statuses, severities, services, teams, runbooks, skills, the deliberate
negatives -- comes from the seed's schema and records, not from a word list of our own.

Holds: what a claim is and the vocabulary claims are made of (`model`), the cues claims are
worded with -- negation, absence, past states, conditions, approval (`wording`), a text read
into claims (`reading`), JSON an answer quotes read as the record it is (`quoted`), claims about
the answer as a whole, the deliberate negatives and a triage report's fields (`answers`), a
response judged against a reference (`judging`), and whether a claim is true of the current
state, and what is (`truth`).

It lives with the agent because the agent reads its own answers with it too (`answer_guard`
flags a claim that contradicts a tool result or that only untrusted text made); the harness's
`facts` scorer and the red team read with the same reader, so guard and judge cannot disagree
about what a sentence claims.
"""

from ops_copilot.claims.judging import Judgement, judge
from ops_copilot.claims.model import ANSWER, Claim, Vocabulary, seed_vocabulary
from ops_copilot.claims.reading import extract
from ops_copilot.claims.truth import HELD, claim_holds, true_value
from ops_copilot.claims.wording import WORDING

__all__ = [
    "HELD",
    "claim_holds",
    "ANSWER",
    "Claim",
    "Judgement",
    "Vocabulary",
    "extract",
    "judge",
    "seed_vocabulary",
    "true_value",
    "WORDING",
]
