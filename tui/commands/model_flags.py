"""The model flags every command that talks to a model takes, and their resolution into settings."""

from __future__ import annotations

import argparse

from engine import settings as run_settings
from engine.config import Config, ConfigError, ModelSettings, load_config, resolve_model
from tui.cli_errors import UsageError
from tui.commands.setting_flags import add_setting_flag


def add_model_flags(parser: argparse.ArgumentParser) -> None:
    """Add ``--profile --base-url --model --api-key-env --max-tokens``."""
    group = parser.add_argument_group("model")
    group.add_argument("--profile", help="a model profile from the config file")
    group.add_argument("--base-url", metavar="URL", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1")
    group.add_argument("--model", help="model name ('demo' = the offline demo model)")
    group.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="environment variable holding the API key (default: the profile's, else OPENAI_API_KEY)",
    )
    add_setting_flag(group, run_settings.MAX_TOKENS, "output limit of every request (the profile's max_tokens)")


def model_settings(args: argparse.Namespace) -> tuple[Config, ModelSettings]:
    """The config file and the resolved model settings; configuration problems become UsageError (exit 2)."""
    try:
        config = load_config()
        return config, resolve_model(
            config,
            profile=args.profile,
            base_url=args.base_url,
            model=args.model,
            api_key_env=args.api_key_env,
            max_tokens=getattr(args, "max_tokens", None),
        )
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
