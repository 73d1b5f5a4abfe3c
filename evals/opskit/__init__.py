"""What the project's agents and its harness both use and neither owns.

Holds:
- `textfiles`: reading a file a person gave -- size-capped, UTF-8, no device or FIFO, one
  precise error -- and YAML with duplicate keys refused.

May import: nothing of the project.
"""
