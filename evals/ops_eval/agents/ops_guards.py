"""The ops copilot's guards and the readers built on them: spotlighting, the claims reader, the
definition of a copy, links, the answer guard, write provenance, tool-call residue. Read by the
`facts`, `grounded` and `complete` scorers, the red team, the minimal-data labels and the
validator's reference rule (`true_value`: what the state says a claim should have said;
`WORDING` and `visible`: how a status may be worded and how the reader sees a text, so it reads
only the texts that could make a claim). Light: no ADK import."""

from ops_copilot.claims import (
    ANSWER,
    HELD,
    WORDING,
    Claim,
    Vocabulary,
    claim_holds,
    extract,
    judge,
    seed_vocabulary,
    true_value,
)
from ops_copilot.guards.answer_guard import ANSWER_FLAGS, check_answer, logger, seed_facts
from ops_copilot.guards.copies import holds, words
from ops_copilot.guards.guard_text import own_words
from ops_copilot.guards.links import find_links, mentioned
from ops_copilot.guards.provenance import PAYLOAD_KEY, Read
from ops_copilot.guards.spotlight import (
    FENCE_CLOSE,
    FENCE_OPEN,
    Spotlit,
    fence,
    neutralise,
    normalise,
    strings,
)
from ops_copilot.guards.visible import visible
from ops_copilot.residue import content_free

__all__ = [
    "HELD",
    "ANSWER", "ANSWER_FLAGS", "FENCE_CLOSE", "FENCE_OPEN", "PAYLOAD_KEY", "WORDING", "Claim",
    "Read", "Spotlit", "Vocabulary", "check_answer", "claim_holds", "content_free", "extract",
    "fence", "find_links", "holds", "judge", "logger", "mentioned", "neutralise", "normalise",
    "own_words", "seed_facts", "seed_vocabulary", "strings", "true_value", "visible", "words",
]  # fmt: skip
