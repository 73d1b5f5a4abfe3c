"""The ops copilot's write tools' own argument rules (what `save_incident_note` refuses before
writing), for the validator's check of expected writes. Imports ADK's tool types, not the agent."""

from ops_copilot.tools.actions import note_problem

__all__ = ["note_problem"]
