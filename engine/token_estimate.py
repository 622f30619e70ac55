"""How many tokens a text is, estimated from its characters, without a tokenizer.

A character-class estimate: each class of characters costs what BPE tokenizers of current models typically charge
for it.

- CJK (Han, kana, hangul, CJK and full-width punctuation): ``CJK_PER_CHAR`` tokens per character — frequent
  characters and kana pairs merge into one token, rare kanji take two or three byte tokens.
- Latin words: ``LATIN_CHARS_PER_TOKEN`` letters per token, at least one token per word.
- Digits: one token per ``DIGITS_PER_TOKEN`` digits.
- Every other visible character (ASCII punctuation, JSON syntax, symbols): ``OTHER_PER_CHAR`` tokens each (``":``
  and ``"}`` merge into one token); white space is free (tokenizers fold it into the next token).

The constants were set against a real tokenizer (Gemma 3's, through llama.cpp's ``/tokenize``) on the bundled
sample's chunk requests; ``tests/bench/bench_token_estimate.py`` measures the ratio again. Other tokenizers differ
(OpenAI's o200k, DeepSeek's and Qwen's count CJK text differently by up to about a third), which is why an estimate
is shown as an estimate, with a range.
"""

from __future__ import annotations

import re

CJK_PER_CHAR = 0.75
LATIN_CHARS_PER_TOKEN = 4.5
DIGITS_PER_TOKEN = 3
OTHER_PER_CHAR = 0.6

_CJK = re.compile(
    r"[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
    r"\U00020000-\U0003134f]"
)
_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]+")
_DIGITS = re.compile(r"[0-9]+")
_SPACE = re.compile(r"\s")


def estimate_tokens(text: str) -> int:
    """The estimated token count of ``text`` (see the module docstring for the method)."""
    if not text:
        return 0
    cjk = len(_CJK.findall(text))
    latin = 0.0
    latin_chars = 0
    for word in _LATIN_WORD.findall(text):
        latin += max(1.0, len(word) / LATIN_CHARS_PER_TOKEN)
        latin_chars += len(word)
    digit_runs = _DIGITS.findall(text)
    digits = sum(-(-len(run) // DIGITS_PER_TOKEN) for run in digit_runs)
    digit_chars = sum(len(run) for run in digit_runs)
    spaces = len(_SPACE.findall(text))
    other = len(text) - cjk - latin_chars - digit_chars - spaces
    return round(cjk * CJK_PER_CHAR + latin + digits + other * OTHER_PER_CHAR)
