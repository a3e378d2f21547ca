"""Subcommands that talk to a model (send, rerun, regenerate) and manage API keys.

Every model command takes ``--provider``, ``--base-url`` and ``--model``, defaulting to the
settings file the app's settings dialog edits. The answer streams to stdout as it arrives; a
failed call prints one line on stderr, exits non-zero and stores nothing. Keys are read from
stdin or a hidden prompt, never from the command line (argv shows in process lists).
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from collections.abc import Callable
from typing import Any

from explorer.app.calls import conversation_ops as ops
from explorer.app.calls.model_setup import ModelChoice, prepare
from explorer.app.ops.availability import check
from explorer.cli.commands import (
    Command,
    add_conv_arg,
    add_conv_msg_args,
    add_redact_arg,
    open_store,
    read_text,
    run_edit,
)
from explorer.cli.output import emit, visible
from explorer.compaction.page_geometry import TIERS
from explorer.providers import PROVIDER_KINDS, Provider, keyfile
from explorer.providers.keys import (
    KeyStoreError,
    backend_state,
    delete_key,
    key_status,
    set_key,
)
from explorer.store import Store
from explorer.tree.errors import ExplorerError, error_line

EXIT_INTERRUPTED = 130
EXIT_ERROR = 1
Action = Callable[[Store, argparse.Namespace, Provider, ops.RunOptions], ops.RunResult]



def _model_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--provider", choices=PROVIDER_KINDS, help="default: the settings file")
    p.add_argument("--base-url", metavar="URL", help="API base URL (e.g. a local server)")
    p.add_argument("--model", metavar="M", help="model name")
    p.add_argument("--window", type=int, metavar="TOKENS", help="the model's context window")
    p.add_argument("--max-tokens", type=int, metavar="N", help="cap on the answer's tokens")
    p.add_argument("--tier", choices=TIERS,
                   help="snapshot page tier (default: the settings'), as in 'convo compact'")
    p.add_argument("--no-summary", action="store_true",
                   help="never spend a model call on the summary rung")
    p.add_argument("--no-vision", action="store_true",
                   help="the model cannot read images: do not send snapshot pages")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="how long each try waits for the answer's first byte (default 120)")
    p.add_argument("--key-env", metavar="NAME",
                   help="the environment variable holding the key for a custom --base-url "
                        "(a provider's own key goes only to its own host)")
    add_redact_arg(p)


def _send_args(p: argparse.ArgumentParser) -> None:
    add_conv_arg(p)
    p.add_argument("--text", required=True, help="the prompt ('-' reads standard input)")
    _model_args(p)


def _rerun_args(p: argparse.ArgumentParser) -> None:
    add_conv_msg_args(p)
    p.add_argument("--text", required=True, help="the edited prompt ('-' reads standard input)")
    _model_args(p)


def _regenerate_args(p: argparse.ArgumentParser) -> None:
    add_conv_msg_args(p)
    _model_args(p)


def choice_from(args: argparse.Namespace) -> ModelChoice:
    """The model flags as a choice over the settings file."""
    return ModelChoice(kind=args.provider, model=args.model, base_url=args.base_url,
                       window=args.window, max_tokens=args.max_tokens, tier=args.tier,
                       vision=not args.no_vision, summary=not args.no_summary,
                       redact=not args.no_redact, timeout=getattr(args, "timeout", None),
                       key_env=getattr(args, "key_env", None))


def setup(args: argparse.Namespace) -> tuple[Provider, ops.RunOptions]:
    """The provider and options from the flags over the settings file, with its key."""
    choice = choice_from(args)
    streaming = not getattr(args, "json", False)
    prepared = prepare(choice, on_text=_print_chunk if streaming else None,
                       notify=_waiting)
    for note in prepared.notes:
        print(f"convo: settings: {visible(note)}", file=sys.stderr)
    return prepared.provider, prepared.options


def _waiting(line: str) -> None:
    print(f"convo: {visible(line)}", file=sys.stderr, flush=True)


def _print_chunk(text: str) -> None:
    sys.stdout.write(visible(text))
    sys.stdout.flush()


def _checked(op_id: str, action: Action) -> Action:
    """``action``, after the operation's availability at the message (O1: the window's words)."""
    def run(s: Store, a: argparse.Namespace, p: Provider, o: ops.RunOptions) -> ops.RunResult:
        check(s, op_id, a.message, a.conversation)
        return action(s, a, p, o)
    return run


def _run_model(args: argparse.Namespace, action: Action) -> int:
    try:
        provider, options = setup(args)
        with open_store(args) as s:
            result = action(s, args, provider, options)
    except ExplorerError as e:
        if not getattr(args, "json", False):
            sys.stdout.write("\n")
        print(f"convo: error: {visible(error_line(e))} (nothing was stored)", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:  # Ctrl+C: the turn is written whole or not at all (P2)
        print("\nconvo: stopped: nothing of this call was stored", file=sys.stderr)
        return EXIT_INTERRUPTED
    _report(args, result)
    return 0


def _report(args: argparse.Namespace, result: ops.RunResult) -> None:
    usage = result.answer.usage.to_dict() if result.answer.usage else {}
    notes = [*result.notes, *(n for n in result.plan.notes if n.startswith("redacted "))]
    payload: dict[str, Any] = {
        "message_ids": result.message_ids, "answer_id": result.answer_id,
        "model": result.answer.model, "text": result.answer.text, "usage": usage,
        "compaction": list(result.plan.rungs), "retried_after_overflow":
            result.retried_after_overflow, "notes": notes,
    }
    if getattr(args, "json", False):
        emit(args, payload, [])
        return
    sys.stdout.write("\n")
    counts = ", ".join(f"{k} {v}" for k, v in usage.items()) or "no usage reported"
    print(f"stored messages {', '.join(map(str, result.message_ids))} ({counts})",
          file=sys.stderr)
    if result.plan.rungs:
        print(f"context compacted: {', '.join(result.plan.rungs)}", file=sys.stderr)
    for note in notes:
        print(f"note: {visible(note)}", file=sys.stderr)


def run_send(args: argparse.Namespace) -> int:
    return _run_model(args, lambda s, a, p, o: ops.send(s, a.conversation, read_text(a), p, o))


def run_rerun(args: argparse.Namespace) -> int:
    return _run_model(
        args, _checked("rerun", lambda s, a, p, o: ops.edit_and_run(
            s, a.conversation, a.message, read_text(a), p, o)))


def run_edit_or_rerun(args: argparse.Namespace) -> int:
    """``edit`` writes the edited prompt; ``edit --run`` also asks the model for its answer."""
    if args.run:
        return run_rerun(args)
    return run_edit(args)


def _edit_args(p: argparse.ArgumentParser) -> None:
    _rerun_args(p)
    p.add_argument("--run", action="store_true",
                   help="send the edited prompt to the model and store its answer too")


def run_regenerate(args: argparse.Namespace) -> int:
    return _run_model(args, _checked("regenerate", lambda s, a, p, o: ops.regenerate(
        s, a.conversation, a.message, p, o)))


# --- keys -----------------------------------------------------------------------------------


def _keys_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=("status", "set", "delete"))
    p.add_argument("provider", nargs="?", choices=PROVIDER_KINDS,
                   help="the provider whose key to set or delete")
    p.add_argument("--encrypted-file", action="store_true",
                   help="set: keep the key in an encrypted file beside the settings (for a "
                        "machine without a keyring); asks for a passphrase, which "
                        f"${keyfile.PASSPHRASE_VAR} must hold when the key is used")


def _read_key(provider: str) -> str:
    if sys.stdin.isatty():
        return getpass.getpass(f"{provider} API key (input hidden): ")
    return sys.stdin.readline().strip()


def _read_passphrase() -> str:
    """From $CONVO_KEYS_PASSPHRASE, else asked twice on the terminal (never on argv)."""
    env = os.environ.get(keyfile.PASSPHRASE_VAR)
    if env:
        return env
    if not sys.stdin.isatty():
        raise KeyStoreError(f"no passphrase: set ${keyfile.PASSPHRASE_VAR} or run this in a "
                            "terminal")
    first = getpass.getpass("passphrase for the encrypted key file (input hidden): ")
    if getpass.getpass("the same passphrase again: ") != first:
        raise KeyStoreError("the two passphrases differ; nothing was stored")
    return first


def run_keys(args: argparse.Namespace) -> int:
    if args.action != "status" and not args.provider:
        print(f"convo: error: 'keys {args.action}' needs a provider "
              f"({', '.join(PROVIDER_KINDS)})", file=sys.stderr)
        return EXIT_ERROR
    try:
        if args.action == "set":
            key = _read_key(args.provider)
            phrase = _read_passphrase() if args.encrypted_file else None
            status = set_key(args.provider, key, phrase)
            print(status.line())
            if args.encrypted_file:
                print(f"stored encrypted in {keyfile.key_file_path()}; set "
                      f"${keyfile.PASSPHRASE_VAR} where the key is to be used", file=sys.stderr)
        elif args.action == "delete":
            print(delete_key(args.provider).line())
        else:
            _print_status(args)
    except KeyStoreError as e:
        print(f"convo: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    return 0


def _print_status(args: argparse.Namespace) -> None:
    usable, backend, note = backend_state()
    statuses = [key_status(k) for k in PROVIDER_KINDS]
    head = f"keyring: {backend}" + ("" if usable else f" — {note}")
    emit(args, {"keyring_available": usable, "backend": backend, "note": note,
                "providers": [s.to_dict() for s in statuses]},
         [head, *(s.line() for s in statuses)])


COMMANDS: list[Command] = [
    Command("edit", "an edited sibling of prompt MSG, made the tip (--run: and its answer)",
            _edit_args, run_edit_or_rerun, json=True),
    Command("send", "send a prompt on the active path and store the streamed answer",
            _send_args, run_send, json=True),
    Command("rerun", "edit prompt MSG into a sibling, run it, keep the old answer",
            _rerun_args, run_rerun, json=True),
    Command("regenerate", "a new answer to the prompt of MSG, beside the old one",
            _regenerate_args, run_regenerate, json=True),
    Command("keys", "API keys: status, set PROVIDER (reads stdin), delete PROVIDER",
            _keys_args, run_keys, json=True),
]
