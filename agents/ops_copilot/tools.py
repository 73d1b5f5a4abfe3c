"""The ops copilot's tools, each declared (read/write, approval, entity arguments) where defined.

Every tool returns a dict with a `status`: `ok`, `not_found` (the entity does not exist -- the
model is told so plainly, never given a guess), `invalid_argument`, or `refused` (a guarded write
that did not run). Ids are normalised (case, spaces) and only ever compared against the seed, so
nothing a model passes can address a file. Free text that people or systems wrote (summaries,
timelines, runbook bodies, log lines, notes) is returned through `spotlight.fence`.
"""

from __future__ import annotations

import re
from typing import Any

from google.adk.tools.tool_context import ToolContext

from .approval import NOTHING_CHANGED, Refusal, read_approval, read_untrusted_text
from .registry import TOOLS, declare
from .seed import EntityKind, Seed, normalise
from .spotlight import NOTICE, fence, neutralise
from .workspace import Workspace, call_ids, workspace_for

MAX_ID_CHARS = 100
MAX_QUERY_CHARS = 200
MAX_NOTE_CHARS = 2000
MAX_LOG_LINES = 100
DEFAULT_LOG_LINES = 20

_INCIDENT_STATUSES = ("open", "investigating", "resolved")
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "at",
        "be",
        "by",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "my",
        "of",
        "on",
        "or",
        "the",
        "this",
        "to",
        "what",
        "when",
        "where",
        "which",
        "why",
        "with",
    ]
)

Result = dict[str, Any]


# -- shared result shapes ----------------------------------------------------------------------


def _not_found(kind: EntityKind, value: str, seed: Seed) -> Result:
    result: Result = {
        "status": "not_found",
        "entity": kind,
        "id": value,
        "exists": False,
        "message": (
            f"There is no {kind} {value!r} in the ops database. It does not exist: tell the user "
            f"so, and do not guess, invent or substitute another {kind}."
        ),
    }
    if kind != "incident":
        result[f"known_{kind}s"] = sorted(seed.ids(kind))
    return result


def _invalid(arg: str, message: str) -> Result:
    return {"status": "invalid_argument", "argument": arg, "message": message}


def _resolve(kind: EntityKind, arg: str, value: Any, ws: Workspace) -> str | Result:
    """The canonical id for `value`, or the result to return instead (not found, invalid)."""
    if not isinstance(value, str) or not value.strip():
        return _invalid(arg, f"{arg} must be a non-empty string naming a {kind}.")
    if len(value) > MAX_ID_CHARS:
        return _invalid(arg, f"{arg} is longer than {MAX_ID_CHARS} characters; no {kind} is.")
    key = normalise(kind, value)
    if key not in ws.seed.ids(kind):
        return _not_found(kind, value.strip(), ws.seed)
    return key


def _terms(query: str) -> list[str]:
    words = re.findall(r"[a-z0-9][a-z0-9_\-]*", query.lower())
    return [w for w in words if w not in _STOPWORDS and len(w) > 1]


def _untrusted(ws: Workspace, text: str, source: str) -> tuple[str, int]:
    lit = fence(text, source, enabled=ws.spotlight)
    return lit.text, lit.neutralised


def _title(ws: Workspace, text: str) -> str:
    return neutralise(text).text if ws.spotlight else text


# -- reads -------------------------------------------------------------------------------------


@declare(effect="read")
def list_services(tool_context: ToolContext) -> Result:
    """List every service with its current status, owning team and dependencies."""
    ws = workspace_for(tool_context)
    statuses = ws.store.service_statuses()
    return {
        "status": "ok",
        "services": [
            {
                "name": s.name,
                "status": statuses[s.name],
                "team": s.team,
                "depends_on": list(s.depends_on),
            }
            for s in ws.seed.services.values()
        ],
    }


@declare(effect="read", entities={"name": "service"})
def get_service_status(name: str, tool_context: ToolContext) -> Result:
    """Get one service's current status, team, dependencies, dependents and unresolved incidents.

    Args:
        name: The service name, for example "checkout".
    """
    ws = workspace_for(tool_context)
    key = _resolve("service", "name", name, ws)
    if isinstance(key, dict):
        return key
    svc = ws.seed.services[key]
    statuses = ws.store.service_statuses()
    incident_statuses = ws.store.incident_statuses()
    return {
        "status": "ok",
        "service": {
            "name": svc.name,
            "status": statuses[svc.name],
            "team": svc.team,
            "description": svc.description,
            "depends_on": [{"name": d, "status": statuses[d]} for d in svc.depends_on],
            "dependents": sorted(s.name for s in ws.seed.services.values() if key in s.depends_on),
            "unresolved_incidents": [
                i.id
                for i in ws.seed.incidents.values()
                if i.service == key and incident_statuses[i.id] != "resolved"
            ],
        },
    }


@declare(effect="read", entities={"service": "service"}, untrusted=True)
def list_incidents(
    tool_context: ToolContext, service: str | None = None, status: str | None = None
) -> Result:
    """List incidents, optionally only those of one service and/or with one status.

    Args:
        service: Only incidents of this service (optional).
        status: Only incidents with this status: "open", "investigating" or "resolved" (optional).
    """
    ws = workspace_for(tool_context)
    svc_key = None
    if service not in (None, ""):
        svc_key = _resolve("service", "service", service, ws)
        if isinstance(svc_key, dict):
            return svc_key
    want = None
    if status not in (None, ""):
        want = str(status).strip().lower()
        if want not in _INCIDENT_STATUSES:
            return _invalid("status", f"status must be one of {', '.join(_INCIDENT_STATUSES)}.")
    current = ws.store.incident_statuses()
    rows = [
        {
            "id": i.id,
            "title": _title(ws, i.title),
            "service": i.service,
            "severity": i.severity,
            "status": current[i.id],
        }
        for i in ws.seed.incidents.values()
        if (svc_key is None or i.service == svc_key) and (want is None or current[i.id] == want)
    ]
    return {"status": "ok", "count": len(rows), "incidents": rows}


@declare(effect="read", entities={"incident_id": "incident"}, untrusted=True)
def get_incident(incident_id: str, tool_context: ToolContext) -> Result:
    """Get one incident: service, severity, status, runbook, related incidents, summary, timeline.

    Args:
        incident_id: The incident id, for example "INC-002".
    """
    ws = workspace_for(tool_context)
    key = _resolve("incident", "incident_id", incident_id, ws)
    if isinstance(key, dict):
        return key
    inc = ws.seed.incidents[key]
    summary, n1 = _untrusted(ws, inc.summary, f"incident:{key}:summary")
    timeline, n2 = _untrusted(
        ws, "\n".join(f"{t.at} {t.event}" for t in inc.timeline), f"incident:{key}:timeline"
    )
    return {
        "status": "ok",
        "incident": {
            "id": inc.id,
            "title": _title(ws, inc.title),
            "service": inc.service,
            "severity": inc.severity,
            "status": ws.store.incident_status(key),
            "runbook": inc.runbook,
            "related": list(inc.related),
            "summary": summary,
            "timeline": timeline,
        },
        "neutralised": n1 + n2,
        "note": NOTICE,
    }


@declare(effect="read", untrusted=True)
def search_runbooks(query: str, tool_context: ToolContext) -> Result:
    """Find runbooks relevant to a symptom or topic, best match first.

    Args:
        query: Words describing the symptom, for example "slow responses 502".
    """
    ws = workspace_for(tool_context)
    if not isinstance(query, str) or not query.strip():
        return _invalid("query", "query must be a non-empty string.")
    if len(query) > MAX_QUERY_CHARS:
        return _invalid("query", f"query is longer than {MAX_QUERY_CHARS} characters.")
    terms = _terms(query)
    scored = []
    for rb in ws.seed.runbooks.values():
        title, body = rb.title.lower(), rb.body.lower()
        score = sum(3 * title.count(t) + body.count(t) + 3 * (t in rb.slug) for t in terms)
        if score:
            scored.append((score, rb.slug, rb.title))
    scored.sort(key=lambda r: (-r[0], r[1]))
    matches = [{"slug": slug, "title": _title(ws, t), "score": s} for s, slug, t in scored[:3]]
    result: Result = {"status": "ok", "query": query, "matches": matches}
    if not matches:
        result["message"] = "No runbook matches these words."
    return result


@declare(effect="read", entities={"slug": "runbook"}, untrusted=True)
def get_runbook(slug: str, tool_context: ToolContext) -> Result:
    """Get the full text of one runbook.

    Args:
        slug: The runbook slug, for example "service-down".
    """
    ws = workspace_for(tool_context)
    key = _resolve("runbook", "slug", slug, ws)
    if isinstance(key, dict):
        return key
    rb = ws.seed.runbooks[key]
    body, n = _untrusted(ws, rb.body, f"runbook:{key}")
    return {
        "status": "ok",
        "runbook": {"slug": rb.slug, "title": _title(ws, rb.title), "body": body},
        "neutralised": n,
        "note": NOTICE,
    }


@declare(effect="read", entities={"service": "service"}, untrusted=True)
def search_service_logs(
    service: str, query: str, tool_context: ToolContext, limit: int = DEFAULT_LOG_LINES
) -> Result:
    """Search one service's recent log lines for words, most relevant lines first.

    Args:
        service: The service whose logs to search, for example "inventory".
        query: Words to look for, for example "OOMKilled". An empty query returns the latest lines.
        limit: At most this many lines (1-100, default 20).
    """
    ws = workspace_for(tool_context)
    key = _resolve("service", "service", service, ws)
    if isinstance(key, dict):
        return key
    if not isinstance(query, str) or len(query) > MAX_QUERY_CHARS:
        return _invalid("query", f"query must be a string of at most {MAX_QUERY_CHARS} characters.")
    try:
        limit = max(1, min(MAX_LOG_LINES, int(limit)))
    except (TypeError, ValueError, OverflowError):
        return _invalid("limit", "limit must be a whole number between 1 and 100.")
    log = ws.seed.logs.get(key)
    if log is None:
        return {
            "status": "ok",
            "service": key,
            "match_count": 0,
            "lines": "",
            "message": f"The seed holds no logs for {key}.",
        }
    terms = _terms(query)
    if terms:
        hits = [(sum(t in ln.lower() for t in terms), i) for i, ln in enumerate(log.lines)]
        best = sorted((h for h in hits if h[0]), key=lambda h: (-h[0], h[1]))[:limit]
        picked = sorted(i for _, i in best)
    else:
        picked = list(range(max(0, len(log.lines) - limit), len(log.lines)))
    text, n = _untrusted(ws, "\n".join(log.lines[i] for i in picked), f"log:{key}")
    return {
        "status": "ok",
        "service": key,
        "query": query,
        "match_count": len(picked),
        "lines": text if picked else "",
        "neutralised": n,
        "note": NOTICE,
    }


@declare(effect="read", entities={"incident_id": "incident"}, untrusted=True)
def recall_incident_context(incident_id: str, tool_context: ToolContext) -> Result:
    """Recall what this session already knows about an incident: notes, approved actions, status.

    Args:
        incident_id: The incident id, for example "INC-002".
    """
    ws = workspace_for(tool_context)
    key = _resolve("incident", "incident_id", incident_id, ws)
    if isinstance(key, dict):
        return key
    notes = ws.store.notes(key)
    text, n = _untrusted(
        ws, "\n".join(f"{nt.created_at} {nt.text}" for nt in notes), f"notes:{key}"
    )
    inc = ws.seed.incidents[key]
    actions = [
        {
            "action": a.action,
            "target": a.target,
            "approver": a.approver,
            "before": a.before_status,
            "after": a.after_status,
            "at": a.at,
        }
        for a in ws.store.audit_rows()
        if a.target in (key, inc.service)
    ]
    return {
        "status": "ok",
        "incident_id": key,
        "incident_status": ws.store.incident_status(key),
        "note_count": len(notes),
        "notes": text if notes else "",
        "approved_actions": actions,
        "neutralised": n,
        "note": NOTICE,
    }


@declare(effect="read")
def list_skills(tool_context: ToolContext) -> Result:
    """List the skills (step-by-step procedures) that can be loaded, with what each is for."""
    ws = workspace_for(tool_context)
    return {
        "status": "ok",
        "skills": [{"name": s.name, "description": s.description} for s in ws.seed.skills.values()],
    }


@declare(effect="read", entities={"name": "skill"})
def load_skill(name: str, tool_context: ToolContext) -> Result:
    """Load one skill's instructions, to follow them for the task at hand.

    Args:
        name: The skill name, for example "incident-triage".
    """
    ws = workspace_for(tool_context)
    key = _resolve("skill", "name", name, ws)
    if isinstance(key, dict):
        return key
    skill = ws.seed.skills[key]
    return {"status": "ok", "skill": {"name": skill.name, "instructions": skill.instructions}}


# -- writes ------------------------------------------------------------------------------------


@declare(effect="write", entities={"incident_id": "incident"}, confirm="after_untrusted")
def save_incident_note(incident_id: str, note: str, tool_context: ToolContext) -> Result:
    """Save a note on an incident, to recall later in this session. Once the session has read
    logs, runbooks, incident text or notes, a note waits for a human approval.

    Args:
        incident_id: The incident id, for example "INC-002".
        note: The note text (at most 2000 characters).
    """
    ws = workspace_for(tool_context)
    early = precheck_write("save_incident_note", {"incident_id": incident_id}, ws)
    if early is not None:
        return early
    key = normalise("incident", incident_id)
    if not isinstance(note, str) or not note.strip():
        return _invalid("note", "note must be non-empty text.")
    if len(note) > MAX_NOTE_CHARS:
        return _invalid("note", f"note is longer than {MAX_NOTE_CHARS} characters.")
    if read_untrusted_text(tool_context):
        approval = read_approval(tool_context)
        if isinstance(approval, Refusal):
            return approval.result(action="save_incident_note", target=key)
    session_id, invocation_id, _ = call_ids(tool_context)
    saved = ws.store.add_note(key, note.strip(), session_id, invocation_id)
    return {"status": "ok", "incident_id": key, "saved_at": saved.created_at}


def write_precheck(tool_name: str, target: str, ws: Workspace) -> Refusal | None:
    """Why a write cannot run whatever a human says (checked before asking, and again when it
    runs): writes switched off, or nothing to do."""
    if ws.writes_refused():
        return Refusal(
            reason="writes_disabled",
            message="Writes are disabled (OPS_WRITES_DISABLED). " + NOTHING_CHANGED,
        )
    if tool_name == "resolve_incident" and ws.store.incident_status(target) == "resolved":
        return Refusal(
            reason="already_resolved",
            message=f"{target} is already resolved. " + NOTHING_CHANGED,
        )
    return None


def precheck_write(tool_name: str, args: dict[str, Any], ws: Workspace) -> Result | None:
    """The result a write call gets without asking anyone (unknown target, writes off, nothing
    to do), or None when it may proceed (to a human, when it needs approval)."""
    spec = TOOLS[tool_name]
    ((arg, kind),) = spec.entities.items()
    key = _resolve(kind, arg, args.get(arg), ws)
    if isinstance(key, dict):
        return key
    refusal = write_precheck(tool_name, key, ws)
    return refusal.result(action=tool_name, target=key) if refusal else None


def _guarded_write(tool_name: str, args: dict[str, Any], tool_context: Any) -> Result:
    ws = workspace_for(tool_context)
    early = precheck_write(tool_name, args, ws)
    if early is not None:
        return early
    ((arg, kind),) = TOOLS[tool_name].entities.items()
    key = normalise(kind, args[arg])
    approval = read_approval(tool_context)
    if isinstance(approval, Refusal):
        return approval.result(action=tool_name, target=key)
    session_id, invocation_id, user_id = call_ids(tool_context)
    outcome = ws.store.apply_write(
        tool_name,  # type: ignore[arg-type]
        key,
        approver=approval.approver or user_id,
        rationale=approval.rationale,
        session_id=session_id,
        invocation_id=invocation_id,
    )
    if outcome.duplicate:
        return {
            "status": "refused",
            "reason": "already_applied",
            "message": f"{tool_name} on {key} was already applied under an approval in this "
            "invocation; it is not repeated. " + NOTHING_CHANGED,
            "action": tool_name,
            "target": key,
        }
    return {
        "status": "ok",
        "applied": True,
        "action": tool_name,
        "target": key,
        "before": outcome.before_status,
        "after": outcome.after_status,
        "approved_by": approval.approver or user_id,
        "rationale": approval.rationale,
    }


@declare(effect="write", entities={"name": "service"}, confirm="always")
def restart_service(name: str, tool_context: ToolContext) -> Result:
    """Restart a service. Pauses for a human approval with a rationale; runs only if approved.

    Args:
        name: The service to restart, for example "inventory".
    """
    return _guarded_write("restart_service", {"name": name}, tool_context)


@declare(effect="write", entities={"incident_id": "incident"}, confirm="always")
def resolve_incident(incident_id: str, tool_context: ToolContext) -> Result:
    """Mark an incident resolved. Pauses for a human approval with a rationale; runs if approved.

    Args:
        incident_id: The incident to resolve, for example "INC-002".
    """
    return _guarded_write("resolve_incident", {"incident_id": incident_id}, tool_context)
