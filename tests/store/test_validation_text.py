"""The one sentence of a refused value."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError, field_validator, model_validator

from store.validation_text import first_error


class Inner(BaseModel):
    target: str

    @field_validator("target")
    @classmethod
    def not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("a translation cannot be blank")
        return value


class Outer(BaseModel):
    entries: list[Inner]

    @model_validator(mode="after")
    def some(self) -> Outer:
        if not self.entries:
            raise ValueError("a glossary needs at least one entry here")
        return self


def refusal(data: object) -> str:
    with pytest.raises(ValidationError) as info:
        Outer.model_validate(data)
    return first_error(info.value)


def test_the_first_error_names_its_field_path_and_says_the_validators_own_sentence() -> None:
    said = refusal({"entries": [{"target": "ok"}, {"target": " "}]})
    assert said == "entries.1.target: a translation cannot be blank"
    assert refusal({"entries": [{}]}) == "entries.0.target: Field required"


def test_an_error_about_the_whole_value_is_only_its_sentence() -> None:
    assert refusal({"entries": []}) == "a glossary needs at least one entry here"
