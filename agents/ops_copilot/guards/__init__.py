"""The ops copilot's guards, and the readings they share with the harness's readers of answers.

Holds:
- `spotlight`: untrusted text fenced as data and defanged before the model sees it;
  `injection_patterns`: the patterns it neutralises.
- `output_guard`: links in answers only where trusted data put them; `links` (one grammar of
  links), `link_targets` (a target read as a browser reads it), `link_stream` (streamed text
  held back while it could still become a link).
- `answer_guard`: claims about the seed that came from untrusted text are flagged;
  `guard_text`: the words it adds; `copies`: what counts as a copy; `visible`: text as a person
  sees it.
- `provenance`: where a write's arguments came from, shown to the approver; `vouching`: where
  in a tool result an id sits.
"""
