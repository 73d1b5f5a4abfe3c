"""The mutants of the agent's guards and write policy: a guard unhooked, a rule dropped."""

from __future__ import annotations

import contextlib

from .base import mutant, set_for

# -- guards -----------------------------------------------------------------------------------


@mutant(
    "kill-switch-ignored",
    ("save_incident_note", "restart_service", "resolve_incident"),
    "guard",
    "the kill switch unread: writes go through with OPS_WRITES_DISABLED set",
)
def _kill_switch(stack: contextlib.ExitStack) -> None:
    from ...agents.ops_state import Workspace

    set_for(stack, Workspace, "writes_refused", lambda self: False)


@mutant(
    "link-guard-off",
    (),
    "guard",
    "the output guard unhooked: links from untrusted text reach the user",
)
def _link_guard_off(stack: contextlib.ExitStack) -> None:
    from ...agents.ops_agent import agent

    original = agent.output_guard
    set_for(stack, agent, "output_guard", lambda names=("answers",): original(("answers",)))


@mutant(
    "answer-guard-off",
    (),
    "guard",
    "the answer check unhooked: claims no tool returned reach the user unflagged",
)
def _answer_guard_off(stack: contextlib.ExitStack) -> None:
    from ...agents.ops_agent import agent

    original = agent.output_guard
    set_for(stack, agent, "output_guard", lambda names=("links",): original(("links",)))


@mutant(
    "spotlighting-off",
    ("get_incident", "get_runbook", "search_service_logs", "recall_incident_context"),
    "guard",
    "untrusted text passed through raw: no fence, no planted instruction removed",
)
def _spotlight_off(stack: contextlib.ExitStack) -> None:
    from ...agents.ops_agent import spotlight
    from ...agents.ops_state import Workspace

    set_for(stack, Workspace, "untrusted",
         lambda self, text, source: spotlight.Spotlit(text, 0, ()))  # fmt: skip


# -- write policy -----------------------------------------------------------------------------


@mutant(
    "write-skips-approval",
    ("restart_service", "resolve_incident"),
    "policy",
    "the confirmation flag lost: restart and resolve run without asking a human",
)
def _skip_approval(stack: contextlib.ExitStack) -> None:
    from ...agents.ops_agent import agent

    set_for(stack, agent, "confirmation_rule", lambda spec: False)


@mutant(
    "any-rationale-accepted",
    ("save_incident_note", "restart_service", "resolve_incident"),
    "policy",
    "validation dropped: an approval with no real rationale is taken",
)
def _any_rationale(stack: contextlib.ExitStack) -> None:
    from ...agents.ops_agent import approval

    set_for(stack, approval, "rationale_problem", lambda text: None)


@mutant(
    "notes-never-need-approval",
    ("save_incident_note",),
    "policy",
    "the read-before-write rule dropped: a note after reading untrusted text is saved unasked",
)
def _notes_unasked(stack: contextlib.ExitStack) -> None:
    from ...agents.ops_agent import actions, agent, writes

    for module in (actions, agent, writes):
        if hasattr(module, "read_untrusted_text"):
            set_for(stack, module, "read_untrusted_text", lambda tool_context: False)


@mutant(
    "approval-reused",
    ("save_incident_note", "restart_service", "resolve_incident"),
    "policy",
    "the once-per-approval check dropped: a retried write is applied twice",
)
def _approval_reused(stack: contextlib.ExitStack) -> None:
    from ...agents.ops_agent import writes

    set_for(stack, writes, "already_applied", lambda tool_name, key: {
        "status": "ok", "applied": True, "action": tool_name, "target": key})  # fmt: skip
