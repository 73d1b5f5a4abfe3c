"""The ops copilot's read tools, each declared (entity arguments, untrusted text) where defined;
the writes, which wait for a human approval, are `actions`.

Result shapes and id resolution are in `results`, word search in `search`, the write policy in
`writes`. Free text that people or systems wrote (summaries, timelines, runbook bodies, log
lines, notes) goes back to the model through the workspace's `untrusted`, fenced as data.
"""

from __future__ import annotations

from google.adk.tools.tool_context import ToolContext

from ops_copilot.guards.spotlight import NOTICE, remember_removed
from ops_copilot.store.workspace import workspace_for
from ops_copilot.tools.registry import declare
from ops_copilot.tools.results import Result, invalid, resolve
from ops_copilot.tools.search import pick_log_lines, rank_runbooks, terms

MAX_QUERY_CHARS = 200
MAX_LOG_LINES = 100
DEFAULT_LOG_LINES = 20

_INCIDENT_STATUSES = ("open", "investigating", "resolved")


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
    key = resolve("service", "name", name, ws.seed)
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


@declare(effect="read", entities={"service": "service"}, untrusted=("title",))
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
        svc_key = resolve("service", "service", service, ws.seed)
        if isinstance(svc_key, dict):
            return svc_key
    want = None
    if status not in (None, ""):
        want = str(status).strip().lower()
        if want not in _INCIDENT_STATUSES:
            return invalid("status", f"status must be one of {', '.join(_INCIDENT_STATUSES)}.")
    current = ws.store.incident_statuses()
    rows = [
        {
            "id": i.id,
            "title": ws.title(i.title),
            "service": i.service,
            "severity": i.severity,
            "status": current[i.id],
        }
        for i in ws.seed.incidents.values()
        if (svc_key is None or i.service == svc_key) and (want is None or current[i.id] == want)
    ]
    return {"status": "ok", "count": len(rows), "incidents": rows}


@declare(
    effect="read",
    entities={"incident_id": "incident"},
    untrusted=("title", "summary", "timeline"),
)
def get_incident(incident_id: str, tool_context: ToolContext) -> Result:
    """Get one incident: service, severity, status, runbook, related incidents, summary, timeline.

    Args:
        incident_id: The incident id, for example "INC-002".
    """
    ws = workspace_for(tool_context)
    key = resolve("incident", "incident_id", incident_id, ws.seed)
    if isinstance(key, dict):
        return key
    inc = ws.seed.incidents[key]
    summary = ws.untrusted(inc.summary, f"incident:{key}:summary")
    timeline = ws.untrusted(
        "\n".join(f"{t.at} {t.event}" for t in inc.timeline), f"incident:{key}:timeline"
    )
    remember_removed(tool_context, summary, f"incident:{key}:summary")
    remember_removed(tool_context, timeline, f"incident:{key}:timeline")
    return {
        "status": "ok",
        "incident": {
            "id": inc.id,
            "title": ws.title(inc.title),
            "service": inc.service,
            "severity": inc.severity,
            "status": ws.store.incident_status(key),
            "runbook": inc.runbook,
            "related": list(inc.related),
            "summary": summary.text,
            "timeline": timeline.text,
        },
        "neutralised": summary.neutralised + timeline.neutralised,
        "note": NOTICE,
    }


@declare(effect="read", untrusted=("title",))
def search_runbooks(query: str, tool_context: ToolContext) -> Result:
    """Find runbooks relevant to a symptom or topic, best match first.

    Args:
        query: Words describing the symptom, for example "slow responses 502".
    """
    ws = workspace_for(tool_context)
    if not isinstance(query, str) or not query.strip():
        return invalid("query", "query must be a non-empty string.")
    if len(query) > MAX_QUERY_CHARS:
        return invalid("query", f"query is longer than {MAX_QUERY_CHARS} characters.")
    ranked = rank_runbooks(list(ws.seed.runbooks.values()), terms(query))
    matches = [{"slug": slug, "title": ws.title(t), "score": s} for s, slug, t in ranked]
    result: Result = {"status": "ok", "query": query, "matches": matches}
    if not matches:
        result["message"] = "No runbook matches these words."
    return result


@declare(effect="read", entities={"slug": "runbook"}, untrusted=("title", "body"))
def get_runbook(slug: str, tool_context: ToolContext) -> Result:
    """Get the full text of one runbook.

    Args:
        slug: The runbook slug, for example "service-down".
    """
    ws = workspace_for(tool_context)
    key = resolve("runbook", "slug", slug, ws.seed)
    if isinstance(key, dict):
        return key
    rb = ws.seed.runbooks[key]
    text = ws.untrusted(rb.body, f"runbook:{key}")
    remember_removed(tool_context, text, f"runbook:{key}")
    return {
        "status": "ok",
        "runbook": {"slug": rb.slug, "title": ws.title(rb.title), "body": text.text},
        "neutralised": text.neutralised,
        "note": NOTICE,
    }


@declare(effect="read", entities={"service": "service"}, untrusted=("lines",))
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
    key = resolve("service", "service", service, ws.seed)
    if isinstance(key, dict):
        return key
    if not isinstance(query, str) or len(query) > MAX_QUERY_CHARS:
        return invalid("query", f"query must be a string of at most {MAX_QUERY_CHARS} characters.")
    try:
        limit = max(1, min(MAX_LOG_LINES, int(limit)))
    except (TypeError, ValueError, OverflowError):
        return invalid("limit", "limit must be a whole number between 1 and 100.")
    log = ws.seed.logs.get(key)
    if log is None:
        return {
            "status": "ok",
            "service": key,
            "match_count": 0,
            "lines": "",
            "message": f"The seed holds no logs for {key}.",
        }
    picked = pick_log_lines(log.lines, terms(query), limit)
    text = ws.untrusted("\n".join(log.lines[i] for i in picked), f"log:{key}")
    remember_removed(tool_context, text, f"log:{key}")
    return {
        "status": "ok",
        "service": key,
        "query": query,
        "match_count": len(picked),
        "lines": text.text if picked else "",
        "neutralised": text.neutralised,
        "note": NOTICE,
    }


@declare(effect="read", entities={"incident_id": "incident"}, untrusted=("notes",))
def recall_incident_context(incident_id: str, tool_context: ToolContext) -> Result:
    """Recall what this session already knows about an incident: notes, approved actions, status.

    Args:
        incident_id: The incident id, for example "INC-002".
    """
    ws = workspace_for(tool_context)
    key = resolve("incident", "incident_id", incident_id, ws.seed)
    if isinstance(key, dict):
        return key
    notes = ws.store.notes(key)
    text = ws.untrusted("\n".join(f"{nt.created_at} {nt.text}" for nt in notes), f"notes:{key}")
    remember_removed(tool_context, text, f"notes:{key}")
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
        "notes": text.text if notes else "",
        "approved_actions": actions,
        "neutralised": text.neutralised,
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
    key = resolve("skill", "name", name, ws.seed)
    if isinstance(key, dict):
        return key
    skill = ws.seed.skills[key]
    return {"status": "ok", "skill": {"name": skill.name, "instructions": skill.instructions}}
