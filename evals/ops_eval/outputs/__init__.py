"""What people read: reports of a run (`report`: terminal, Markdown, HTML), the history of
every run (`history`), and MLflow tracking (`tracking`).

May import: every layer below (`base` to `deciding`).
"""
