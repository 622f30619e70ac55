"""User configuration: one TOML file with model profiles, run defaults and the TUI keymap.

Location: ``$PROOFDESK_CONFIG`` or ``<platform config dir>/proofdesk/config.toml``. API keys are never
stored here: a profile names the environment variable that holds its key (``api_key_env``).

Model settings resolve, strongest first: command-line flags, the environment (``OPENAI_BASE_URL``,
``OPENAI_API_KEY``), the chosen profile, built-in defaults. With nothing configured the model is
``demo``, the offline scripted model.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import parse_qsl, urlsplit

import msgspec
import platformdirs

from engine import settings
from engine.cost import Prices
from engine.field_steps import After, Before, CarefulOnly, fast_convert
from engine.urls import public_url

DEMO_MODEL = "demo"
DEMO_BASE_URL = "demo://offline"  # what traces and events name as the demo model's address
DEFAULT_BASE_URL = "https://api.openai.com/v1"
MaxTokensField = Literal["max_tokens", "max_completion_tokens"]


class ConfigError(Exception):
    """A configuration problem, as one sentence naming the file and the key."""


def _checked(setting: settings.Setting) -> Before:
    """Validate a config value through its setting, so the file and the flag are refused in the same words."""
    return Before(setting.check)


# Strict: ``price_input = true`` is a mistake, not 1.0; no price per million tokens is near a million.
StrictPrice = Annotated[float, msgspec.Meta(ge=0, le=1_000_000), CarefulOnly(strict=True, allow_inf_nan=False)]


class Profile(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A named model endpoint."""

    base_url: str | None = None
    model: str
    api_key_env: str | None = None
    temperature: Annotated[float, msgspec.Meta(ge=0, le=2)] | None = None
    headers: dict[str, str] = msgspec.field(default_factory=dict)
    body: dict[str, Any] = msgspec.field(default_factory=dict)
    max_tokens: Annotated[int, _checked(settings.MAX_TOKENS)] = settings.DEFAULT_MAX_TOKENS
    max_tokens_field: MaxTokensField = "max_tokens"
    connect_timeout: Annotated[float, _checked(settings.CONNECT_TIMEOUT)] = settings.DEFAULT_CONNECT_TIMEOUT
    read_timeout: Annotated[float, _checked(settings.READ_TIMEOUT)] = settings.DEFAULT_READ_TIMEOUT
    response_seconds: Annotated[float, _checked(settings.RESPONSE_SECONDS)] = settings.DEFAULT_RESPONSE_SECONDS
    response_mb: Annotated[int, _checked(settings.RESPONSE_MB)] = settings.DEFAULT_RESPONSE_MB
    # Prices per million tokens (engine.cost); no cost is shown without input and output prices.
    price_input: StrictPrice | None = None
    price_cached_input: StrictPrice | None = None
    price_output: StrictPrice | None = None
    currency: Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z]{3}$")] = "USD"

    @property
    def prices(self) -> Prices | None:
        """The profile's prices, or None when it sets none."""
        return Prices.of(self.price_input, self.price_output, self.price_cached_input, self.currency.upper())


def _prices_in_pairs(profile: Any) -> Any:
    """A profile (or its careful twin) that sets a price sets both the input and the output price."""
    priced = [k for k in ("price_input", "price_cached_input", "price_output") if getattr(profile, k) is not None]
    if priced and (profile.price_input is None or profile.price_output is None):
        raise ValueError("set both price_input and price_output (per million tokens) for a cost, or neither")
    return profile


class RunDefaults(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Defaults for runs, overridden by flags (bounds and defaults: ``engine.settings``)."""

    chunk_chars: Annotated[int, _checked(settings.CHUNK_CHARS)] = settings.DEFAULT_CHUNK_CHARS
    max_batch: Annotated[int, _checked(settings.MAX_BATCH)] = settings.DEFAULT_MAX_BATCH
    max_turns: Annotated[int, _checked(settings.MAX_TURNS)] = settings.DEFAULT_MAX_TURNS
    keep_versions: Annotated[int, _checked(settings.KEEP_VERSIONS)] = int(settings.KEEP_VERSIONS.default)
    jobs: Annotated[int, _checked(settings.JOBS)] = int(settings.JOBS.default)
    source_language: str | None = None
    target_language: str | None = None
    memory_threshold: Annotated[float, _checked(settings.MEMORY_THRESHOLD)] = settings.DEFAULT_MEMORY_THRESHOLD
    memory_max: Annotated[int, _checked(settings.MEMORY_MAX)] = settings.DEFAULT_MEMORY_MAX
    # A proofread stores its changes as suggestions for the editor unless this is true (then it selects them for
    # paragraphs nobody reviewed or wrote by hand, as translate and polish do).
    proofread_apply: bool = False
    context_before: Annotated[int, _checked(settings.CONTEXT_BEFORE)] = int(settings.CONTEXT_BEFORE.default)
    context_after: Annotated[int, _checked(settings.CONTEXT_AFTER)] = int(settings.CONTEXT_AFTER.default)
    context_chars: Annotated[int, _checked(settings.CONTEXT_CHARS)] = int(settings.CONTEXT_CHARS.default)


class Config(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The whole configuration file. Read on the fast path (:func:`engine.field_steps.fast_convert`); a file it
    cannot take as it is goes to the careful path (``engine.config_careful``), which accepts it as pydantic's lax
    mode does or says what is wrong."""

    default_profile: str | None = None
    profiles: dict[str, Annotated[Profile, After(_prices_in_pairs)]] = msgspec.field(default_factory=dict)
    run: RunDefaults = msgspec.field(default_factory=RunDefaults)
    keymap: dict[str, str] = msgspec.field(default_factory=dict)
    theme: str | None = None


def config_path() -> Path:
    """Where the configuration file is read from."""
    override = os.environ.get("PROOFDESK_CONFIG")
    if override:
        return Path(override)
    return platformdirs.user_config_path("proofdesk") / "config.toml"


def load_config(path: Path | None = None) -> Config:
    """Read and validate the config file; a missing file is an empty configuration."""
    path = path or config_path()
    data = _toml(path)
    if data is None:
        return Config()
    config = _validated(path, data)
    if config.default_profile and config.default_profile not in config.profiles:
        raise ConfigError(f"{path}: default_profile: no profile named {config.default_profile!r}")
    return config


def _toml(path: Path) -> dict[str, Any] | None:
    """The file's TOML tables, or None when there is no file."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None


def _validated(path: Path, data: dict[str, Any]) -> Config:
    """``data`` as a :class:`Config`: on the fast path, or on the careful one, which names what is wrong."""
    config = fast_convert(Config, data)
    if config is not None:
        return config
    from engine.config_careful import careful_config  # only here: a valid file never imports pydantic

    try:
        return careful_config(data, Config)
    except ValueError as exc:
        raise ConfigError(f"{path}: {exc}") from None


class ApiKey:
    """An API key that never shows itself in a repr, str, log record or traceback."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The key itself, for the Authorization header only."""
        return self._value

    def __repr__(self) -> str:
        return "ApiKey('***')"

    __str__ = __repr__


@dataclass(frozen=True)
class ModelSettings:
    """Everything needed to talk to one model, after resolving flags, environment and profile."""

    model: str
    base_url: str
    api_key: ApiKey | None = field(default=None, repr=False)
    api_key_env: str | None = None
    temperature: float | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] = field(default_factory=dict)
    profile: str | None = None
    max_tokens: int = settings.DEFAULT_MAX_TOKENS
    max_tokens_field: MaxTokensField = "max_tokens"
    connect_timeout: float = settings.DEFAULT_CONNECT_TIMEOUT
    read_timeout: float = settings.DEFAULT_READ_TIMEOUT
    response_seconds: float = settings.DEFAULT_RESPONSE_SECONDS
    response_mb: int = settings.DEFAULT_RESPONSE_MB
    prices: Prices | None = None
    # Whether a model was named (a flag or a profile). Without one the settings hold the demo model as a stand-in,
    # which a run refuses: the demo model's marked text must never land in a real chapter unasked.
    named: bool = True

    def secrets(self) -> list[str]:
        """Every value that must never be shown: the key, the URL's password and query values, header values
        (a profile's ``x-api-key`` or ``Authorization`` is as secret as the key)."""
        found = [self.api_key.reveal()] if self.api_key else []
        found += [value for value in self.headers.values() if len(value) >= 8]
        parts = urlsplit(self.base_url)
        if parts.password:
            found.append(parts.password)
        found += [value for _, value in parse_qsl(parts.query) if len(value) >= 8]
        return found

    @property
    def is_demo(self) -> bool:
        """Whether this is the offline demo model (no network, no key)."""
        return self.model == DEMO_MODEL

    def unnamed_reason(self) -> str | None:
        """Why a run cannot use these settings: no model was named (one sentence saying how to name one), or None."""
        if self.named:
            return None
        where = "" if self.base_url == DEFAULT_BASE_URL else f" for the server at {public_url(self.base_url)}"
        return (
            f"no model is configured{where}: name one with --model NAME (or --profile NAME, or default_profile in "
            f"{config_path()}); --model demo runs the offline demo model, which writes marked pseudo-translations"
        )


_NO_PROFILE = Profile(model="")  # no profile chosen: flags, environment and the defaults alone


def _chosen_profile(config: Config, profile: str | None) -> tuple[str | None, Profile]:
    """The profile named by ``--profile`` or ``default_profile`` (with its name), or ``_NO_PROFILE``."""
    name = profile or config.default_profile
    if name is not None and name not in config.profiles:
        known = ", ".join(sorted(config.profiles)) or "none configured"
        raise ConfigError(f"--profile {name!r}: no such profile (known: {known}) in {config_path()}")
    return name, (config.profiles[name] if name else _NO_PROFILE)


def _api_key(env: Mapping[str, str], key_env: str | None, flag: str | None) -> str | None:
    """The key from the variable the flag or profile names, else from ``OPENAI_API_KEY``."""
    if flag and flag not in env:
        raise ConfigError(f"--api-key-env {flag}: that environment variable is not set")
    return env.get(key_env) if key_env else env.get("OPENAI_API_KEY")


def _one_credential(url: str, key_value: str | None, key_env: str | None) -> None:
    """Refuse a URL with a user name and password beside a key: httpx would turn ``user:password@`` into a Basic
    Authorization header that silently replaces the key's."""
    if key_value and "@" in urlsplit(url).netloc:
        raise ConfigError(
            f"the base URL {public_url(url)} carries a user name and password, and "
            f"{key_env or 'OPENAI_API_KEY'} holds an API key: the URL's credentials would replace the "
            "key; remove one of them"
        )


def _named(model: str | None, chosen: Profile) -> bool:
    """Whether a model was named, by the flag or the profile (the demo model is otherwise only a stand-in)."""
    return bool(model) or bool(chosen.model)


def _base_url(flag: str | None, env: Mapping[str, str], chosen: Profile) -> str:
    return (flag or env.get("OPENAI_BASE_URL") or chosen.base_url or DEFAULT_BASE_URL).rstrip("/")


def _key_env_named(key_env: str | None, key_value: str | None) -> str | None:
    """The variable the key came from, as settings and traces name it."""
    return key_env or ("OPENAI_API_KEY" if key_value else None)


def _prices_for(model: str, chosen: Profile) -> Prices | None:
    # A profile's prices are for its model: another model named by --model, or the demo model, has none.
    return chosen.prices if model == chosen.model != DEMO_MODEL else None


def resolve_model(
    config: Config,
    *,
    profile: str | None = None,
    base_url: str | None = None,
    model: str | None = None,
    api_key_env: str | None = None,
    max_tokens: int | None = None,
    environ: Mapping[str, str] | None = None,
) -> ModelSettings:
    """Combine flags, environment, profile and defaults into :class:`ModelSettings`."""
    env = os.environ if environ is None else environ
    name, chosen = _chosen_profile(config, profile)
    resolved_model = model or chosen.model or DEMO_MODEL
    resolved_url = _base_url(base_url, env, chosen)
    key_env = api_key_env or chosen.api_key_env
    key_value = _api_key(env, key_env, api_key_env)
    _one_credential(resolved_url, key_value, key_env)
    return ModelSettings(
        model=resolved_model,
        base_url=resolved_url,
        api_key=ApiKey(key_value) if key_value else None,
        api_key_env=_key_env_named(key_env, key_value),
        temperature=chosen.temperature,
        headers=dict(chosen.headers),
        body=dict(chosen.body),
        profile=name,
        max_tokens=max_tokens or chosen.max_tokens,
        max_tokens_field=chosen.max_tokens_field,
        connect_timeout=chosen.connect_timeout,
        read_timeout=chosen.read_timeout,
        response_seconds=chosen.response_seconds,
        response_mb=chosen.response_mb,
        prices=_prices_for(resolved_model, chosen),
        named=_named(model, chosen),
    )
