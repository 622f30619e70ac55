"""Quotes and closing punctuation: QUOTES_UNBALANCED, QUOTES_LOST, END_PUNCTUATION.

Quotes pair by kind, each kind counted on its own, so nesting 「『』」 is fine and one missing mark reports one
problem, not a cascade. A ’ between two letters is an apostrophe (don’t), and so is one right after or right
before a letter while no ‘ is open (the servants’ room, ’tis). ``1)`` at the start of a line numbers a list.
A paragraph whose source is itself unbalanced (a quotation running over several paragraphs) is not checked.
"""

from __future__ import annotations

import re

from engine.checks.languages import Languages
from engine.checks.warning import Finding

_PAIRS = {"「": "」", "『": "』", "“": "”", "‘": "’", "（": "）", "(": ")"}
_OPENERS = {o: o for o in _PAIRS}
_CLOSERS = {c: o for o, c in _PAIRS.items()}
_MARKS = re.compile("[「」『』“”‘’（）()]")
_LIST_NUMBER = re.compile(r"(?:^|\n)[ \t\u3000]*[0-9A-Za-z０-９ａ-ｚＡ-Ｚ一二三四五六七八九十]{1,3}$")


def _is_apostrophe(text: str, i: int, single_open: bool) -> bool:
    before = text[i - 1].isalnum() if i > 0 else False
    after = text[i + 1].isalnum() if i + 1 < len(text) else False
    if before and after:
        return True
    return not single_open and (before or after)


def _not_a_closer(text: str, i: int, ch: str, stack: list[int] | None) -> bool:
    """Whether the closing-looking ``ch`` at ``i`` closes nothing: an apostrophe, or the ``)`` of a list number."""
    if ch == "’":
        return _is_apostrophe(text, i, bool(stack))
    return ch in "）)" and not stack and _LIST_NUMBER.search(text, 0, i) is not None


def _imbalance(text: str) -> tuple[int, str] | None:
    """The first unmatched closing mark, else the last unmatched opening one: ``(offset, mark)``; None if balanced."""
    open_at: dict[str, list[int]] = {}
    for m in _MARKS.finditer(text):
        ch, i = m.group(), m.start()
        if ch in _OPENERS:
            open_at.setdefault(ch, []).append(i)
            continue
        stack = open_at.get(_CLOSERS[ch])
        if _not_a_closer(text, i, ch, stack):
            continue
        if not stack:
            return i, ch
        stack.pop()
    return _last_open(open_at)


def _last_open(open_at: dict[str, list[int]]) -> tuple[int, str] | None:
    """The last opening mark left unclosed: ``(offset, mark)``."""
    left = [(stack[-1], opener) for opener, stack in open_at.items() if stack]
    return max(left) if left else None


def check_quotes_balanced(source: str, translation: str) -> Finding | None:
    """QUOTES_UNBALANCED: an opening 「『“‘（( or a closing mark without its pair in the translation."""
    found = _imbalance(translation)
    if found is None or _imbalance(source) is not None:
        return None
    at, mark = found
    if mark in _OPENERS:
        message = f"{mark} is opened but its closing {_PAIRS[mark]} is missing"
    else:
        message = f"closing {mark} without an opening {_CLOSERS[mark]}"
    return Finding("QUOTES_UNBALANCED", message, (at, at + 1))


# Dialogue in the source: 「」 and “”, and 『』 around speech (sentence punctuation inside, or long), not around a
# book title such as 『源氏物語』.
_DIALOGUE = re.compile(r"[「」“”]|『[^』]*(?:[。！？!?、，,]|[^』]{16})")
# Any quote mark a translation may use for dialogue: curly, straight, guillemets, low-9, corner brackets; a
# straight ' only as an opening mark (after a space or at the start), never as an apostrophe.
_TARGET_QUOTES = re.compile("[\"“”„‚‘«»‹›「」『』＂]|(?:^|[\\s(\\[—–-])'")


def check_quotes_lost(source: str, translation: str) -> Finding | None:
    """QUOTES_LOST: the source has dialogue quotes and the translation has no quote marks at all."""
    if _DIALOGUE.search(source) is None or _TARGET_QUOTES.search(translation) is not None:
        return None
    return Finding("QUOTES_LOST", "the source has dialogue in quotes but the translation has no quote marks")


# Looked through at the end: spaces, closing quotes and brackets, emphasis marks.
_TRAILING = " \t\n\r\u3000」』）)]］】〕〉》”’\"'»›＂*_"
_QUESTION = frozenset("?？⁇⁈⁉")
_EXCLAIM = frozenset("!！‼⁈⁉")
_ELLIPSIS_CHARS = frozenset("…‥⋯")
_TERMINAL = frozenset("?？⁇⁈⁉!！‼.。｡…‥⋯・･")
_DASHES = frozenset("―—─–━")
# A last sentence that asks without a question mark: one ending in a particle (Japanese か/かい/かね/かな/かしら/の/
# だろう/でしょう, Chinese 吗/呢/吧, Korean -까/-니/-냐/-나요) before a plain full stop, or one holding a question
# word (何をしていた。 "What were you doing?").
_ASKS = re.compile(r"(?:か|かい|かね|かな|かしら|の|だろう|でしょう|吗|嗎|呢|吧|까|니|냐|나요)[。.｡]?$")
_QUESTION_WORD = re.compile(
    r"何|誰|どこ|どちら|いつ|なぜ|なんで|どう|どれ|どんな|いくつ|いくら"
    r"|什么|甚麼|谁|哪|为什么|為什麼|怎|几|幾|누구|무엇|뭐|어디|언제|왜|어떻게|몇"
)
_SENTENCE_END = re.compile(r"[。．.！？!?\n][^。．.！？!?\n]*$")

_NAMES = {"question": "a question mark", "exclamation": "an exclamation mark", "ellipsis": "an ellipsis"}


_MARK_CHARS = {"question": _QUESTION, "exclamation": _EXCLAIM, "ellipsis": _ELLIPSIS_CHARS}
_ANY_MARK = _QUESTION | _EXCLAIM | _ELLIPSIS_CHARS
_ELLIPSIS_RUNS = ("...", "。。。", "・・・", "･･･")
_NO_MARKS: frozenset[str] = frozenset()


def _marks(run: str) -> frozenset[str]:
    if len(run) < 3 and _ANY_MARK.isdisjoint(run):
        return _NO_MARKS  # most texts end with a full stop: no mark, and too short for "..."
    found = {kind for kind, chars in _MARK_CHARS.items() if not chars.isdisjoint(run)}
    if any(dots in run for dots in _ELLIPSIS_RUNS):
        found.add("ellipsis")
    return frozenset(found)


def _ending(text: str) -> tuple[frozenset[str], bool, str, int, int]:
    """What ``text`` ends with: its marks among question/exclamation/ellipsis, whether a dash (and no final
    mark), the text up to the final marks (closing quotes and spaces left out), where those marks start and end.
    A plain tuple: this runs twice per paragraph checked."""
    end = len(text.rstrip(_TRAILING))
    start = end
    while start > 0 and text[start - 1] in _TERMINAL:
        start -= 1
    dash = start == end and end > 0 and text[end - 1] in _DASHES
    return _marks(text[start:end]), dash, text[:end], start, end


def _asks(body: str) -> bool:
    """Whether the last sentence of ``body`` (marks at the end included) is a question without a question mark."""
    if _ASKS.search(body):
        return True
    core = body.rstrip("。.｡")
    cut = _SENTENCE_END.search(core)
    return _QUESTION_WORD.search(core[cut.start() + 1 :] if cut else core) is not None


def check_end_punctuation(source: str, translation: str, langs: Languages) -> Finding | None:
    """END_PUNCTUATION: one side ends with a question, exclamation or ellipsis mark and the other does not."""
    src_marks, src_dash, src_body, _, _ = _ending(source)
    tr_marks, tr_dash, _, tr_at, tr_end = _ending(translation)
    if src_marks == tr_marks:
        return None
    for kind in _NAMES:
        in_source = kind in src_marks
        if in_source == (kind in tr_marks) or _excused(kind, in_source, (src_dash, tr_dash), src_body):
            continue
        if in_source:
            return Finding("END_PUNCTUATION", f"the source ends with {_NAMES[kind]} and the translation does not")
        message = f"the translation ends with {_NAMES[kind]} and the source does not"
        return Finding("END_PUNCTUATION", message, (tr_at, tr_end))
    return None


def _excused(kind: str, in_source: bool, dashes: tuple[bool, bool], src_body: str) -> bool:
    """Whether a mark of ``kind`` on one side only is fine all the same (``dashes``: source's, translation's)."""
    if kind == "ellipsis":
        return dashes[1] if in_source else dashes[0]  # a sentence trailing off: …… in one, ―― in the other
    # The source asks with a particle or a question word where English needs a ?
    return kind == "question" and not in_source and _asks(src_body)
