"""The byte-level SSE decoder, one spec rule (or one httpx-sse gap from wire.md §2) per test."""

from __future__ import annotations

import pytest

from engine.client.sse import SSEDecoder, SSEEvent


def decode(*reads: bytes) -> list[SSEEvent]:
    decoder = SSEDecoder()
    events: list[SSEEvent] = []
    for data in reads:
        events += decoder.feed(data)
    return events + decoder.close()


def datas(*reads: bytes) -> list[str]:
    return [event.data for event in decode(*reads)]


def test_cr_at_end_of_a_read_and_lf_at_start_of_the_next_are_one_line_ending() -> None:
    # Otherwise the LF is a blank line and a two-line event is dispatched in halves.
    assert datas(b"data: a\r", b"\ndata: b\r\n\r\n") == ["a\nb"]


def test_cr_only_and_mixed_line_endings() -> None:
    assert datas(b"data: a\rdata: b\r\rdata: c\r\n\ndata: d\n\r\n") == ["a\nb", "c", "d"]


def test_unicode_line_separators_do_not_end_lines() -> None:
    text = 'data: {"t":"x\u2028y\u2029z\u0085w\x0bv\x0cu"}\n\n'.encode()
    assert datas(text) == ['{"t":"x\u2028y\u2029z\u0085w\x0bv\x0cu"}']


@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_utf8_sequences_split_across_reads(size: int) -> None:
    body = "data: 羅生門 😀\n\n".encode()
    assert datas(*(body[i : i + size] for i in range(0, len(body), size))) == ["羅生門 😀"]


def test_bom_is_stripped_once_even_when_split() -> None:
    assert datas(b"\xef", b"\xbb", b"\xbfdata: a\n\n") == ["a"]
    assert datas(b"data: \xef\xbb\xbfa\n\n") == ["\ufeffa"]  # only at the very start of the stream


def test_a_lone_bom_prefix_byte_is_kept() -> None:
    assert datas(b"\xef") == []  # nothing to dispatch; must not crash at EOF


def test_comments_and_unknown_fields_are_ignored() -> None:
    assert datas(b": keep-alive\n\n: OPENROUTER PROCESSING\n\nfoo: bar\ndata: x\n\n") == ["x"]


def test_data_without_space_and_value_with_extra_space() -> None:
    assert datas(b"data:x\n\ndata:  y\n\n") == ["x", " y"]


def test_field_without_colon_is_a_field_with_empty_value() -> None:
    assert datas(b"data\ndata: a\n\n") == ["\na"]


def test_empty_data_is_dispatched_as_empty_string() -> None:
    assert datas(b"data:\n\n") == [""]


def test_retry_only_or_event_only_blocks_dispatch_nothing() -> None:
    assert decode(b"retry: 100\n\nevent: ping\n\n") == []


def test_event_type_and_id() -> None:
    (event,) = decode(b"event: error\nid: 42\ndata: {}\n\n")
    assert event == SSEEvent("error", "{}", "42", None)
    (event,) = decode(b"id: a\x00b\ndata: x\n\n")
    assert event.id is None  # an id containing NUL is ignored


def test_unterminated_final_event_is_flushed_at_eof() -> None:
    assert datas(b"data: a\n\ndata: [DONE]") == ["a", "[DONE]"]
    assert datas(b"data: a\n\ndata: b\n") == ["a", "b"]


def test_legacy_error_field_is_delivered() -> None:
    (event,) = decode(b'error: {"code":400,"message":"bad"}\n\ndata: [DONE]\n\n')[:1]
    assert event.error == '{"code":400,"message":"bad"}' and event.data == ""


def test_invalid_utf8_is_replaced_not_fatal() -> None:
    assert datas(b"data: a\xffb\n\n") == ["a\ufffdb"]


def test_many_events_in_one_read_and_one_event_over_many_reads() -> None:
    body = b"".join(b"data: %d\n\n" % i for i in range(500))
    assert datas(body) == [str(i) for i in range(500)]
    assert datas(*(body[i : i + 1] for i in range(len(body)))) == [str(i) for i in range(500)]
