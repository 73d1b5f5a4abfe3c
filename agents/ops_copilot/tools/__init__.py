"""The ops copilot's tools: their declarations and the functions behind them.

Holds:
- `registry`: the declarations (`declare`, `TOOLS`: an `agentport.ToolRegistry`).
- `reads`: the read tools (services, incidents, runbooks, logs, skills, recall).
- `actions`: the writes -- a note, a restart, a resolve -- and when each waits for approval.
- `approval`: what counts as a human's approval of a guarded write (decision, approver,
  rationale).
- `results`: the result shapes every tool shares, and how an argument becomes a seed id.
- `search`: word search over the seed's runbooks and log lines.
"""
