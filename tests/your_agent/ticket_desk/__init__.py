"""Ticket desk: a minimal ADK agent that is not ours to change -- two tools over a tiny seed of
support tickets, one of them a write that waits for a human's approval. The harness evaluates
it only through the port it declares (`port.py`), as docs/your-agent.md shows a team."""
