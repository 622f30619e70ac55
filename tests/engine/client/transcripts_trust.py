"""Transcripts of what real, weak and failing models send: cut-off arguments, errors after output, output limits.

Byte-exact bodies as the servers send them; each is replayed whole and in 1/2/3/7-byte network pieces by
``test_transcripts.py``. What the client must conclude is in ``Expect``: a cut-off call is never runnable
(``ARGUMENTS_TRUNCATED``), and an error inside the stream is classified exactly like the same error sent with an
HTTP status.
"""

from __future__ import annotations

from tests.engine.client.transcript_kit import DONE, Call, Expect, Transcript, ev, fragments, oa, oa_usage, tc

_CUT_BATCH = '{"paragraphs":[{"paragraph_id":"p-0712","translated_text":"The rain gathered the sound from far a'
_CUT_AFTER_KEY = '{"paragraph_id": "p-0600", "cou'


def _cut_call(name: str, args: str, finish: str, call_id: str) -> str:
    return "".join(
        [
            ev(oa({"role": "assistant", "content": None})),
            ev(oa({"tool_calls": [tc(0, id=call_id, name=name, args="")]})),
            *(ev(oa({"tool_calls": [tc(0, args=part)]})) for part in fragments(args, 9)),
            ev(oa({}, finish)),
            ev(oa_usage(812, 4096)),
            DONE,
        ]
    )


ARGS_CUT_MID_STRING_TOOL_CALLS = Transcript(
    "args_cut_mid_string_finish_tool_calls",
    "Ollama before #17485 relabelled length as tool_calls; small local models",
    _cut_call("add_translation_batch", _CUT_BATCH, "tool_calls", "call_cut1").encode(),
    Expect(
        calls=(Call("add_translation_batch", None, "call_cut1", error="cut off", error_code="ARGUMENTS_TRUNCATED"),),
        finish="tool_calls",
        finish_raw="tool_calls",
        usage=(812, 4096, 4908),
    ),
)

ARGS_CUT_MID_STRING_STOP = Transcript(
    "args_cut_mid_string_finish_stop",
    "Gemini compat / old Ollama send stop with tool calls; the arguments were cut",
    _cut_call("add_translation_batch", _CUT_BATCH, "stop", "call_cut2").encode(),
    Expect(
        calls=(Call("add_translation_batch", None, "call_cut2", error="cut off", error_code="ARGUMENTS_TRUNCATED"),),
        finish="tool_calls",
        finish_raw="stop",
        usage=(812, 4096, 4908),
    ),
)

ARGS_CUT_AFTER_KEY = Transcript(
    "args_cut_after_key",
    "a weak model stopping inside a key: json-repair used to drop the key silently",
    _cut_call("get_next_paragraphs", _CUT_AFTER_KEY, "tool_calls", "call_cut3").encode(),
    Expect(
        calls=(Call("get_next_paragraphs", None, "call_cut3", error="cut off", error_code="ARGUMENTS_TRUNCATED"),),
        finish="tool_calls",
        finish_raw="tool_calls",
        usage=(812, 4096, 4908),
    ),
)

ARGS_CUT_BY_LENGTH = Transcript(
    "args_cut_finish_length",
    "Ollama >= #17485 keeps length; OpenAI: a call cut by max_tokens",
    _cut_call("add_translation_batch", _CUT_BATCH, "length", "call_cut4").encode(),
    Expect(
        calls=(
            Call(
                "add_translation_batch", None, "call_cut4", error="output token limit", error_code="ARGUMENTS_TRUNCATED"
            ),
        ),
        finish="length",
        finish_raw="length",
        usage=(812, 4096, 4908),
    ),
)

QUOTA_ERROR_AFTER_CONTENT = Transcript(
    "insufficient_quota_after_content",
    "OpenAI error object inside a 200 stream after output (quota ran out)",
    "".join(
        [
            ev(oa({"role": "assistant", "content": "I will translate"})),
            ev(
                {
                    "error": {
                        "message": "You exceeded your current quota, please check your plan and billing details.",
                        "type": "insufficient_quota",
                        "param": None,
                        "code": "insufficient_quota",
                    }
                }
            ),
            DONE,
        ]
    ).encode(),
    Expect(
        content="I will translate",
        finish="error",
        finish_raw=None,
        error="exceeded your current quota",
        failure=("quota", False),
    ),
)

UPSTREAM_502_AFTER_CONTENT = Transcript(
    "upstream_502_after_content",
    "LiteLLM / OpenRouter relaying an upstream failure after output started",
    "".join(
        [
            ev(oa({"role": "assistant", "content": "The rain"})),
            ev(
                {
                    "error": {
                        "message": "upstream connect error or disconnect/reset before headers. reset reason: "
                        "connection termination",
                        "type": "upstream_error",
                        "code": 502,
                    }
                }
            ),
            DONE,
        ]
    ).encode(),
    Expect(
        content="The rain",
        finish="error",
        finish_raw=None,
        error="upstream connect error",
        failure=("upstream_closed", True),
    ),
)

TEXT_ONLY_LENGTH = Transcript(
    "text_only_length",
    "a degenerating model cut off by max_tokens before any tool call",
    "".join(
        [
            ev(oa({"role": "assistant", "content": ""})),
            *(ev(oa({"content": "the rain the rain "})) for _ in range(6)),
            ev(oa({}, "length")),
            ev(oa_usage(900, 8192)),
            DONE,
        ]
    ).encode(),
    Expect(content="the rain the rain " * 6, finish="length", finish_raw="length", usage=(900, 8192, 9092)),
)

ARGS_AS_OBJECT_COMPACT = Transcript(
    "arguments_object_compact_raw",
    "llama-server (Mar 2026), TGI, Venice send arguments as an object",
    "".join(
        [
            ev(oa({"role": "assistant", "content": None})),
            ev(
                oa(
                    {
                        "tool_calls": [
                            tc(
                                0,
                                id="call_obj",
                                name="get_paragraph_info",
                                args={"paragraph_id": "e58ed763", "note": "雨"},
                            )
                        ]
                    }
                )
            ),
            ev(oa({}, "tool_calls")),
            DONE,
        ]
    ).encode(),
    Expect(
        calls=(Call("get_paragraph_info", {"paragraph_id": "e58ed763", "note": "雨"}, "call_obj"),),
        finish="tool_calls",
        finish_raw="tool_calls",
    ),
)

TRUST_TRANSCRIPTS = [
    ARGS_CUT_MID_STRING_TOOL_CALLS,
    ARGS_CUT_MID_STRING_STOP,
    ARGS_CUT_AFTER_KEY,
    ARGS_CUT_BY_LENGTH,
    QUOTA_ERROR_AFTER_CONTENT,
    UPSTREAM_502_AFTER_CONTENT,
    TEXT_ONLY_LENGTH,
    ARGS_AS_OBJECT_COMPACT,
]
