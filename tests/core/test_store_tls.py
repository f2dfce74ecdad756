"""A Qdrant server over TLS (the stand-in of tests/qdrant_standin.py with a certificate
made here): an unknown CA is refused with the setting to use, and trusted through
``qdrant_ca_file``."""

from __future__ import annotations

import datetime as dt
import ipaddress
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from docent.core.config import Settings, validate_change
from docent.core.errors import SettingsError, StoreUnavailable
from docent.core.store import open_store
from docent.core.store_server import ServerOptions
from qdrant_standin import QdrantStandin


def _cert(
    subject: str,
    key: ec.EllipticCurvePrivateKey,
    issuer: x509.Name | None,
    signer: ec.EllipticCurvePrivateKey,
    ca: bool,
) -> x509.Certificate:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    now = dt.datetime.now(dt.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer or name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if not ca:
        san = x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))])
        builder = builder.add_extension(san, critical=False)
    return builder.sign(signer, hashes.SHA256())


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[QdrantStandin, Path]]:
    """A stand-in on https://127.0.0.1 whose certificate a CA made here signed; the CA's
    PEM file."""
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca = _cert("Docent test CA", ca_key, None, ca_key, ca=True)
    cert = _cert("127.0.0.1", key, ca.subject, ca_key, ca=False)
    pem = serialization.Encoding.PEM
    (tmp_path / "ca.pem").write_bytes(ca.public_bytes(pem))
    (tmp_path / "server.pem").write_bytes(cert.public_bytes(pem))
    (tmp_path / "server.key").write_bytes(
        key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(tmp_path / "server.pem", tmp_path / "server.key")
    standin = QdrantStandin(tls=ctx).start()
    try:
        yield standin, tmp_path / "ca.pem"
    finally:
        standin.stop()


def test_an_unknown_ca_is_refused_and_the_setting_named(
    tls_server: tuple[QdrantStandin, Path],
) -> None:
    standin, _ = tls_server
    assert standin.url.startswith("https://")
    with pytest.raises(StoreUnavailable) as err:
        open_store(server=ServerOptions(url=standin.url, timeout=5))
    msg = str(err.value)
    assert "has a TLS certificate this machine does not trust" in msg
    assert "qdrant_ca_file" in msg
    assert not standin.requests, "a request went to a server that was not trusted"


def test_the_ca_file_makes_the_server_trusted_with_its_key(
    tls_server: tuple[QdrantStandin, Path],
) -> None:
    standin, ca = tls_server
    standin.api_key = "over-tls"
    settings = validate_change(
        Settings(), qdrant_url=standin.url, qdrant_api_key="over-tls", qdrant_ca_file=str(ca)
    )
    store = open_store(server=ServerOptions.of(settings))
    try:
        assert store.count_chunks() == 0 and store.count_documents() == 0
    finally:
        store.close()
    assert standin.requests, "nothing reached the server"


def test_a_ca_file_written_with_a_tilde_is_the_one_used(
    tls_server: tuple[QdrantStandin, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``qdrant_ca_file = "~/ca.pem"`` passed the settings' check (it expands ``~``), but
    the connection gave ssl the raw string: every command ended in "FileNotFoundError:
    [Errno 2] No such file or directory", a traceback naming no file."""
    standin, ca = tls_server
    monkeypatch.setenv("HOME", str(ca.parent))
    settings = validate_change(Settings(), qdrant_url=standin.url, qdrant_ca_file="~/ca.pem")
    store = open_store(server=ServerOptions.of(settings))
    try:
        assert store.count_chunks() == 0
    finally:
        store.close()
    assert standin.requests, "nothing reached the server"
    ca.write_text("-----BEGIN CERTIFICATE-----\nnot one\n")  # not PEM: ssl.SSLError
    with pytest.raises(SettingsError) as err:
        open_store(server=ServerOptions.of(settings))
    assert str(ca) in err.value.problems["qdrant_ca_file"]
