"""Wire transcripts of tool-call shapes (wire.md §1 and the §2 table "Tool-call shape deviations")."""

from __future__ import annotations

import json

from tests.engine.client.transcript_kit import DONE, Call, Expect, Transcript, ev, fragments, oa, oa_usage, tc

# -- OpenAI canonical: two calls one after the other, fragments cut inside keys, values and escapes --------------

_WEATHER = {"city": "New York City", "units": "celsius"}
_NOTE = {"path": 'notes/a"b.txt', "text": 'He said "hi", "c"\nline 2 — 東京 😀 \\ end'}
_WEATHER_RAW = json.dumps(_WEATHER, separators=(",", ":"))  # OpenAI output is sometimes compact ...
_NOTE_RAW = json.dumps(_NOTE, ensure_ascii=False)  # ... and sometimes spaced

OPENAI_PARALLEL = Transcript(
    "openai_parallel",
    "openai-python .inline-snapshot f82268f2fefd*.bin",
    "".join(
        [
            ev(oa({"role": "assistant", "content": None, "refusal": None})),
            ev(oa({"tool_calls": [tc(0, id="call_a1", name="get_weather", args="")]})),
            *(
                ev(oa({"tool_calls": [{"index": 0, "function": {"arguments": part}}]}))
                for part in fragments(_WEATHER_RAW, 4)
            ),
            ev(oa({"tool_calls": [tc(1, id="call_b2", name="write_note", args="")]})),
            # the recorded fragments '"\", \"c' and '\": \"' come out of a 3-character cut
            *(
                ev(oa({"tool_calls": [{"index": 1, "function": {"arguments": part}}]}))
                for part in fragments(_NOTE_RAW, 3)
            ),
            ev(oa({}, "tool_calls")),
            ev(oa_usage(82, 40)),
            DONE,
        ]
    ).encode(),
    Expect(
        calls=(Call("get_weather", _WEATHER, "call_a1"), Call("write_note", _NOTE, "call_b2")),
        finish="tool_calls",
        finish_raw="tool_calls",
        usage=(82, 40, 122),
    ),
)

# -- Gemini OpenAI-compat: no index, whole calls, finish "stop", thought signatures to echo back -----------------

_SIG = {"google": {"thought_signature": "CpUBAVSoXO8="}}
GEMINI_NO_INDEX = Transcript(
    "gemini_no_index",
    "THU-MAIC/OpenMAIC#1556; python-genai#2868; open-webui/computer#224",
    "".join(
        [
            ev(
                {
                    "choices": [
                        {
                            "delta": {
                                "role": "assistant",
                                "tool_calls": [
                                    {
                                        "extra_content": _SIG,
                                        "function": {"arguments": '{"path":"ch1.json"}', "name": "read_file"},
                                        "id": "function-call-1",
                                        "type": "function",
                                    }
                                ],
                            },
                            "index": 0,
                        }
                    ],
                    "created": 1750000000,
                    "id": "gem-1",
                    "model": "gemini-2.5-flash",
                    "object": "chat.completion.chunk",
                }
            ),
            ev(
                {
                    "choices": [
                        {
                            "delta": {
                                "role": "assistant",
                                "tool_calls": [
                                    {
                                        "function": {"arguments": '{"ids":["p1","p2"]}', "name": "lookup"},
                                        "id": "function-call-2",
                                        "type": "function",
                                    }
                                ],
                            },
                            "finish_reason": "stop",
                            "index": 0,
                        }
                    ],
                    "created": 1750000000,
                    "id": "gem-1",
                    "model": "gemini-2.5-flash",
                    "object": "chat.completion.chunk",
                    "usage": {"completion_tokens": 20, "prompt_tokens": 100, "total_tokens": 120},
                }
            ),
            DONE,
        ]
    ).encode(),
    Expect(
        calls=(
            Call("read_file", {"path": "ch1.json"}, "function-call-1", extra_content=_SIG),
            Call("lookup", {"ids": ["p1", "p2"]}, "function-call-2"),
        ),
        finish="tool_calls",
        finish_raw="stop",
        usage=(100, 20, 120),
    ),
)

GEMINI_ALL_INDEX0 = Transcript(
    "gemini_all_index0",
    "QuantumNous/new-api PR #2701 (Gemini via proxies)",
    "".join(
        [
            ev(oa({"role": "assistant", "content": None})),
            ev(oa({"tool_calls": [tc(0, id="call_one", name="read_file", args="")]})),
            ev(oa({"tool_calls": [tc(0, args='{"path":')]})),
            ev(oa({"tool_calls": [tc(0, args='"a.txt"}')]})),
            ev(oa({"tool_calls": [tc(0, id="call_two", name="read_file", args="")]})),
            ev(oa({"tool_calls": [tc(0, args='{"path":"b.txt"}')]})),
            ev(oa({}, "tool_calls")),
            DONE,
        ]
    ).encode(),
    Expect(
        calls=(Call("read_file", {"path": "a.txt"}, "call_one"), Call("read_file", {"path": "b.txt"}, "call_two")),
        finish="tool_calls",
        finish_raw="tool_calls",
    ),
)

GLUED_SAME_INDEX = Transcript(
    "glued_same_index",
    "dyedd/lens#49; open-webui/open-webui PR #22235",
    "".join(
        [
            ev(oa({"role": "assistant", "content": None})),
            ev(oa({"tool_calls": [tc(0, id="call_g", name="search", args='{"q":')]})),
            ev(oa({"tool_calls": [tc(0, args='"a"}')]})),
            ev(oa({"tool_calls": [tc(0, args='{"q":"b"}')]})),  # a second call glued on, no id, no name
            ev(oa({"tool_calls": [tc(0, name="read_file", args='{"path":"x"}')]})),  # a third: new name, no id
            ev(oa({}, "tool_calls")),
            DONE,
        ]
    ).encode(),
    Expect(
        calls=(Call("search", {"q": "a"}, "call_g"), Call("search", {"q": "b"}), Call("read_file", {"path": "x"})),
        finish="tool_calls",
        finish_raw="tool_calls",
    ),
)

SAME_INDEX_TWICE_IN_CHUNK = Transcript(
    "same_index_twice_in_chunk",
    "openai/openai-python#3201 (vLLM + Kimi K2.6, speculative decoding)",
    "".join(
        [
            ev(oa({"role": "assistant", "content": None})),
            ev(oa({"tool_calls": [tc(0, id="functions.read_file:0", name="read_file", args="")]})),
            ev(oa({"tool_calls": [tc(0, args='{"pa'), tc(0, args='th":"a.txt"')]})),
            ev(oa({"tool_calls": [tc(0, args=',"n":2'), tc(0, args="}")]})),
            ev(oa({}, "tool_calls")),
            DONE,
        ]
    ).encode(),
    Expect(
        calls=(Call("read_file", {"path": "a.txt", "n": 2}, "functions.read_file:0"),),
        finish="tool_calls",
        finish_raw="tool_calls",
    ),
)

FIRST_INDEX_ONE = Transcript(
    "first_index_one",
    "vercel/ai anthropic-fallback-tool-call.sse; BerriAI/litellm#11407",
    "".join(
        [
            ev(oa({"role": "assistant", "content": ""})),
            ev(oa({"content": "I'll read "})),
            ev(oa({"content": "the chapter."})),
            ev(oa({"tool_calls": [tc(1, id="toolu_01A", name="read_file", args="")]})),
            ev(oa({"tool_calls": [tc(1, args='{"path": "ch1.json"}')]})),
            ev(oa({}, "tool_calls")),
            ev(oa_usage(30, 12)),
            DONE,
        ]
    ).encode(),
    Expect(
        content="I'll read the chapter.",
        calls=(Call("read_file", {"path": "ch1.json"}, "toolu_01A"),),
        finish="tool_calls",
        finish_raw="tool_calls",
        usage=(30, 12, 42),
    ),
)

_OLLAMA = {
    "id": "chatcmpl-476",
    "object": "chat.completion.chunk",
    "created": 1730000000,
    "model": "qwen2.5:7b",
    "system_fingerprint": "fp_ollama",
}
OLLAMA_WHOLE_CALL_STOP = Transcript(
    "ollama_whole_call_stop",
    "ollama openai/openai.go ToToolCalls (Go escaping); ollama #7963 (stop)",
    "".join(
        [
            ev(
                {
                    **_OLLAMA,
                    "choices": [
                        {
                            "index": 0,
                            "delta": {
                                "role": "assistant",
                                "content": "",
                                "tool_calls": [
                                    {
                                        "id": "call_7dke2",
                                        "index": 0,
                                        "type": "function",
                                        "function": {"name": "search", "arguments": '{"a":"x \\u0026 y","b":1}'},
                                    }
                                ],
                            },
                            "finish_reason": None,
                        }
                    ],
                }
            ),
            ev(
                {
                    **_OLLAMA,
                    "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": "stop"}],
                }
            ),
            ev({**_OLLAMA, "choices": [], "usage": {"prompt_tokens": 50, "completion_tokens": 9, "total_tokens": 59}}),
            DONE,
        ]
    ).encode(),
    Expect(
        calls=(Call("search", {"a": "x & y", "b": 1}, "call_7dke2"),),
        finish="tool_calls",
        finish_raw="stop",
        usage=(50, 9, 59),
    ),
)

MISTRAL_SEVERAL_IN_ONE_DELTA = Transcript(
    "mistral_several_in_one_delta",
    "comet-ml/opik PR #7385; mistralai/client-python#16 (no object)",
    "".join(
        [
            ev(
                {
                    "id": "cmpl-m1",
                    "model": "mistral-large-latest",
                    "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}],
                }
            ),
            ev(
                {
                    "id": "cmpl-m1",
                    "object": "chat.completion.chunk",
                    "created": 1730000000,
                    "model": "mistral-large-latest",
                    "choices": [
                        {
                            "index": 0,
                            "delta": {
                                "content": "",
                                "tool_calls": [
                                    {
                                        "id": "D681PevKs",
                                        "function": {"name": "read_file", "arguments": '{"path": "a.txt"}'},
                                        "index": 0,
                                    },
                                    {
                                        "id": "A2b3C4d5E",
                                        "function": {"name": "lookup", "arguments": '{"ids": ["p9"]}'},
                                        "index": 1,
                                    },
                                ],
                            },
                            "finish_reason": "tool_calls",
                        }
                    ],
                    "usage": {"prompt_tokens": 77, "total_tokens": 100, "completion_tokens": 23},
                }
            ),
            DONE,
        ]
    ).encode(),
    Expect(
        calls=(Call("read_file", {"path": "a.txt"}, "D681PevKs"), Call("lookup", {"ids": ["p9"]}, "A2b3C4d5E")),
        finish="tool_calls",
        finish_raw="tool_calls",
        usage=(77, 23, 100),
    ),
)

NAME_AND_ID_RESENT = Transcript(
    "name_and_id_resent",
    "NousResearch/hermes-agent#8259 (MiniMax via NIM); AstrBot PR #7735",
    "".join(
        [
            ev(oa({"role": "assistant", "content": None})),
            *(
                ev(oa({"tool_calls": [tc(0, id="call_mm1", name="read_file", args=part)]}))
                for part in ["", '{"path"', ': "ch', '1.json"', "}"]
            ),
            ev(oa({}, "tool_calls")),
            DONE,
        ]
    ).encode(),
    Expect(calls=(Call("read_file", {"path": "ch1.json"}, "call_mm1"),), finish="tool_calls", finish_raw="tool_calls"),
)

EMPTY_NAME_CONTINUATION = Transcript(
    "empty_name_continuation",
    "lmstudio-bug-tracker#649; 0xPlaygrounds/rig PR #442 (LM Studio)",
    "".join(
        [
            ev(oa({"role": "assistant", "content": None})),
            ev(oa({"tool_calls": [tc(0, id="365174485", name="read_file", args="")]})),
            *(ev(oa({"tool_calls": [tc(0, id="", name="", args=part)]})) for part in ['{"path":', '"z.txt"', "}"]),
            ev(oa({}, "tool_calls")),
            DONE,
        ]
    ).encode(),
    Expect(calls=(Call("read_file", {"path": "z.txt"}, "365174485"),), finish="tool_calls", finish_raw="tool_calls"),
)

NAME_ARRIVES_LATER = Transcript(
    "name_arrives_later",
    "vercel/ai 'should stream tool deltas when function.name arrives in a later chunk'",
    "".join(
        [
            ev(oa({"role": "assistant", "content": None})),
            ev(
                oa({"tool_calls": [{"index": 0, "id": "call_late", "type": "function", "function": {"arguments": ""}}]})
            ),
            ev(oa({"tool_calls": [{"index": 0, "function": {"name": "read_file"}}]})),
            ev(oa({"tool_calls": [{"index": 0, "function": {"arguments": '{"path":"l.txt"}'}}]})),
            ev(oa({}, "tool_calls")),
            DONE,
        ]
    ).encode(),
    Expect(calls=(Call("read_file", {"path": "l.txt"}, "call_late"),), finish="tool_calls", finish_raw="tool_calls"),
)

NAME_FRAGMENTED = Transcript(
    "name_fragmented",
    "continuedev/continue PR #5849 (claimed for Gemini)",
    "".join(
        [
            ev(oa({"role": "assistant", "content": None})),
            ev(oa({"tool_calls": [tc(0, id="call_f", name="edit_ex", args="")]})),
            ev(oa({"tool_calls": [{"index": 0, "function": {"name": "isting_file", "arguments": ""}}]})),
            ev(oa({"tool_calls": [{"index": 0, "function": {"arguments": '{"path":"e.txt"}'}}]})),
            ev(oa({}, "tool_calls")),
            DONE,
        ]
    ).encode(),
    Expect(
        calls=(Call("edit_existing_file", {"path": "e.txt"}, "call_f"),), finish="tool_calls", finish_raw="tool_calls"
    ),
)

MISSING_IDS = Transcript(
    "missing_ids",
    "iOfficeAI/aionrs PR #99 (StepFun); anomalyco/opencode PR #25925 (NVIDIA kimi-k2.5)",
    "".join(
        [
            ev(oa({"role": "assistant", "content": None})),
            ev(
                oa(
                    {
                        "tool_calls": [
                            {"index": 0, "type": "function", "function": {"name": "read_file", "arguments": ""}}
                        ]
                    }
                )
            ),
            ev(oa({"tool_calls": [{"index": 0, "function": {"arguments": '{"path":"1"}'}}]})),
            ev(
                oa(
                    {
                        "tool_calls": [
                            {"index": 1, "type": "function", "function": {"name": "read_file", "arguments": ""}}
                        ]
                    }
                )
            ),
            ev(oa({"tool_calls": [{"index": 1, "function": {"arguments": '{"path":"2"}'}}]})),
            ev(oa({}, "tool_calls")),
            DONE,
        ]
    ).encode(),
    Expect(
        calls=(Call("read_file", {"path": "1"}), Call("read_file", {"path": "2"})),
        finish="tool_calls",
        finish_raw="tool_calls",
    ),
)

EMPTY_IDS_NO_INDEX = Transcript(
    "empty_ids_no_index",
    "vercel/ai PR #19091 (#7834, Gemini 2.5 id ''); openai/openai-dotnet#428",
    "".join(
        [
            ev(
                {
                    "choices": [
                        {
                            "delta": {
                                "role": "assistant",
                                "tool_calls": [
                                    {
                                        "id": "",
                                        "type": "function",
                                        "function": {"name": "read_file", "arguments": '{"path":"a"}'},
                                    },
                                    {
                                        "id": "",
                                        "type": "function",
                                        "function": {"name": "read_file", "arguments": '{"path":"b"}'},
                                    },
                                ],
                            },
                            "index": 0,
                        }
                    ],
                    "object": "chat.completion.chunk",
                    "model": "gemini-2.5-pro",
                }
            ),
            ev(
                {
                    "choices": [
                        {
                            "delta": {
                                "role": "assistant",
                                "tool_calls": [
                                    {
                                        "id": "",
                                        "type": "function",
                                        "function": {"name": "lookup", "arguments": '{"ids":["p1"]}'},
                                    }
                                ],
                            },
                            "finish_reason": "stop",
                            "index": 0,
                        }
                    ],
                    "object": "chat.completion.chunk",
                    "model": "gemini-2.5-pro",
                }
            ),
            DONE,
        ]
    ).encode(),
    Expect(
        calls=(Call("read_file", {"path": "a"}), Call("read_file", {"path": "b"}), Call("lookup", {"ids": ["p1"]})),
        finish="tool_calls",
        finish_raw="stop",
    ),
)

ARGUMENTS_AS_OBJECT = Transcript(
    "arguments_as_object",
    "ggml-org/llama.cpp#20198; huggingface/text-generation-inference#2136",
    "".join(
        [
            ev(oa({"role": "assistant", "content": None})),
            ev(
                oa(
                    {
                        "tool_calls": [
                            tc(0, id="call_obj", name="submit", args={"items": [{"id": "p1", "text": "Ça va"}]})
                        ]
                    }
                )
            ),
            ev(oa({}, "tool_calls")),
            DONE,
        ]
    ).encode(),
    Expect(
        calls=(Call("submit", {"items": [{"id": "p1", "text": "Ça va"}]}, "call_obj"),),
        finish="tool_calls",
        finish_raw="tool_calls",
    ),
)

ARGUMENTS_OMITTED = Transcript(
    "arguments_omitted",
    "vllm-project/vllm#28806, #9693 (hermes parser: no arguments for {})",
    "".join(
        [
            ev(oa({"role": "assistant", "content": None})),
            ev(
                oa(
                    {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "chatcmpl-tool-1",
                                "type": "function",
                                "function": {"name": "list_chapters"},
                            }
                        ]
                    }
                )
            ),
            ev(
                oa(
                    {
                        "tool_calls": [
                            {
                                "index": 1,
                                "id": "chatcmpl-tool-2",
                                "type": "function",
                                "function": {"name": "status", "arguments": None},
                            }
                        ]
                    }
                )
            ),
            ev(oa({}, "tool_calls")),
            DONE,
        ]
    ).encode(),
    Expect(
        calls=(Call("list_chapters", {}, "chatcmpl-tool-1"), Call("status", {}, "chatcmpl-tool-2")),
        finish="tool_calls",
        finish_raw="tool_calls",
    ),
)

SIGNATURE_METADATA_DELTA = Transcript(
    "signature_metadata_delta",
    "OpenMAIC#1557; vercel/ai openai-compatible schema (extra_content)",
    "".join(
        [
            ev(oa({"role": "assistant", "content": None})),
            ev(oa({"tool_calls": [tc(0, id="fc_1", name="read_file", args='{"path":"s.txt"}')]})),
            ev(oa({"tool_calls": [{"index": 0, "extra_content": _SIG}]})),  # metadata only
            ev(oa({}, "tool_calls")),
            DONE,
        ]
    ).encode(),
    Expect(
        calls=(Call("read_file", {"path": "s.txt"}, "fc_1", extra_content=_SIG),),
        finish="tool_calls",
        finish_raw="tool_calls",
    ),
)

_PARALLEL = {
    "tool_uses": [
        {"recipient_name": "functions.read_file", "parameters": {"path": "a"}},
        {"recipient_name": "functions.lookup", "parameters": {"ids": ["p2"]}},
    ]
}
MULTI_TOOL_USE_WRAPPER = Transcript(
    "multi_tool_use_wrapper",
    "litellm test_handle_invalid_parallel_tool_calls.py (GPT-4o family)",
    "".join(
        [
            ev(oa({"role": "assistant", "content": None})),
            ev(oa({"tool_calls": [tc(0, id="call_par", name="multi_tool_use.parallel", args="")]})),
            *(ev(oa({"tool_calls": [tc(0, args=part)]})) for part in fragments(json.dumps(_PARALLEL), 11)),
            ev(oa({}, "tool_calls")),
            DONE,
        ]
    ).encode(),
    Expect(
        calls=(Call("read_file", {"path": "a"}), Call("lookup", {"ids": ["p2"]})),
        finish="tool_calls",
        finish_raw="tool_calls",
        wrappers=("call_par",),
    ),
)


def _ascii_event(value: object) -> str:
    # Lone surrogates cannot be UTF-8 encoded: the gateway sends them as \\uXXXX escapes.
    return f"data: {json.dumps(value, ensure_ascii=True, separators=(',', ':'))}\n\n"


SURROGATE_PAIR_SPLIT = Transcript(
    "surrogate_pair_split",
    "openclaw/openclaw PR #110642; elie222/rakazo#416 (JS gateways)",
    "".join(
        [
            _ascii_event(oa({"role": "assistant", "content": "Smile \ud83d"})),
            _ascii_event(oa({"content": "\ude00 done"})),
            _ascii_event(oa({"tool_calls": [tc(0, id="call_s", name="submit", args='{"t":"\ud83d')]})),
            _ascii_event(oa({"tool_calls": [tc(0, args='\ude02"}')]})),
            _ascii_event(oa({}, "tool_calls")),
            DONE,
        ]
    ).encode(),
    Expect(
        content="Smile 😀 done",
        calls=(Call("submit", {"t": "😂"}, "call_s"),),
        finish="tool_calls",
        finish_raw="tool_calls",
    ),
)

MALFORMED_ARGUMENTS = Transcript(
    "malformed_arguments",
    "ggml-org/llama.cpp#22072; MiqroForge-Desktop PR #1100 (small local models)",
    "".join(
        [
            ev(oa({"role": "assistant", "content": None})),
            *(
                ev(oa({"tool_calls": [tc(i, id=f"call_m{i}", name="read_file", args=raw)]}))
                for i, raw in enumerate(
                    [
                        '```json\n{"path": "a.txt"}\n```',
                        '{"path": "b.txt"} I hope this helps!',
                        '{"path": "c.txt"',
                        '"{\\"path\\": \\"d.txt\\"}"',
                        "read the file please",
                        "[1, 2]",
                        "{'path': 'e.txt'}",
                    ]
                )
            ),
            ev(oa({}, "tool_calls")),
            DONE,
        ]
    ).encode(),
    Expect(
        calls=(
            Call("read_file", {"path": "a.txt"}, "call_m0", repaired=True),
            Call("read_file", {"path": "b.txt"}, "call_m1", repaired=True),
            Call("read_file", {"path": "c.txt"}, "call_m2", repaired=True),
            Call("read_file", {"path": "d.txt"}, "call_m3", repaired=True),
            Call("read_file", None, "call_m4", error="not valid JSON"),
            Call("read_file", None, "call_m5", error="must be a JSON object"),
            Call("read_file", {"path": "e.txt"}, "call_m6", repaired=True),
        ),
        finish="tool_calls",
        finish_raw="tool_calls",
    ),
)

LENGTH_WITH_TOOL_CALL = Transcript(
    "length_with_tool_call",
    "ollama commit 8edecb5c6 (#17485); MiqroForge-Desktop PR #1100",
    "".join(
        [
            ev(oa({"role": "assistant", "content": None})),
            ev(oa({"tool_calls": [tc(0, id="call_len", name="submit", args='{"items": [{"id": "p1", "text": "Once')]})),
            ev(oa({"tool_calls": [tc(0, args=" upon a")]})),
            ev(oa({}, "length")),
            ev(oa_usage(900, 4096)),
            DONE,
        ]
    ).encode(),
    Expect(
        calls=(Call("submit", None, "call_len", error="cut off"),),
        finish="length",
        finish_raw="length",
        usage=(900, 4096, 4996),
    ),
)

LEGACY_FUNCTION_CALL = Transcript(
    "legacy_function_call",
    "chat_completion_chunk.py (deprecated delta.function_call)",
    "".join(
        [
            ev(oa({"role": "assistant", "content": None, "function_call": {"name": "read_file", "arguments": ""}})),
            ev(oa({"function_call": {"arguments": '{"path":'}})),
            ev(oa({"function_call": {"arguments": '"f.txt"}'}})),
            ev(oa({}, "function_call")),
            DONE,
        ]
    ).encode(),
    Expect(calls=(Call("read_file", {"path": "f.txt"}),), finish="tool_calls", finish_raw="function_call"),
)

TOOL_TRANSCRIPTS = [
    OPENAI_PARALLEL,
    GEMINI_NO_INDEX,
    GEMINI_ALL_INDEX0,
    GLUED_SAME_INDEX,
    SAME_INDEX_TWICE_IN_CHUNK,
    FIRST_INDEX_ONE,
    OLLAMA_WHOLE_CALL_STOP,
    MISTRAL_SEVERAL_IN_ONE_DELTA,
    NAME_AND_ID_RESENT,
    EMPTY_NAME_CONTINUATION,
    NAME_ARRIVES_LATER,
    NAME_FRAGMENTED,
    MISSING_IDS,
    EMPTY_IDS_NO_INDEX,
    ARGUMENTS_AS_OBJECT,
    ARGUMENTS_OMITTED,
    SIGNATURE_METADATA_DELTA,
    MULTI_TOOL_USE_WRAPPER,
    SURROGATE_PAIR_SPLIT,
    MALFORMED_ARGUMENTS,
    LENGTH_WITH_TOOL_CALL,
    LEGACY_FUNCTION_CALL,
]
