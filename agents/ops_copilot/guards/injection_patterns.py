"""The injection patterns spotlighting neutralises, by class: each a regular expression matched
case-insensitively against a line's skeleton (normalised, homoglyphs folded). The classes name
what a neutralised line is marked with. The family patterns (AgentDojo's templates, InjecAgent's
prefix, BIPIA's task-irrelevant orders, Greshake et al.'s markers) were learnt from our own
wording of those families in `evals/redteam/attacks.yaml`; `evals/redteam/held-out.yaml` was
never used to write them.
"""

from __future__ import annotations

import re

_W = r"[\s_\-]+"  # word gap: spaces, underscores or hyphens ("ignore_previous-instructions")

# Pattern classes. Each pattern is matched case-insensitively against the normalised skeleton.
_PATTERNS: dict[str, list[str]] = {
    "instruction-override": [
        rf"\b(ignore|disregard|forget|override|bypass|skip)({_W}(all|any|the|your|my|of|these|"
        rf"those|previous|prior|above|earlier|preceding|existing|system|safety|original|approval|"
        rf"confirmation|security))*{_W}"
        r"(instructions?|prompts?|rules|guidelines|directives|guardrails|polic(y|ies)|context)\b",
        rf"\bnew{_W}(instructions?|directives?|orders?)\s*:",
        rf"\b(important|urgent|attention|note|message|memo|order|command|instructions?){_W}(to|for)"
        rf"{_W}(the{_W})?(ai|assistant|agent|model|llm|copilot|bot)s?\b",
        # misspelt on purpose ("iunstructions", AgentDojo's ignore_previous)
        rf"\b(ignore|disregard|forget|override|bypass)({_W}(all|any|the|your|previous|prior|"
        rf"above|earlier))*{_W}i\w*(uct|stru|nstu)\w*\b",
        # AgentDojo's important_instructions block, and InjecAgent's enhanced prefix
        rf"\bthis{_W}is{_W}an?{_W}(important|urgent){_W}message{_W}from{_W}me\b",
        rf"\bmessage{_W}from{_W}me\b.{{0,80}}\bto{_W}you\b",
        rf"\bbefore{_W}you{_W}(can{_W})?(solve|do|start|answer)({_W}\w+){{0,3}}{_W}task\b",
        rf"\bafter{_W}you{_W}do{_W}that\W+you{_W}can{_W}(solve|do|continue)\b",
        r"</?\s*information\s*>",
        rf"\bimportant\s*!{{2,}}|\bstrictly{_W}(adhere|follow|comply|obey)\b",
    ],
    "persona-hijack": [
        rf"\byou{_W}are{_W}(now|no{_W}longer)\b",
        rf"\bfrom{_W}now{_W}on{_W}you\b",
        rf"\b(act|behave|respond){_W}as{_W}(an?{_W})?(unrestricted|unfiltered|admin|root|system|"
        r"developer|jailbroken)",
        rf"\bpretend{_W}(to{_W}be|you{_W}are)\b",
        rf"\b(developer|maintenance|admin|god|dan|jailbreak|debug|sudo){_W}mode\b",
    ],
    "role-marker": [
        r"(^|[\s\]>])(assistant|developer)\s*:\s",
        r"<\|?\s*(im_start|im_end|system|endoftext|eot_id|start_header_id)\s*\|?>",
        r"\[/?(inst|sys|system)\]",
        r"</?\s*(system|instructions?|tool_?(call|result|response)|function_?call)\s*>",
        r"#{2,}\s*\(?\s*system[\s_-]*message\s*\)?",  # AgentDojo's system_message
        r"\[(system|assistant|developer)\]\(#",  # Greshake et al.'s [system](#error_state)
    ],
    "delimiter-forgery": [r"<<<|>>>", rf"\b(end{_W})?untrusted{_W}data\b"],
    "tool-redirection": [
        r"\b(restart_service|resolve_incident|save_incident_note|adk_request_confirmation|"
        r"set_model_response|transfer_to_agent)\b",
        rf"\b(use|call|run){_W}the{_W}(tool|function){_W}\W?\w+\W?{_W}with\b",
        r"\btodo\b\s*(\([^)]{0,30}\))?\s*:\s*(resolve|restart|close|save|delete|run|call|"
        r"mark|reboot)\b",
        rf"\bcopy{_W}this({_W}\w+)?{_W}(into|to|in)\b|\bask{_W}every{_W}reader\b",
        rf"\b(call|invoke|execute|trigger){_W}(the{_W})?(\w+{_W})?(tool|function)s?\b",
        rf"\b(ai|assistant|agent|model|llm|copilot|bot)s?{_W}(must|should|shall|needs?{_W}to|"
        rf"has{_W}to|will)({_W}now|{_W}immediately)?{_W}(call|run|restart|resolve|close|execute|"
        r"delete|approve|reveal|print|send)\b",
    ],
    "mass-action": [
        rf"\b(resolve|close|restart|reboot|delete|acknowledge|silence|mark){_W}(all|every|each|"
        rf"everything)({_W}(open|active|remaining|other|of{_W}the))*\b",
        rf"\b(all|every){_W}(open{_W})?(incidents?|services?){_W}(must|should|shall|will){_W}be\b",
        r"\b(all|every|each)\b(\W+\w+){0,4}?\W+(incidents?|services?)\b(\W+\w+){0,4}?\W+"
        r"(must|should|shall|will|needs?|has|have)\b(\W+\w+){0,2}?\W+(be\W+)?(resolved|closed|"
        r"restarted|rebooted|restart|reboot|marked|acknowledged|silenced)\b",
        r"\bfor\W+(each|every|all)\W+(\w+\W+){0,2}?(incidents?|services?)\b[^.]{0,60}\b(resolve|"
        r"close|restart|reboot|mark)",
    ],
    "argument-injection": [
        r"(;|&&|\|\|)\s*(rm|curl|wget|sh|bash|nc|ncat|python\d?|perl|chmod|dd|mkfs|shutdown)\b",
        r"\|\s*(sh|bash|zsh)\b",
        r"\$\([^)]*\)",
        r"(\.\./){2,}|/etc/(passwd|shadow)\b|\bid_rsa\b",
        r"'\s*(or|and)\s*'?\d+'?\s*=\s*'?\d+|;\s*drop\s+table\b|\bunion\s+select\b",
    ],
    "kill-switch": [
        r"\bops_writes_disabled\s*([:=]|\s+to)\s*[\"']?(0|false|no|off)\b",
        rf"\bwrites?{_W}disabled\s*(=|:|{_W}to)\s*[\"']?(0|false|no|off)\b",
        rf"\b(disable|deactivate|turn{_W}off|switch{_W}off|bypass|remove|lift){_W}(the{_W})?"
        rf"(kill{_W}?switch|write{_W}?(lock|freeze|guard|protection)|safety{_W}(switch|lock))",
        rf"\b(turn|switch|flip|set){_W}(the{_W})?(kill{_W}?switch|write{_W}?lock){_W}(to{_W})?"
        r"(off|false|disabled)\b",
        rf"\b(re{_W}?enable|unlock|turn{_W}on|switch{_W}on){_W}(all{_W})?writes\b",
    ],
    "forged-approval": [
        rf"\b(already|pre){_W}?approved\b",
        rf"\bapproval{_W}((has|was|is){_W})?(been{_W})?(granted|given|obtained|confirmed)\b",
        rf"\b(on{_W}?call|incident{_W}commander|lead|manager|sre|admin|human|user|operator)"
        rf"({_W}\w+)?{_W}(has{_W})?already{_W}(approved|authori[sz]ed|signed{_W}off)\b",
        r"\brationale\s*[:=]",
        r"\"?confirmed\"?\s*[:=]\s*\"?true\b",
        rf"\bwithout{_W}(any{_W}|further{_W}|human{_W}|asking{_W}for{_W})*(approval|confirmation"
        r"|review|asking|permission)\b",
        rf"\b(no|skip|bypass)({_W}need{_W}(for|to))?{_W}(approval|confirmation|confirm)\b",
    ],
    "prompt-exfiltration": [
        rf"\b(reveal|print|show|repeat|output|leak|dump|send|disclose|tell{_W}me)({_W}(me|us|all|"
        rf"of))*{_W}(your|the|its)?{_W}?(full{_W}|hidden{_W}|initial{_W}|original{_W})?"
        rf"(system{_W}prompt|prompt|instructions|configuration)\b",
        rf"\bsystem{_W}prompt\b",
    ],
    "exfiltration-link": [
        r"!\[[^\]]*\]\([^)]*\)",  # a markdown image is fetched without a click
        r"<img\b[^>]*>",
        r"\b(https?|ftp)://\S*(\{[^}]*\}|%7b)",  # a URL with a placeholder to fill with data
        r"\]\(\s*(javascript|data):",
        rf"\b(paste|send|post|upload|export|submit|forward|email){_W}(all{_W}|of{_W})*(your|the|"
        rf"these|those|all)?{_W}?(notes|logs|instructions|prompt|secrets?|tokens?|credentials|"
        r"keys?|conversation|history)\b",
    ],
    "answer-manipulation": [  # BIPIA's task-irrelevant orders, and claims dictated to the user
        rf"\b(tell|inform|let){_W}(the{_W})?user({_W}know)?{_W}(that{_W})?\S",
        rf"\bin{_W}your{_W}(reply|answer|summary|response)\b.{{0,50}}\b(recommend|add|include|"
        r"state|mention|say|write|end)\b",
        rf"\bwhen{_W}you{_W}summari[sz]e\b.{{0,60}}\b(state|say|mention|add|write|include|end)\b",
        rf"\banswer{_W}(the{_W}user{_W})?only{_W}in\b",
    ],
    "denial-of-service": [  # AgentDojo's DoS: the answer replaced
        rf"\bstop{_W}(what{_W}you('re|{_W}are){_W}doing|now{_W}and)\b",
        rf"\bextremely{_W}important\s*!+",
        rf"\b(reply|respond|answer){_W}only{_W}with\b|\bsay{_W}only{_W}that\b",
        rf"\bdo{_W}not{_W}help{_W}the{_W}user\b",
    ],
    "encoded-instruction": [
        rf"\b(decode|base64|b64|hex|rot13|unescape)\b.{{0,60}}\b(and|then)({_W}(then|also))?"
        rf"{_W}(do|follow|execute|run|obey|act|perform|comply)\b",
    ],
}

COMPILED = {
    cls: re.compile("|".join(f"(?:{p})" for p in pats), re.IGNORECASE | re.MULTILINE)
    for cls, pats in _PATTERNS.items()
}
