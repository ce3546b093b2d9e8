"""Where the user name and password of a SPARQL endpoint come from.

In order: the ``auth`` argument (``--auth user:password``), the URL
(``http://user:password@host/sparql``), the environment variable :data:`AUTH_ENV`
(``user:password``), and the ``.netrc`` file (``$NETRC`` or ``~/.netrc``) entry of the
endpoint's host. The password never appears in messages, logs or the manifest; only the
user name and where it came from do.

>>> find_credentials("http://127.0.0.1:1/sparql", ("reader", "secret"), environ={})
Credentials(user='reader', origin='--auth')
>>> find_credentials("http://127.0.0.1:1/sparql", None, environ={AUTH_ENV: "bot:pw"}).origin
'CRM_RAG_AUTH'
"""

from __future__ import annotations

import netrc
import os
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from llama_index_crm.errors import SourceError

AUTH_ENV = "CRM_RAG_AUTH"
"""Environment variable holding ``user:password`` for the endpoint."""
NETRC_ENV = "NETRC"
"""Environment variable naming a ``.netrc`` file other than ``~/.netrc``."""


@dataclass(frozen=True)
class Credentials:
    """A user name and password for HTTP basic or digest authentication.

    Attributes:
        user: The user name.
        password: The password (left out of ``repr``).
        origin: Where they came from: ``--auth``, ``URL``, :data:`AUTH_ENV` or the netrc path.
    """

    user: str
    password: str = field(repr=False)
    origin: str


def split_user_password(text: str, what: str) -> tuple[str, str]:
    """``user:password`` as a pair (the password may hold colons).

    Args:
        text: The ``user:password`` text.
        what: Where it was given, for the error message.

    Raises:
        SourceError: There is no colon, or no user name.
    """
    user, colon, password = text.partition(":")
    if not colon or not user:
        raise SourceError(f"{what} must be user:password, e.g. reader:secret.")
    return user, password


def strip_userinfo(url: str) -> tuple[str, tuple[str, str] | None]:
    """``url`` without ``user:password@``, and the pair it held (percent-decoded)."""
    parts = urllib.parse.urlsplit(url)
    if parts.username is None:
        return url, None
    pair = (urllib.parse.unquote(parts.username), urllib.parse.unquote(parts.password or ""))
    return urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2])), pair


def _from_netrc(url: str, environ: Mapping[str, str]) -> Credentials | None:
    path = Path(environ.get(NETRC_ENV) or Path.home() / ".netrc")
    if not path.is_file():
        return None
    try:
        entry = netrc.netrc(str(path)).authenticators(urllib.parse.urlsplit(url).hostname or "")
    except (netrc.NetrcParseError, OSError) as exc:
        raise SourceError(f"Cannot read {path}: {exc}. Fix the file, or give --auth.") from exc
    if entry is None:
        return None
    login, _, password = entry
    return Credentials(login, password or "", str(path))


def find_credentials(url: str, auth: tuple[str, str] | None, *,
                     environ: Mapping[str, str] | None = None) -> Credentials | None:
    """The credentials for ``url`` (which may hold ``user:password@``), if any.

    Args:
        url: The endpoint URL as given.
        auth: ``(user, password)`` given explicitly; wins over every other origin.
        environ: The environment (``os.environ`` by default).

    Returns:
        The credentials, or ``None`` when no origin has any.

    Raises:
        SourceError: :data:`AUTH_ENV` is not ``user:password``, or the netrc file is
            malformed.
    """
    environ = os.environ if environ is None else environ
    if auth is not None:
        return Credentials(auth[0], auth[1], "--auth")
    _, in_url = strip_userinfo(url)
    if in_url is not None:
        return Credentials(in_url[0], in_url[1], "URL")
    if environ.get(AUTH_ENV):
        user, password = split_user_password(environ[AUTH_ENV], AUTH_ENV)
        return Credentials(user, password, AUTH_ENV)
    return _from_netrc(url, environ)
