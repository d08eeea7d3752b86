"""The OAuth signing key and the encrypted store of sign-in state.

The key signs the tokens this server issues and, through a second derivation, encrypts
what it stores (client registrations, users' GitHub tokens). Unset, it is generated once
and kept in the state directory with mode 0600; it is never logged."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from cryptography.fernet import Fernet
from fastmcp.server.auth.jwt_issuer import derive_jwt_key
from key_value.aio.protocols import AsyncKeyValue
from key_value.aio.stores.filetree import (
    FileTreeStore,
    FileTreeV1CollectionSanitizationStrategy,
    FileTreeV1KeySanitizationStrategy,
)
from key_value.aio.wrappers.encryption import FernetEncryptionWrapper

from github_mcp.config import Settings
from github_mcp.monitoring.observability import register_secret

KEY_FILE = "oauth-signing-key"
STORE_DIR = "oauth-store"


def signing_key(settings: Settings) -> bytes:
    """The 32-byte HS256 key (urlsafe base64, as fastmcp's issuer takes it)."""
    if settings.oauth_signing_key is not None:
        given = settings.oauth_signing_key.get_secret_value()
        register_secret(given)
        # an operator's value may be a passphrase: stretch it
        return derive_jwt_key(low_entropy_material=given, salt="github-mcp-oauth-signing")
    material = _load_or_create(Path(settings.state_dir) / KEY_FILE)
    return derive_jwt_key(high_entropy_material=material, salt="github-mcp-oauth-signing")


def _load_or_create(path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        material = path.read_text().strip()
    except FileNotFoundError:
        material = ""
    if not material:
        material = secrets.token_urlsafe(48)
        # O_EXCL: two servers starting together keep whichever key was written first
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            material = path.read_text().strip()
        else:
            with os.fdopen(fd, "w") as handle:
                handle.write(material + "\n")
    register_secret(material)
    return material


def encrypted_store(settings: Settings, key: bytes) -> AsyncKeyValue:
    """A store whose values are Fernet-encrypted: in Redis when replicas share state
    (GITHUB_MCP_STATE_URL), else files under the state directory."""
    storage_key = derive_jwt_key(
        high_entropy_material=key.decode(), salt="github-mcp-oauth-storage"
    )
    backend: AsyncKeyValue
    if settings.state_url is not None and settings.state_url.get_secret_value():
        from key_value.aio.stores.redis import RedisStore

        backend = RedisStore(
            url=settings.state_url.get_secret_value(), default_collection="ghmcp-oauth"
        )
    else:
        directory = Path(settings.state_dir) / STORE_DIR
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        backend = FileTreeStore(
            data_directory=directory,
            key_sanitization_strategy=FileTreeV1KeySanitizationStrategy(directory),
            collection_sanitization_strategy=FileTreeV1CollectionSanitizationStrategy(directory),
        )
    # a value that no longer decrypts (the key changed) reads as absent: users sign in again
    return FernetEncryptionWrapper(
        key_value=backend, fernet=Fernet(key=storage_key), raise_on_decryption_error=False
    )
