"""The YAML text of a cassette: a readable dumper and a safe loader with one-line errors.

The dumper writes what vcrpy's own (safe) loader reads, and makes it readable:
every multi-line string, such as a streamed SSE body or a pretty-printed JSON
request, is a ``|`` literal block, so a recorded stream shows one event per
paragraph and diffs line by line. Strings YAML cannot hold in a block (a
carriage return, a tab, a line with trailing spaces) fall back to a quoted
scalar with escapes, which still round-trips byte for byte; binary bodies (AWS
event streams) are ``!!binary`` base64. Keys are sorted and the pure-Python
emitter is used whatever libyaml is installed, so the same cassette always
gives the same bytes.

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tooltape.cassettes._errors import CassetteError
from tooltape.harness.bounded_reprs import bounded_text
from tooltape.harness.yaml_expansion import expanded_size, expansion_limit
from tooltape.harness.yaml_loader import BoundedSafeLoader, YamlTooLarge

__all__ = ["dump_yaml", "load_yaml"]


class _Dumper(yaml.SafeDumper):
    """SafeDumper that writes multi-line strings as literal blocks and int lists in flow."""


def _represent_str(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    style = "|" if "\n" in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


def _represent_list(dumper: Any, items: Any) -> Any:
    flow = bool(items) and all(isinstance(i, int) and not isinstance(i, bool) for i in items)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", items, flow_style=flow)


_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(list, _represent_list)
_Dumper.add_representer(tuple, _represent_list)


class _Loader(BoundedSafeLoader):
    """Safe loader, merges bounded as they expand, that reads older vcrpy's benign Python tags."""


def _construct_str(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    return loader.construct_scalar(node)  # type: ignore[arg-type]


def _construct_tuple(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    return list(loader.construct_sequence(node))  # type: ignore[arg-type]


_Loader.add_constructor("tag:yaml.org,2002:python/str", _construct_str)
_Loader.add_constructor("tag:yaml.org,2002:python/unicode", _construct_str)
_Loader.add_constructor("tag:yaml.org,2002:python/tuple", _construct_tuple)


def dump_yaml(data: Any) -> str:
    """The YAML text of ``data``: sorted keys, literal blocks, UTF-8 kept readable."""
    text: str = yaml.dump(
        data,
        Dumper=_Dumper,
        allow_unicode=True,
        sort_keys=True,
        default_flow_style=False,
        width=100_000,
    )
    return text


def load_yaml(text: str, path: str | Path | None, *, what: str = "cassette") -> Any:
    """Parse cassette text safely, refusing alias and merge-key bombs, huge integers, deep nesting.

    Raises:
        CassetteError: The text is not YAML, or uses a tag the safe loader refuses
            (the message gives the line and column), or its aliases or merge keys
            expand it far beyond its own size (merges are counted as they are built),
            or it nests too deep or holds an integer too long to read.
    """
    data = _load(text, path, what)
    expanded = expanded_size(data, limit=expansion_limit(text))
    if expanded is None:
        raise CassetteError(
            f"{path or '<' + what + '>'}: not a usable YAML {what}: its aliases (*name) expand "
            f"it to more than {expansion_limit(text):,} nodes and characters from "
            f"{len(text):,} characters of text (an alias bomb?)"
        )
    return data


def _load(text: str, path: str | Path | None, what: str) -> Any:
    try:
        return yaml.load(text, Loader=_Loader)  # a safe loader subclass
    except RecursionError:
        raise CassetteError(
            f"{path or '<' + what + '>'}: not a usable YAML {what}: it nests too deep to read"
        ) from None
    except ValueError as error:  # an integer past Python's int-string conversion limit
        raise CassetteError(
            f"{path or '<' + what + '>'}: not a usable YAML {what}: {bounded_text(str(error))}"
        ) from None
    except YamlTooLarge as error:
        raise CassetteError(
            f"{path or '<' + what + '>'}: not a usable YAML {what}: {error}"
        ) from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = bounded_text((error.problem or error.context or "malformed").strip())
        hint = " (cassettes are read safely: Python object tags are refused)" * ("tag" in problem)
        raise CassetteError(
            f"{path or '<' + what + '>'}: not a valid YAML {what}{at}: {problem}{hint}"
        ) from None
    except yaml.YAMLError as error:
        text_error = bounded_text(" ".join(str(error)[:1000].split()))
        raise CassetteError(
            f"{path or '<' + what + '>'}: not a valid YAML {what}: {text_error}"
        ) from None
