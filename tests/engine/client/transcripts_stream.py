"""Wire transcripts of framing, finish reasons, usage placement, reasoning and in-stream errors (wire.md §1–2)."""

from __future__ import annotations

from tests.engine.client.transcript_kit import DONE, Call, Expect, Transcript, ev, js, oa, oa_usage, tc

_TEXT = "Rashōmon — 羅生門. “Wait,” he said 😀."


def _simple(eol: str) -> str:
    """A small text stream written with ``eol`` as every line ending (one event spans three data lines)."""
    three_lines = (
        js(oa({"content": "羅生門"}))
        .replace(',"choices"', f'{eol}data: ,"choices"')
        .replace('"delta"', f'{eol}data: "delta"')
    )
    return "".join(
        [
            ev(oa({"role": "assistant", "content": "Line "}), eol),
            ev(oa({"content": "one. "}), eol),
            f"data: {three_lines}{eol}{eol}",
            ev(oa({}, "stop"), eol),
            f"data: [DONE]{eol}{eol}",
        ]
    )


def _mixed() -> str:
    parts = [
        ev(oa({"role": "assistant", "content": "Line "}), "\r\n"),
        ev(oa({"content": "one. "}), "\n"),
        f"data: {js(oa({'content': '羅生門'}))}\r\n\n",
        f"data: {js(oa({}, 'stop'))}\r\r",
        "data: [DONE]\n\r\n",
    ]
    return "".join(parts)


_SIMPLE_EXPECT = Expect(content="Line one. 羅生門")

OPENAI_TEXT = Transcript(
    "openai_text",
    "openai-python tests/test_streaming.py::test_multi_byte_character_multiple_chunks",
    "".join(
        [
            ev(oa({"role": "assistant", "content": "", "refusal": None})),
            *(ev(oa({"content": _TEXT[i : i + 5]})) for i in range(0, len(_TEXT), 5)),
            ev(oa({}, "stop")),
            ev(oa_usage(12, 9)),
            DONE,
        ]
    ).encode(),
    Expect(content=_TEXT, usage=(12, 9, 21)),
)

FRAMING_CRLF = Transcript(
    "framing_crlf", "WHATWG event stream interpretation", _simple("\r\n").encode(), _SIMPLE_EXPECT
)
FRAMING_CR = Transcript("framing_cr", "Soju06/codex-lb PR #1011 (CR-only)", _simple("\r").encode(), _SIMPLE_EXPECT)
FRAMING_MIXED = Transcript(
    "framing_mixed", "EventSource/eventsource#326 (mixed CRLF/LF)", _mixed().encode(), _SIMPLE_EXPECT
)

MULTILINE_AND_FIELDS = Transcript(
    "multiline_and_fields",
    "openai-python test_multiple_data_lines(_with_empty_line), test_data_missing_event",
    "".join(
        [
            "retry: 3000\n\n",  # a retry-only block dispatches nothing
            "event: message\nid: 1\n" + ev(oa({"role": "assistant", "content": ""})),
            'data: {"id":"chatcmpl-abc","object":"chat.completion.chunk",\ndata: "choices":[{"index":0,\n'
            'data: "delta":{"content":"Hello"},"finish_reason":null}]}\n\n',
            "data:\n\n",  # empty data
            f"data:{js(oa({'content': ', world'}))}\n\n",  # no space after the colon
            "id: 7\nevent: message\n" + ev(oa({}, "stop")),
            DONE,
        ]
    ).encode(),
    Expect(content="Hello, world"),
)

UNICODE_LINE_SEPARATORS = Transcript(
    "unicode_line_separators",
    "florimondmanca/httpx-sse#34; openai-python test_special_new_line_character",
    "".join(
        [
            ev(oa({"role": "assistant", "content": ""})),
            ev(oa({"content": "a\u2028b\u2029c\u0085d"})),  # raw, unescaped: legal inside JSON strings
            ev(oa({"content": " e"})),
            ev(oa({}, "stop")),
            DONE,
        ]
    ).encode(),
    Expect(content="a\u2028b\u2029c\u0085d e"),
)

BOM_AT_START = Transcript(
    "bom_at_start",
    "httpx-sse SSEDecoder does not strip a BOM (wire.md §2)",
    ("\ufeff" + _simple("\n")).encode(),
    _SIMPLE_EXPECT,
)

KEEPALIVE_COMMENTS = Transcript(
    "keepalive_comments",
    "openrouter.ai/docs/api-reference/streaming; api-docs.deepseek.com rate_limit",
    "".join(
        [
            ": OPENROUTER PROCESSING\n\n",
            ": keep-alive\n\n",
            ev(oa({"role": "assistant", "content": ""})),
            ": OPENROUTER PROCESSING\n\n",
            ev(oa({"content": "ok"})),
            ":\n\n",
            ev(oa({}, "stop")),
            DONE,
        ]
    ).encode(),
    Expect(content="ok"),
)

NO_DONE = Transcript(
    "no_done",
    "llama.cpp server-context.cpp (Anthropic path); vercel/ai ends on EOF",
    "".join([ev(oa({"role": "assistant", "content": "fin"})), ev(oa({}, "stop")), ev(oa_usage(5, 1))]).encode(),
    Expect(content="fin", usage=(5, 1, 6)),
)

UNTERMINATED_FINAL_EVENT = Transcript(
    "unterminated_final_event",
    "darshi1337/apogee PR #139; docs.rs rightkit-http EofPolicy",
    "".join(
        [ev(oa({"role": "assistant", "content": "fin"})), ev(oa({}, "stop")), f"data: {js(oa_usage(7, 2))}"]
    ).encode(),  # the usage chunk has no line ending at all
    Expect(content="fin", usage=(7, 2, 9)),
)

DONE_WITHOUT_BLANK_LINE = Transcript(
    "done_without_blank_line",
    "darshi1337/apogee PR #139 (llama-server)",
    "".join([ev(oa({"role": "assistant", "content": "x"})), ev(oa({}, "stop")), "data: [DONE]"]).encode(),
    Expect(content="x"),
)

# -- finish reasons ----------------------------------------------------------------------------------------------

TOGETHER_EOS = Transcript(
    "together_eos",
    "openai/openai-dotnet PR #267; mlflow/mlflow PR #11557 (text, token_id, seed)",
    "".join(
        [
            ev(
                {
                    "id": "8a1",
                    "object": "chat.completion.chunk",
                    "model": "meta-llama/Llama-3-70b",
                    "choices": [
                        {
                            "index": 0,
                            "text": "Hi",
                            "logprobs": None,
                            "finish_reason": None,
                            "seed": None,
                            "delta": {"token_id": 13347, "role": "assistant", "content": "Hi"},
                        }
                    ],
                }
            ),
            ev(
                {
                    "id": "8a1",
                    "object": "chat.completion.chunk",
                    "model": "meta-llama/Llama-3-70b",
                    "choices": [
                        {
                            "index": 0,
                            "text": "",
                            "logprobs": None,
                            "finish_reason": "eos",
                            "seed": 42,
                            "delta": {"token_id": 128009, "role": "assistant", "content": ""},
                        }
                    ],
                    "usage": {"prompt_tokens": 20, "completion_tokens": 2, "total_tokens": 22},
                }
            ),
            DONE,
        ]
    ).encode(),
    Expect(content="Hi", finish_raw="eos", usage=(20, 2, 22)),
)

WATSONX_EOS_TOKEN = Transcript(
    "watsonx_eos_token",
    "spring-projects/spring-ai PR #4900; vibrantlabsai/ragas#1548",
    "".join([ev(oa({"role": "assistant", "content": "Done."})), ev(oa({}, "eos_token")), DONE]).encode(),
    Expect(content="Done.", finish_raw="eos_token"),
)

DEEPSEEK_NO_RESOURCE = Transcript(
    "deepseek_insufficient_system_resource",
    "DeepSeek API reference; docs.rs ds-api FinishReason",
    "".join(
        [ev(oa({"role": "assistant", "content": "Parti"})), ev(oa({}, "insufficient_system_resource")), DONE]
    ).encode(),
    Expect(
        content="Parti", finish="error", finish_raw="insufficient_system_resource", error="insufficient_system_resource"
    ),
)

AZURE_CONTENT_FILTER = Transcript(
    "azure_content_filter",
    "vercel/ai azure-model-router.1.chunks.txt; openai-python PR #2255",
    "".join(
        [
            ev(
                {
                    "choices": [],
                    "created": 0,
                    "id": "",
                    "model": "",
                    "object": "",
                    "prompt_filter_results": [
                        {"prompt_index": 0, "content_filter_results": {"hate": {"filtered": False}}}
                    ],
                }
            ),
            ev(oa({"role": "assistant", "content": "I can"})),
            ev(oa({}, "content_filter")),
            ev(
                {
                    "choices": [
                        {
                            "content_filter_offsets": {"check_offset": 0, "start_offset": 0, "end_offset": 5},
                            "content_filter_results": {"violence": {"filtered": True, "severity": "high"}},
                            "finish_reason": None,
                            "index": 0,
                        }
                    ],
                    "created": 0,
                    "id": "",
                    "model": "",
                    "object": "",
                }
            ),
            DONE,
        ]
    ).encode(),
    Expect(content="I can", finish="content_filter", finish_raw="content_filter"),
)

MISSING_FINISH_REASON = Transcript(
    "missing_finish_reason",
    "vercel/ai openai-compatible flush; anomalyco/opencode#37852, #26170",
    "".join([ev(oa({"role": "assistant", "content": "The text was cut"})), DONE]).encode(),
    Expect(content="The text was cut", finish="error", finish_raw=None, error="stream ended without a finish reason"),
)

# -- usage placement ---------------------------------------------------------------------------------------------

GROQ_USAGE = Transcript(
    "groq_x_groq_usage",
    "vercel/ai#1651 (Groq 2024: usage only in x_groq)",
    "".join(
        [
            ev(oa({"role": "assistant", "content": "g"}, x_groq={"id": "req_1"})),
            ev(
                oa(
                    {},
                    "stop",
                    x_groq={
                        "id": "req_1",
                        "usage": {"prompt_tokens": 31, "completion_tokens": 3, "total_tokens": 34, "queue_time": 0.01},
                    },
                )
            ),
            DONE,
        ]
    ).encode(),
    Expect(content="g", usage=(31, 3, 34)),
)

XAI_USAGE_THEN_NULL = Transcript(
    "xai_usage_then_null",
    "BerriAI/litellm#17136; openai/openai-agents-python PR #2126",
    "".join(
        [
            ev(oa({"role": "assistant", "content": "x"})),
            ev({**oa({}, "stop"), "usage": {"prompt_tokens": 40, "completion_tokens": 4, "total_tokens": 44}}),
            ev({**oa({}), "usage": None}),
            DONE,
        ]
    ).encode(),
    Expect(content="x", usage=(40, 4, 44)),
)

USAGE_ON_EVERY_CHUNK = Transcript(
    "usage_on_every_chunk",
    "mudler/LocalAI#1744; vercel test meta/llama-3.1-8b-instruct:fp8 (NIM)",
    "".join(
        [
            ev({**oa({"role": "assistant", "content": "a"}), "usage": {"prompt_tokens": 9, "completion_tokens": 1}}),
            ev({**oa({"content": "b"}), "usage": {"prompt_tokens": 9, "completion_tokens": 2}}),
            ev(
                {
                    **oa({}, "stop"),
                    "usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12},
                    "timings": {"predicted_ms": 12.5},
                }
            ),
            DONE,
        ]
    ).encode(),
    Expect(content="ab", usage=(9, 3, 12)),
)

# -- reasoning ---------------------------------------------------------------------------------------------------

DEEPSEEK_REASONING_TOOLS = Transcript(
    "deepseek_reasoning_tools",
    "api-docs.deepseek.com thinking mode; GitNexus#43 (must send reasoning_content back)",
    "".join(
        [
            ": keep-alive\n\n",
            ev(oa({"role": "assistant", "content": None, "reasoning_content": ""})),
            ev(oa({"content": None, "reasoning_content": "The user wants "})),
            ev(oa({"content": None, "reasoning_content": "chapter one."})),
            ev(oa({"content": None, "tool_calls": [tc(0, id="call_00_ds", name="read_file", args="")]})),
            ev(oa({"content": None, "tool_calls": [tc(0, args='{"path":"ch1"}')]})),
            ev(oa({"content": None}, "tool_calls")),
            ev(oa_usage(300, 50)),
            DONE,
        ]
    ).encode(),
    Expect(
        reasoning="The user wants chapter one.",
        calls=(Call("read_file", {"path": "ch1"}, "call_00_ds"),),
        finish="tool_calls",
        finish_raw="tool_calls",
        usage=(300, 50, 350),
        message_fields={"reasoning_content": "The user wants chapter one."},
    ),
)

OLLAMA_REASONING = Transcript(
    "ollama_reasoning_field",
    "ollama openai/openai.go Delta.Reasoning; vercel/ai#7866 (gpt-oss servers)",
    "".join(
        [
            ev(oa({"role": "assistant", "content": "", "reasoning": "Think"})),
            ev(oa({"role": "assistant", "content": "", "reasoning": "ing."})),
            ev(oa({"role": "assistant", "content": "Answer."})),
            ev(oa({}, "stop")),
            DONE,
        ]
    ).encode(),
    Expect(content="Answer.", reasoning="Thinking.", message_fields={"reasoning": "Thinking."}),
)

THINK_TAGS = Transcript(
    "think_tags",
    "reasoning models without a reasoning parser (Qwen3/R1 distills on llama.cpp/vLLM)",
    "".join(
        [
            ev(oa({"role": "assistant", "content": "<thi"})),
            ev(oa({"content": "nk>Let me "})),
            ev(oa({"content": "think.</th"})),
            ev(oa({"content": "ink>\n\nThe answer is 4."})),
            ev(oa({}, "stop")),
            DONE,
        ]
    ).encode(),
    Expect(content="The answer is 4.", reasoning="Let me think."),
)

ORPHAN_THINK_CLOSE = Transcript(
    "orphan_think_close",
    "QwQ / R1 chat templates that open <think> in the prompt",
    "".join(
        [
            ev(oa({"role": "assistant", "content": "Hmm, two plus two."})),
            ev(oa({"content": "</think>Four."})),
            ev(oa({}, "stop")),
            DONE,
        ]
    ).encode(),
    Expect(content="Four.", reasoning="Hmm, two plus two."),
)

MISTRAL_THINKING_PARTS = Transcript(
    "mistral_thinking_parts",
    "Mistral magistral: content as a list of thinking/text parts",
    "".join(
        [
            ev(
                {
                    "id": "m",
                    "model": "magistral-medium",
                    "choices": [
                        {
                            "index": 0,
                            "delta": {
                                "role": "assistant",
                                "content": [{"type": "thinking", "thinking": [{"type": "text", "text": "Plan."}]}],
                            },
                        }
                    ],
                }
            ),
            ev(
                {
                    "id": "m",
                    "model": "magistral-medium",
                    "choices": [
                        {
                            "index": 0,
                            "delta": {"content": [{"type": "text", "text": "Result."}]},
                            "finish_reason": "stop",
                        }
                    ],
                }
            ),
            DONE,
        ]
    ).encode(),
    Expect(content="Result.", reasoning="Plan."),
)

# -- errors inside a 200 stream, after output started --------------------------------------------------------------

_ERR_MESSAGE = "The server had an error while processing your request."
OPENAI_ERROR_AFTER_OUTPUT = Transcript(
    "openai_error_after_output",
    "vercel/ai 'should forward error stream parts after output has started'; coder aibridge stream_error.txtar",
    "".join(
        [
            ev(oa({"role": "assistant", "content": "Partial"})),
            ev({"error": {"message": _ERR_MESSAGE, "type": "server_error", "param": None, "code": None}}),
            ev(oa({"content": " ignored"})),
            DONE,
        ]
    ).encode(),
    Expect(content="Partial", finish="error", finish_raw=None, error=_ERR_MESSAGE),
)

OPENROUTER_ERROR_FINISH = Transcript(
    "openrouter_error_finish",
    "openrouter.ai/docs errors-and-debugging; agent-os PR #2215",
    "".join(
        [
            ": OPENROUTER PROCESSING\n\n",
            ev(oa({"role": "assistant", "content": "Half"})),
            ev(
                {
                    "id": "gen-1",
                    "object": "chat.completion.chunk",
                    "created": 1,
                    "model": "x/y",
                    "provider": "Upstream",
                    "error": {
                        "code": 502,
                        "message": "Provider returned error",
                        "metadata": {"raw": "upstream timeout"},
                    },
                    "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "error"}],
                }
            ),
            DONE,
        ]
    ).encode(),
    Expect(content="Half", finish="error", finish_raw="error", error="Provider returned error (upstream timeout)"),
)

VLLM_ERROR_TOP_LEVEL = Transcript(
    "vllm_error_top_level",
    "vLLM create_streaming_error_response; block/goose PR #8031; magentic#276 (Mistral)",
    "".join(
        [
            ev(oa({"role": "assistant", "content": "So"})),
            ev(
                {
                    "object": "error",
                    "message": "The engine is overloaded",
                    "type": "InternalServerError",
                    "param": None,
                    "code": 500,
                }
            ),
            DONE,
        ]
    ).encode(),
    Expect(content="So", finish="error", finish_raw=None, error="The engine is overloaded"),
)

VLLM_ERROR_NESTED = Transcript(
    "vllm_error_nested",
    "block/goose PR #8031 (historic vLLM shape)",
    "".join(
        [
            ev(oa({"role": "assistant", "content": "So"})),
            ev({"error": {"object": "error", "message": "Request aborted", "type": "BadRequestError", "code": 400}}),
            DONE,
        ]
    ).encode(),
    Expect(content="So", finish="error", finish_raw=None, error="Request aborted"),
)

LLAMA_ERROR_FIELD = Transcript(
    "llama_legacy_error_field",
    "coddy-project/coddy-agent PR #106; llama.cpp#14566 (builds before PR #16109)",
    "".join(
        [
            ev(oa({"role": "assistant", "content": "ok"})),
            'error: {"code":500,"message":"context shift is disabled","type":"server_error"}\n\n',
            DONE,
        ]
    ).encode(),
    Expect(content="ok", finish="error", finish_raw=None, error="context shift is disabled"),
)

LLAMA_ERROR_NO_DONE = Transcript(
    "llama_error_no_done",
    'llama.cpp tools/server/server-context.cpp format_oai_sse(json{{"error", …}})',
    "".join(
        [
            ev(oa({"role": "assistant", "content": "ok"})),
            ev({"error": {"code": 500, "message": "slot unavailable", "type": "server_error"}}),
        ]
    ).encode(),
    Expect(content="ok", finish="error", finish_raw=None, error="slot unavailable"),
)

OLLAMA_NATIVE_ERROR = Transcript(
    "ollama_native_error_line",
    "ollama docs/api/errors.mdx (quoted in coasys/ad4m PR #1001)",
    "".join(
        [ev(oa({"role": "assistant", "content": "ok"})), ev({"error": "model runner has unexpectedly stopped"})]
    ).encode(),
    Expect(content="ok", finish="error", finish_raw=None, error="model runner has unexpectedly stopped"),
)

ERROR_EVENT_TYPE = Transcript(
    "error_event_type",
    "SSE 'event: error' blocks sent by some gateways",
    "".join(
        [
            ev(oa({"role": "assistant", "content": "ok"})),
            'event: error\ndata: {"error":{"message":"gateway timeout","type":"timeout"}}\n\n',
        ]
    ).encode(),
    Expect(content="ok", finish="error", finish_raw=None, error="gateway timeout"),
)

# -- a server ignoring stream: true ------------------------------------------------------------------------------

JSON_BODY_NOT_STREAMED = Transcript(
    "json_body_not_streamed",
    "servers/proxies that ignore stream:true and answer one chat.completion",
    js(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": "Reading.",
                        "tool_calls": [
                            {
                                "id": "call_j",
                                "type": "function",
                                "function": {"name": "read_file", "arguments": '{"path":"j"}'},
                            }
                        ],
                    },
                    "finish_reason": "tool_calls",
                }
            ],
            "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
        }
    ).encode(),
    Expect(
        content="Reading.",
        calls=(Call("read_file", {"path": "j"}, "call_j"),),
        finish="tool_calls",
        finish_raw="tool_calls",
        usage=(11, 7, 18),
    ),
    content_type="application/json",
)

STREAM_TRANSCRIPTS = [
    OPENAI_TEXT,
    FRAMING_CRLF,
    FRAMING_CR,
    FRAMING_MIXED,
    MULTILINE_AND_FIELDS,
    UNICODE_LINE_SEPARATORS,
    BOM_AT_START,
    KEEPALIVE_COMMENTS,
    NO_DONE,
    UNTERMINATED_FINAL_EVENT,
    DONE_WITHOUT_BLANK_LINE,
    TOGETHER_EOS,
    WATSONX_EOS_TOKEN,
    DEEPSEEK_NO_RESOURCE,
    AZURE_CONTENT_FILTER,
    MISSING_FINISH_REASON,
    GROQ_USAGE,
    XAI_USAGE_THEN_NULL,
    USAGE_ON_EVERY_CHUNK,
    DEEPSEEK_REASONING_TOOLS,
    OLLAMA_REASONING,
    THINK_TAGS,
    ORPHAN_THINK_CLOSE,
    MISTRAL_THINKING_PARTS,
    OPENAI_ERROR_AFTER_OUTPUT,
    OPENROUTER_ERROR_FINISH,
    VLLM_ERROR_TOP_LEVEL,
    VLLM_ERROR_NESTED,
    LLAMA_ERROR_FIELD,
    LLAMA_ERROR_NO_DONE,
    OLLAMA_NATIVE_ERROR,
    ERROR_EVENT_TYPE,
    JSON_BODY_NOT_STREAMED,
]
