"""Passwords, session tokens, CSRF tokens and the login rate limit.

* Passwords are hashed with Argon2id (argon2-cffi's defaults, RFC 9106).
* A login creates a random token (32 bytes, URL-safe); the database keeps only its
  SHA-256, so a stolen database holds no usable session. The same token is the
  ``HttpOnly; SameSite=Strict`` session cookie and the ``Authorization: Bearer`` token.
* Each session has its own CSRF token, required by every state-changing request made
  with the cookie (a form field ``csrf`` or the header ``X-CSRF-Token``); a request
  authenticated by a Bearer header needs none (a browser never adds that header by
  itself).
* The login throttle is :mod:`cranfield.service.throttle`.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

SESSION_DAYS = 14
#: Argon2 parameters (argon2-cffi's defaults, RFC 9106's second recommendation, when
#: empty); tests lower them to save time, a stored hash keeps its own.
ARGON2_PARAMETERS: dict = {}
_hasher = None


def _argon2():
    global _hasher
    if _hasher is None:
        from argon2 import PasswordHasher

        _hasher = PasswordHasher(**ARGON2_PARAMETERS)
    return _hasher


def hash_password(password: str) -> str:
    """The Argon2id hash of ``password`` (salt and parameters included)."""
    return _argon2().hash(password)


def verify_password(stored: str, password: str) -> bool:
    """Whether ``password`` matches the ``stored`` Argon2 hash."""
    from argon2.exceptions import InvalidHashError, VerificationError

    try:
        return _argon2().verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def same(a: str, b: str) -> bool:
    """Constant-time comparison."""
    return hmac.compare_digest(
        a.encode("utf-8", "surrogatepass"), b.encode("utf-8", "surrogatepass")
    )


def new_password() -> str:
    """A one-time password: 16 URL-safe characters."""
    return secrets.token_urlsafe(12)
