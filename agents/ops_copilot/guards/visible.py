"""Text as a person sees it on the screen, which is what every reader of answers must compare.

A program reads code points; a person reads glyphs. An answer can look like "INC-002 is
resolved." and hold none of those words for a program: a zero-width space or a soft hyphen inside
`resolved`, a non-breaking hyphen or an en dash inside `INC-002`, Cyrillic `е` for Latin `e`,
fullwidth `ＩＮＣ`, Arabic-Indic digits `٠٠٢`, a word split by bold (`**res**olved`) or by an
inline HTML tag (`res<b>olved</b>`). Read as code points, such an answer said nothing, and the
answer guard, the `facts` and `grounded` scorers and the red team's judge all let it through.

`visible` undoes each of these, in one place, so every reader agrees on what a text says: the
claims reader (`claims.extract`: the guard, the scorers and the red team read with it), the copy
check (`copies`: the guard's quotes, the red team's phrases, the trace of a written note).
It decodes HTML entities, folds compatibility forms (NFKC: fullwidth and mathematical letters,
ligatures, odd spaces), drops what shows nothing (format characters -- zero-width characters,
soft hyphens, bidirectional controls, tags -- combining marks and fillers), folds the
look-alikes of Latin letters that ids and status words are written with (`LOOK_ALIKE`), writes
every script's digits as ASCII digits and every hyphen and dash inside a word as `-`, and takes
away the markup a renderer hides (inline HTML tags, markdown emphasis and code marks).

It is a reading, not a rewriting: nothing here changes what a user is shown.
"""

from __future__ import annotations

import html
import re
import unicodedata

# Letters of other scripts drawn like a Latin letter (after NFKD, so accented forms are folded
# too): the Cyrillic and Greek ones an id, a status word or a copied phrase can be spelt with.
LOOK_ALIKE = {
    # Cyrillic
    "а": "a", "в": "b", "с": "c", "ԁ": "d", "е": "e", "г": "r", "һ": "h", "і": "i", "ј": "j",
    "к": "k", "ӏ": "l", "м": "m", "н": "h", "о": "o", "р": "p", "ԛ": "q", "ѕ": "s", "т": "t",
    "у": "y", "ѵ": "v", "ԝ": "w", "х": "x", "ь": "b",
    "А": "A", "В": "B", "С": "C", "Е": "E", "Н": "H", "І": "I", "Ј": "J", "К": "K", "М": "M",
    "О": "O", "Р": "P", "Ѕ": "S", "Т": "T", "Х": "X", "У": "Y", "Ӏ": "I", "Ԁ": "D", "Ԛ": "Q",
    "Ԝ": "W", "Ѵ": "V",
    # Greek
    "α": "a", "β": "b", "γ": "y", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
    "τ": "t", "υ": "u", "χ": "x", "ω": "w",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
    "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
    # Latin letters drawn like plain ones, and Armenian ones
    "ı": "i", "ȷ": "j", "ɑ": "a", "ɡ": "g", "ɩ": "i", "ʏ": "y", "օ": "o", "ս": "u", "ո": "n",
    "հ": "h",
}  # fmt: skip
# Characters that show as nothing and are no format character: fillers and a blank pattern.
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")
# Dashes long enough to separate words ("INC-002—the outage—is open"): a hyphen only between a
# letter or digit and a digit ("INC—002"). Every other dash and minus is a hyphen.
_LONG_DASHES = "\u2014\u2015\u2e3a\u2e3b"
_HYPHENS = frozenset("\u2212\u02d7\u2043\u2796\ufe63\uff0d")


class _Glyphs(dict[int, str]):
    """What each code point shows as (a `str.translate` table, filled as characters come)."""

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        category = unicodedata.category(ch)
        if ch in LOOK_ALIKE:
            shown = LOOK_ALIKE[ch]
        elif category in ("Cf", "Mn", "Me") or ch in _BLANK:
            shown = ""
        elif category == "Nd":
            shown = str(unicodedata.decimal(ch))
        elif (category == "Pd" and ch not in _LONG_DASHES) or ch in _HYPHENS:
            shown = "-"
        else:
            shown = ch
        self[code] = shown
        return shown


_GLYPHS = _Glyphs()
_LONG_DASH = re.compile(rf"(?<=[^\W_])[{_LONG_DASHES}](?=\d)")
# HTML a renderer hides: inline tags join the text around them ("res<b>olved</b>"), block tags
# break it as a space would. Only these names: "a <b> c" is markup, "x <y and y> z" is not.
_INLINE = "a|abbr|b|bdi|bdo|big|cite|code|data|del|dfn|em|font|i|ins|kbd|mark|q|s|samp|small|"
_INLINE += "span|strike|strong|sub|sup|time|tt|u|var|wbr"
_BLOCK = "address|article|aside|blockquote|br|caption|dd|details|div|dl|dt|figcaption|figure|"
_BLOCK += "footer|h[1-6]|header|hr|li|main|nav|ol|p|pre|section|summary|table|tbody|td|tfoot|"
_BLOCK += "th|thead|tr|ul"
_TAG = r"</?(?:{})(?=[\s/>])[^<>]*>"
_INLINE_TAG = re.compile(_TAG.format(_INLINE), re.I)
_BLOCK_TAG = re.compile(_TAG.format(_BLOCK), re.I)
# Markdown's emphasis, strike-through and code marks: inside a word they vanish ("**res**olved",
# "re`sol`ved"), elsewhere they leave a space. An underscore is a mark only at a word's edge
# ("_resolved_"); inside one ("incident_id") it is a letter of the word.
_MARKS = re.compile(r"[*`]+|~~+|(?<![^\W_])_+|_+(?![^\W_])")


def _unmark(match: re.Match[str]) -> str:
    text, start, end = match.string, match.start(), match.end()
    inside = start > 0 and end < len(text) and text[start - 1].isalnum() and text[end].isalnum()
    return "" if inside else " "


def visible(text: str) -> str:
    """`text` as a person reads it on the screen (see the module docstring); not case-folded."""
    if "&" in text:
        text = html.unescape(text)
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text).translate(_GLYPHS)
        text = _LONG_DASH.sub("-", text)
        text = unicodedata.normalize("NFC", text)
    if "<" in text:
        text = _BLOCK_TAG.sub(" ", _INLINE_TAG.sub("", text))
    return _MARKS.sub(_unmark, text)
