"""The server backend's failures, against stand-ins made here (tests/qdrant_standin.py):
nothing listening, a server that hangs up or never answers, one that refuses the key,
and the settings that shape a cluster's collections."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from docent.core.config import Settings, validate_change
from docent.core.errors import SettingsError, StoreUnavailable
from docent.core.store import CHUNKS, DOCUMENTS, open_store
from docent.core.store_server import ServerOptions
from qdrant_standin import QdrantStandin, Silent, closed_port, qdrant_standin


@pytest.fixture
def standin() -> Iterator[QdrantStandin]:
    with qdrant_standin() as s:
        yield s


def test_nothing_listening_says_so_and_names_the_setting() -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    with pytest.raises(StoreUnavailable) as err:
        open_store(server=ServerOptions(url=url))
    msg = str(err.value)
    assert url in msg and "cannot be reached" in msg and "refused" in msg.lower()
    assert "qdrant_url" in msg and "open the library" in msg


def test_a_server_that_hangs_up_says_the_connection_dropped() -> None:
    server = Silent(hang_up=True)
    try:
        with pytest.raises(StoreUnavailable, match="dropped the connection"):
            open_store(server=ServerOptions(url=server.url))
    finally:
        server.close()
    assert server.accepted.is_set()


def test_a_server_that_never_answers_times_out_with_the_setting_named() -> None:
    server = Silent()
    try:
        with pytest.raises(StoreUnavailable) as err:
            open_store(server=ServerOptions(url=server.url, timeout=1))
    finally:
        server.close()
    msg = str(err.value)
    assert "did not answer within 1 s (qdrant_timeout)" in msg and "open the library" in msg


def test_a_refused_api_key_is_named_and_never_shown(standin: QdrantStandin) -> None:
    standin.api_key = "right-key"
    with pytest.raises(StoreUnavailable) as err:
        open_store(server=ServerOptions(url=standin.url, api_key="wrong-key"))
    msg = str(err.value)
    assert "refused the API key (HTTP 401)" in msg and "qdrant_api_key" in msg
    assert "wrong-key" not in msg and "right-key" not in msg
    store = open_store(server=ServerOptions(url=standin.url, api_key="right-key"))
    try:
        assert store.count_chunks() == 0
    finally:
        store.close()


def test_new_collections_are_sharded_and_replicated_as_set(standin: QdrantStandin) -> None:
    opts = ServerOptions(url=standin.url, shards=4, replicas=3, write_consistency=2)
    open_store(server=opts).close()
    created = {r.path: r.body for r in standin.requests if r.method == "PUT"}
    for name in (CHUNKS, DOCUMENTS):
        body = created[f"/collections/{name}"]
        assert body["shard_number"] == 4
        assert body["replication_factor"] == 3
        assert body["write_consistency_factor"] == 2
    # Reopening an existing library creates nothing: a collection keeps its layout.
    before = len(standin.requests)
    open_store(server=ServerOptions(url=standin.url, shards=8)).close()
    assert not [
        r for r in standin.requests[before:] if r.method == "PUT" and r.path.count("/") == 2
    ]


def test_a_write_that_fails_says_the_document_is_not_ready(standin: QdrantStandin) -> None:
    from docent.core.models import SparseVec
    from docent.core.store import ChunkPoint, chunk_point_id

    store = open_store(server=ServerOptions(url=standin.url, timeout=1))
    standin.fault, standin.fault_after_writes = "drop", 0
    point = ChunkPoint(chunk_point_id("d", 0), [1.0] + [0.0] * 383, SparseVec([1], [1.0]), {})
    try:
        with pytest.raises(StoreUnavailable) as err:
            store.upsert_chunks([point])
    finally:
        store.close()
    assert "while trying to write chunks" in str(err.value)
    assert "not marked ready" in str(err.value) and "next run" in str(err.value)
    assert standin.points_taken == 0


# Settings ------------------------------------------------------------------------------


def test_server_settings_are_checked_and_each_bad_one_named() -> None:
    with pytest.raises(SettingsError) as err:
        validate_change(
            Settings(),
            qdrant_url="http://qdrant.example.org:6333",
            qdrant_api_key="s3cr3t-key",
            qdrant_timeout=0,
            qdrant_shards=0,
            qdrant_replicas=2,
            qdrant_write_consistency=3,
        )
    problems = err.value.problems
    assert problems["qdrant_api_key"].startswith(
        "would be sent unencrypted to http://qdrant.example.org:6333"
    )
    assert problems["qdrant_timeout"] == "must be at least 1"
    assert problems["qdrant_shards"] == "must be at least 1"
    assert problems["qdrant_write_consistency"].startswith("must be at most qdrant_replicas (2)")
    assert "s3cr3t" not in str(err.value)


def test_a_key_goes_over_http_to_this_machine_and_over_https_anywhere() -> None:
    validate_change(Settings(), qdrant_url="http://127.0.0.1:6333", qdrant_api_key="k")
    validate_change(Settings(), qdrant_url="https://qdrant.example.org", qdrant_api_key="k")


def test_a_ca_file_must_exist_and_go_with_https(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.pem")
    with pytest.raises(SettingsError, match="qdrant_ca_file.*is not a file"):
        validate_change(Settings(), qdrant_url="https://q.example.org", qdrant_ca_file=missing)
    pem = tmp_path / "ca.pem"
    pem.write_text("-----BEGIN CERTIFICATE-----\n")
    with pytest.raises(
        SettingsError, match="qdrant_ca_file.*only used with an https:// server URL"
    ):
        validate_change(Settings(), qdrant_url="http://127.0.0.1:6333", qdrant_ca_file=str(pem))


def test_a_library_on_a_server_not_there_says_where_the_setting_is_and_the_way_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """QA-79: a Qdrant URL saved in Settings, and the window would not start again: it
    named neither the settings file nor how to go back to the embedded store."""
    from docent.core.config import Settings, settings_file
    from docent.core.engine import Engine

    monkeypatch.delenv("DOCENT_QDRANT_URL", raising=False)
    url = f"http://127.0.0.1:{closed_port()}"
    with pytest.raises(StoreUnavailable) as err:
        Engine(Settings(data_dir=str(tmp_path / "home"), qdrant_url=url)).open()
    msg = str(err.value)
    assert "cannot be reached" in msg and f"qdrant_url in {settings_file()}" in msg
    assert msg.endswith("clear it to use the library's own embedded store again.")
    monkeypatch.setenv("DOCENT_QDRANT_URL", url)
    with pytest.raises(StoreUnavailable, match="set by DOCENT_QDRANT_URL: clear it"):
        Engine(Settings(data_dir=str(tmp_path / "home"), qdrant_url=url)).open()
