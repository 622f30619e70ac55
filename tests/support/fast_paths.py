"""The one rule the fast (msgspec) and careful (pydantic twin) paths of a struct keep: whatever the fast path
accepts, the careful path accepts too, as the same value."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from pydantic import ValidationError

from engine.field_steps import fast_convert
from engine.struct_twin import twin


def assert_same_on_both_paths(struct: type[msgspec.Struct], raw: Any) -> None:
    """Fail when the fast path accepts ``raw`` and the careful path refuses it or reads it differently."""
    fast = fast_convert(struct, raw)
    if fast is None:
        return
    try:
        careful = twin(struct).model_validate(raw)
    except ValidationError as exc:
        pytest.fail(f"the fast path accepted what pydantic refuses: {raw!r}: {exc}")
    assert msgspec.convert(careful.model_dump(), struct) == fast, raw
