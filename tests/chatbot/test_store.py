"""Behaviour of both Store implementations, plus Redis-only TTL, concurrency and round trips.
Every Redis test runs twice: on a single redis-server and on a three-node Redis Cluster."""

from __future__ import annotations

import asyncio
import json
import zlib
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, replace

import pytest
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import Connection
from redis.crc import key_slot

from chatbot.settings import Settings
from chatbot.store.base import (
    INDEX_KEEP,
    SEEN_KEEP,
    VERSION_KEEP,
    Claim,
    Claimed,
    Conflict,
    Doc,
    Entry,
    Seen,
    Store,
    StoreUnavailable,
    Write,
)
from chatbot.store.memory import MemoryStore
from chatbot.store.redis import SHARDS, RedisStore
from tests.clock import Clock

DATA = b'{"k": "v:w"}\x00\xff'
KEEP = 100  # a bound on a set of handled updates, small enough to reach in a test


@dataclass(frozen=True)
class Server:
    """Where a Redis test's stores connect: a single server or a Cluster node."""

    url: str
    cluster: bool

    def store(self, prefix: str) -> RedisStore:
        """A store of another process on the same server."""
        return RedisStore.from_url(self.url, prefix, cluster=self.cluster)


@pytest.fixture(params=["single", "cluster"])
def server(request: pytest.FixtureRequest) -> Server:
    """A single redis-server, then a three-node Redis Cluster."""
    if request.param == "cluster":
        return Server(request.getfixturevalue("redis_cluster_url"), True)
    return Server(request.getfixturevalue("redis_url"), False)


@pytest.fixture
async def redis_store(server: Server, redis_prefix: str) -> AsyncIterator[RedisStore]:
    """A RedisStore under this test's own prefix (on both kinds of server)."""
    store = server.store(redis_prefix)
    yield store
    await store.close()


@pytest.fixture
async def redis_client(server: Server) -> AsyncIterator[aioredis.Redis | RedisCluster]:
    """A raw client on the same server, for inspecting what a store wrote."""
    client = (
        RedisCluster.from_url(server.url) if server.cluster else aioredis.Redis.from_url(server.url)
    )
    yield client
    await client.aclose()


@pytest.fixture(params=["memory", "single", "cluster"])
async def store(request: pytest.FixtureRequest, redis_prefix: str) -> AsyncIterator[Store]:
    """Each behavioural test runs on the in-process store, a redis-server and a Cluster."""
    if request.param == "memory":
        yield MemoryStore()
        return
    cluster = request.param == "cluster"
    url = request.getfixturevalue("redis_cluster_url" if cluster else "redis_url")
    redis_store = Server(url, cluster).store(redis_prefix)
    yield redis_store
    await redis_store.close()


async def test_load_missing_is_none(store: Store) -> None:
    assert await store.load("nope") is None


async def test_save_creates_version_one_and_counts_up(store: Store) -> None:
    assert await store.save("g", DATA, 0, None) == 1
    doc = await store.load("g")
    assert doc is not None
    assert (doc.version, doc.data) == (1, DATA)
    assert await store.save("g", b"two", 1, 60) == 2
    doc = await store.load("g")
    assert doc is not None
    assert (doc.version, doc.data) == (2, b"two")


async def test_empty_data_round_trips(store: Store) -> None:
    await store.save("g", b"", 0, None)
    doc = await store.load("g")
    assert doc is not None
    assert (doc.version, doc.data) == (1, b"")


@pytest.mark.parametrize("stale", [0, 1, 3])
async def test_stale_save_conflicts_and_changes_nothing(store: Store, stale: int) -> None:
    await store.save("g", b"one", 0, None)
    await store.save("g", DATA, 1, None)
    with pytest.raises(Conflict):
        await store.save("g", b"lost", stale, None)
    doc = await store.load("g")
    assert doc is not None
    assert (doc.version, doc.data) == (2, DATA)


async def test_save_expecting_a_missing_document_conflicts(store: Store) -> None:
    with pytest.raises(Conflict):
        await store.save("g", DATA, 1, None)
    assert await store.load("g") is None


async def test_delete(store: Store) -> None:
    await store.save("g", DATA, 0, None)
    await store.save("g", DATA, 1, None)
    with pytest.raises(Conflict):
        await store.delete("g", 1)
    with pytest.raises(Conflict):
        await store.delete("g", 0)
    assert await store.load("g") is not None
    await store.delete("g", 2)
    assert await store.load("g") is None
    await store.delete("g", 0)
    with pytest.raises(Conflict):
        await store.delete("g", 2)
    assert await store.save("g", b"again", 0, None) == 3, "a version is never issued twice"


async def test_versions_never_repeat_across_delete_and_recreate(store: Store) -> None:
    issued: list[int] = []
    for _ in range(3):
        version = await store.save("g", b"new", 0, 60)
        issued.append(version)
        issued.append(await store.save("g", b"next", version, 60))
        await store.delete("g", issued[-1])
    assert issued == sorted(set(issued)), issued


async def test_history_is_capped_newest_first(store: Store) -> None:
    assert await store.history("h", 10) == []
    for i in range(5):
        await store.push_history("h", b"e%d" % i, 3)
    assert await store.history("h", 10) == [b"e4", b"e3", b"e2"]
    assert await store.history("h", 2) == [b"e4", b"e3"]
    assert await store.history("h", 0) == []
    with pytest.raises(ValueError):
        await store.push_history("h", b"x", 0)


async def test_settings_round_trip(store: Store) -> None:
    assert await store.get_setting("chat:1", "lang") is None
    await store.set_setting("chat:1", "lang", "th")
    await store.set_setting("chat:1", "name", "ไทย 日本")
    await store.set_setting("chat:1", "lang", "ja")
    assert await store.get_setting("chat:1", "lang") == "ja"
    assert await store.get_setting("chat:1", "name") == "ไทย 日本"
    assert await store.get_setting("chat:2", "lang") is None


async def test_first_time(store: Store) -> None:
    assert await store.first_time("update:1", 60) is True
    assert await store.first_time("update:1", 60) is False
    assert await store.first_time("update:2", 60) is True


async def test_an_update_is_marked_handled_by_its_save_or_after(store: Store) -> None:
    claim = Claim("seen:c", "claims:c", "u1", "p1", 60)
    assert await store.claim(claim, "game:c") == Claimed(None, False)
    await store.save("game:c", DATA, 0, 60, seen=Seen("seen:c", "u1", 60))
    found = await store.claim(claim, "game:c")
    assert found.doc is not None and found.doc.data == DATA and found.handled
    with pytest.raises(Conflict):
        await store.save("game:c", DATA, 0, 60, seen=Seen("seen:c", "u2", 60))
    assert not await store.was_seen("seen:c", "u2"), "a refused save marks nothing"
    assert not await store.was_seen("seen:other", "u1")
    await store.mark_seen(Seen("seen:c", "u2", 60))
    assert await store.was_seen("seen:c", "u2")
    with pytest.raises(ValueError, match="owners"):  # a save and its set: one owner
        await store.save("game:d", DATA, 0, 60, seen=Seen("seen:c", "u3", 60))


async def test_handled_updates_are_bounded(store: Store) -> None:
    assert SEEN_KEEP >= 10_000, "far above what a chat sees in DEDUPE_TTL"
    for i in range(KEEP + 10):
        await store.mark_seen(Seen("seen:c", f"u{i}", 60, keep=KEEP))
    remembered = [await store.was_seen("seen:c", f"u{i}") for i in range(KEEP + 10)]
    assert remembered == [False] * 10 + [True] * KEEP, "the newest stay"


async def test_a_handled_update_is_remembered_its_ttl_whatever_the_chat_sees_after(
    store: Store,
) -> None:
    """(1,000 other updates in the chat: a signed copy sent again is still known.)"""
    await store.mark_seen(Seen("seen:c", "first", 60))
    for i in range(1000):
        await store.mark_seen(Seen("seen:c", f"u{i}", 60))
    assert await store.was_seen("seen:c", "first")


async def test_memory_handled_updates_go_their_ttl_after_their_own_mark() -> None:
    clock = Clock(1000.0)
    store = MemoryStore(clock=clock)
    await store.mark_seen(Seen("seen:c", "u1", 10))
    clock.now += 11
    await store.mark_seen(Seen("seen:c", "u2", 10))
    assert not await store.was_seen("seen:c", "u1") and await store.was_seen("seen:c", "u2")


async def test_memory_handled_updates_expire() -> None:
    clock = Clock(1000.0)
    store = MemoryStore(clock=clock)
    await store.mark_seen(Seen("seen:c", "u1", 10))
    clock.now += 9
    await store.mark_seen(Seen("seen:c", "u2", 10))  # refreshes the whole set
    clock.now += 9
    assert await store.was_seen("seen:c", "u1")
    clock.now += 1
    assert not await store.was_seen("seen:c", "u2")


async def test_redis_handled_updates_are_one_capped_set_with_a_ttl(
    redis_store: RedisStore, redis_client: aioredis.Redis | RedisCluster, redis_prefix: str
) -> None:
    for i in range(KEEP + 5):
        await redis_store.mark_seen(Seen("seen:c", f"u{i}", 60, keep=KEEP))
    await redis_store.save("game:c", DATA, 0, 60, seen=Seen("seen:c", "last", 60, keep=KEEP))
    key = redis_store.name("seen:c")
    assert await redis_client.zcard(key) == KEEP
    assert 0 < await redis_client.ttl(key) <= 60
    assert await redis_store.was_seen("seen:c", "last")


async def test_redis_handled_updates_older_than_their_ttl_go(
    redis_store: RedisStore, redis_client: aioredis.Redis | RedisCluster
) -> None:
    key = redis_store.name("seen:c")
    now_ms = int((await redis_store.server_time() or 0) * 1000)
    await redis_client.zadd(key, {"old": now_ms - 61_000, "young": now_ms - 59_000})
    await redis_store.mark_seen(Seen("seen:c", "new", 60))
    assert not await redis_store.was_seen("seen:c", "old")
    assert await redis_store.was_seen("seen:c", "young") and await redis_store.was_seen(
        "seen:c", "new"
    )


async def test_deadlines(store: Store) -> None:
    assert await store.due(1e12, 10) == []
    await store.set_deadline("a", 100.0)
    await store.set_deadline("b", 50.5)
    await store.set_deadline("c", 200.0)
    await store.set_deadline("d", 100.0)
    assert await store.due(150.0, 10) == ["b", "a", "d"]
    assert await store.due(150.0, 10) == ["b", "a", "d"]  # due members stay until cleared
    assert await store.due(150.0, 1) == ["b"]
    assert await store.due(50.5, 10) == ["b"]
    assert await store.due(50.4, 10) == []
    assert await store.due(150.0, 0) == []
    await store.set_deadline("a", 300.0)
    await store.clear_deadline("b")
    await store.clear_deadline("never-set")
    assert await store.due(150.0, 10) == ["d"]
    assert await store.due(1000.0, 10) == ["d", "c", "a"]


async def test_memory_ttl_set_refreshed_and_removed() -> None:
    clock = Clock(1000.0)
    store = MemoryStore(clock=clock)
    await store.save("g", DATA, 0, 10)
    clock.now += 9
    assert await store.load("g") is not None
    await store.save("g", DATA, 1, 10)
    clock.now += 9
    assert await store.load("g") is not None
    clock.now += 1
    assert await store.load("g") is None
    with pytest.raises(Conflict):
        await store.save("g", DATA, 2, 10)
    assert await store.save("g", DATA, 0, 10) == 3, "the expired versions are not issued again"
    await store.save("g", DATA, 3, None)
    clock.now += 1e9
    doc = await store.load("g")
    assert doc is not None
    assert doc.version == 4


async def test_memory_settings_and_history_expire_unless_refreshed() -> None:
    clock = Clock(1000.0)
    store = MemoryStore(clock=clock)
    await store.set_setting("user:1", "lang", "th", 10)
    await store.push_history("h", b"e", 5, 10)
    await store.set_setting("chat:1", "lang", "ja")  # no ttl: kept
    clock.now += 9
    assert await store.get_setting("user:1", "lang", refresh=10) == "th"
    clock.now += 9
    assert await store.get_setting("user:1", "lang") == "th", "refreshed by its use"
    assert await store.history("h", 5) == []
    clock.now += 1
    assert await store.get_setting("user:1", "lang") is None
    assert await store.get_setting("chat:1", "lang") == "ja"


async def test_memory_first_time_expires() -> None:
    clock = Clock(1000.0)
    store = MemoryStore(clock=clock)
    assert await store.first_time("u", 5)
    clock.now += 4.9
    assert not await store.first_time("u", 5)
    clock.now += 0.1
    assert await store.first_time("u", 5)


async def test_redis_ttl_set_refreshed_and_removed(
    redis_store: RedisStore, redis_client: aioredis.Redis | RedisCluster, redis_prefix: str
) -> None:
    key = redis_store.name("g")
    await redis_store.save("g", DATA, 0, 100)
    assert 99_000 < await redis_client.pttl(key) <= 100_000
    await redis_client.pexpire(key, 5_000)  # as if 95 s had passed
    await redis_store.save("g", DATA, 1, 100)
    assert 99_000 < await redis_client.pttl(key) <= 100_000
    await redis_store.save("g", DATA, 2, None)
    assert await redis_client.pttl(key) == -1
    await redis_store.save("g", DATA, 3, 100)
    await redis_client.pexpire(key, 1)
    await asyncio.sleep(0.05)
    assert await redis_store.load("g") is None
    with pytest.raises(Conflict):
        await redis_store.delete("g", 4)


async def test_redis_settings_and_history_get_ttls(
    redis_store: RedisStore, redis_client: aioredis.Redis | RedisCluster, redis_prefix: str
) -> None:
    await redis_store.set_setting("user:1", "lang", "th", 100)
    await redis_store.push_history("h", b"e", 5, 200)
    assert 98 < await redis_client.ttl(redis_store.name("user:1")) <= 100
    assert 198 < await redis_client.ttl(redis_store.name("h")) <= 200
    await redis_client.expire(redis_store.name("user:1"), 5)
    assert await redis_store.get_setting("user:1", "lang", refresh=100) == "th"
    assert 98 < await redis_client.ttl(redis_store.name("user:1")) <= 100
    assert await redis_store.get_setting("user:2", "lang", refresh=100) is None
    assert await redis_client.exists(redis_store.name("user:2")) == 0


async def test_redis_keys_are_prefixed_and_a_chat_shares_one_slot(
    redis_store: RedisStore,
    redis_client: aioredis.Redis | RedisCluster,
    redis_prefix: str,
    server: Server,
) -> None:
    await redis_store.save("game:c", DATA, 0, None, 5.0, Seen("seen:c", "u1", 60))
    await redis_store.push_history("hist:c", b"e", 5)
    await redis_store.set_setting("chat:c", "lang", "en")
    assert await redis_store.first_time("again:c", 60)
    await redis_store.set_deadline("game:d", 1.0)
    keys = sorted([k.decode() async for k in redis_client.scan_iter(match=redis_prefix + "*")])
    names = ["game:c", "seen:c", "hist:c", "chat:c", "again:c"]
    expected = {redis_store.name(k) for k in names} | {redis_store._fields("game:c")}
    expected |= {redis_store.index("game:c"), redis_store.index("game:d")}
    assert keys == sorted(expected)
    assert 0 < await redis_client.ttl(redis_store.name("again:c")) <= 60
    if server.cluster:  # a chat's keys and its deadline index: one tag, one slot
        tag = f"{{s{zlib.crc32(b'c') % SHARDS}}}"
        assert all(k.startswith(redis_prefix + tag) for k in keys if k.endswith(":c")), keys
        assert redis_store.index("game:c") == redis_prefix + tag + "deadlines"
        together = [redis_store.name(k) for k in names] + [redis_store._fields("game:c")]
        slots = {key_slot(k.encode()) for k in together}
        assert slots == {key_slot(redis_store.index("game:c").encode())}
    else:  # the layout of earlier versions: nothing to migrate
        assert redis_store.name("game:c") == redis_prefix + "game:c"
        assert redis_store.index("game:c") == redis_prefix + "deadlines"
    other = server.store(redis_prefix + "other:")
    try:
        assert await other.load("game:c") is None
        assert await other.due(10.0, 10) == []
    finally:
        await other.close()


async def test_redis_version_counter_outlives_the_document(
    redis_store: RedisStore, redis_client: aioredis.Redis | RedisCluster, redis_prefix: str
) -> None:
    await redis_store.save("g", DATA, 0, 100)
    slack = 30  # seconds a loaded machine may take between a write and the look at its TTL
    assert await redis_client.ttl(redis_store._fields("g")) > 100 + VERSION_KEEP - slack
    await redis_client.delete(redis_store.name("g"))  # as if it had expired
    assert await redis_store.save("g", DATA, 0, 100) == 2
    await redis_store.delete("g", 2)
    assert VERSION_KEEP - slack < await redis_client.ttl(redis_store._fields("g")) <= VERSION_KEEP
    await redis_client.delete(redis_store._fields("g"))  # a lost counter: versions go on
    await redis_store.save("g", DATA, 0, 100)
    assert await redis_store.save("g", DATA, 1, 100) == 2
    await redis_client.delete(redis_store._fields("g"))
    assert await redis_store.save("g", DATA, 2, 100) == 3


async def test_redis_a_counter_in_a_key_of_its_own_is_folded_in(
    redis_store: RedisStore, redis_client: aioredis.Redis | RedisCluster
) -> None:
    """A version counter written by an older version (a key of its own) still counts: the next
    document is past it, and the key goes."""
    legacy = redis_store._legacy_counter("g")
    await redis_client.set(legacy, 41)
    assert await redis_store.save("g", DATA, 0, 100) == 42
    assert await redis_client.exists(legacy) == 0
    await redis_store.set_field("g", "table", "7")
    await redis_store.delete("g", 42)
    assert await redis_store.save("g", DATA, 0, 100) == 43
    doc = await redis_store.load("g")
    assert doc is not None and doc.fields == {}  # the counter is no field of the document


async def test_redis_a_paused_writer_cannot_overwrite_a_recreated_document(
    redis_store: RedisStore, server: Server, redis_prefix: str
) -> None:
    """Writer A loads the game, pauses; B deletes it and opens a new one; A's save fails."""
    other = server.store(redis_prefix)  # another process
    try:
        await redis_store.save("g", b"old game", 0, 60)
        loaded = await redis_store.load("g")
        assert loaded is not None
        await other.delete("g", loaded.version)
        await other.save("g", b"new lobby", 0, 60)
        with pytest.raises(Conflict):
            await redis_store.save("g", b"old game moved", loaded.version, 60)
        doc = await other.load("g")
        assert doc is not None and doc.data == b"new lobby"
        racers = await asyncio.gather(
            redis_store.save("g", b"a", loaded.version, 60),
            other.save("g", b"b", doc.version, 60),
            return_exceptions=True,
        )
        assert isinstance(racers[0], Conflict) and racers[1] == doc.version + 1
    finally:
        await other.close()


async def test_redis_concurrent_increments_are_exact(
    redis_store: RedisStore, server: Server, redis_prefix: str
) -> None:
    tasks_count, rounds = 50, 4
    second = server.store(redis_prefix)  # another process's connection pool
    versions: list[int] = []
    conflicts = 0

    async def increment(store: Store) -> int:
        """Load, add one, save; retry from the load on Conflict. Returns the saved version."""
        nonlocal conflicts
        while True:
            doc = await store.load("counter")
            count = json.loads(doc.data)["n"] if doc else 0
            data = json.dumps({"n": count + 1}).encode()
            try:
                return await store.save("counter", data, doc.version if doc else 0, 600)
            except Conflict:
                conflicts += 1

    async def worker(store: Store) -> None:
        for _ in range(rounds):
            versions.append(await increment(store))

    try:
        await asyncio.gather(
            *(worker(redis_store if i % 2 else second) for i in range(tasks_count))
        )
    finally:
        await second.close()
    doc = await redis_store.load("counter")
    assert doc is not None
    assert json.loads(doc.data) == {"n": tasks_count * rounds}
    assert doc.version == tasks_count * rounds
    assert sorted(versions) == list(range(1, tasks_count * rounds + 1))
    assert conflicts > 0  # the tasks really raced


async def test_redis_load_and_save_are_one_round_trip(
    redis_store: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    await redis_store.delete("g", await redis_store.save("g", DATA, 0, 60))  # loads the scripts
    await redis_store.push_history("warm", b"e", 3)  # (the connections are open)
    sent: list[bytes] = []
    original = Connection.send_packed_command

    async def counting(
        self: Connection, command: bytes | str | Iterable[bytes], check_health: bool = True
    ) -> None:
        assert not isinstance(command, str)
        packet = command if isinstance(command, bytes) else b"".join(command)
        if not any(b"\r\n%s\r\n" % c in packet[:24] for c in (b"HELLO", b"CLIENT")):
            sent.append(packet)  # (not a new connection's greeting)
        await original(self, command, check_health)

    monkeypatch.setattr(Connection, "send_packed_command", counting)
    version = await redis_store.save("g", DATA, 0, 60)
    assert len(sent) == 1 and b"EVALSHA" in sent[0]
    await redis_store.load("g")
    assert len(sent) == 2 and b"GET" in sent[1]
    with pytest.raises(Conflict):
        await redis_store.save("g", DATA, 0, 60)
    await redis_store.delete("g", version)
    assert len(sent) == 4 and b"EVALSHA" in sent[3]
    await redis_store.push_history("h", b"e", 3)
    assert len(sent) == 5 and b"LPUSH" in sent[4] and b"LTRIM" in sent[4]


async def test_redis_client_settings_come_from_the_environment() -> None:
    settings = Settings.from_env(
        {
            "REDIS_URL": "redis://127.0.0.1:1/0",  # nothing listens on port 1
            "REDIS_TIMEOUT": "0.5",
            "REDIS_CONNECT_TIMEOUT": "0.25",
            "REDIS_RETRIES": "4",
            "REDIS_HEALTH_CHECK": "7",
            "REDIS_POOL_SIZE": "5",
        }
    )
    store = RedisStore.from_settings(settings)
    try:
        pool = store._r.connection_pool
        assert isinstance(pool, aioredis.BlockingConnectionPool)
        assert (pool.max_connections, pool.timeout) == (5, 0.5)  # the wait within REDIS_TIMEOUT
        kwargs = pool.connection_kwargs
        # Every command is bounded by the store's deadline, REDIS_TIMEOUT, not by the socket.
        assert (kwargs["socket_timeout"], kwargs["socket_connect_timeout"]) == (None, 0.25)
        assert store._deadline == 0.5
        assert kwargs["retry"].get_retries() == 4
        assert kwargs["health_check_interval"] == 7
        with pytest.raises(StoreUnavailable):
            await store.load("g")
    finally:
        await store.close()
    with pytest.raises(ValueError):
        RedisStore.from_settings(Settings())


def _owned_by_shard(shard: int, count: int, start: int = 0) -> list[str]:
    """`count` game keys whose owners fall in Cluster shard `shard`."""
    keys: list[str] = []
    n = start
    while len(keys) < count:
        if zlib.crc32(f"c{n}".encode()) % SHARDS == shard:
            keys.append(f"game:c{n}")
        n += 1
    return keys


async def test_redis_due_deadlines_are_taken_fairly_from_every_shard(
    redis_store: RedisStore, server: Server
) -> None:
    """50 early deadlines in one index do not hide a later one in another index (on a
    Cluster); on a single server (one index) the earliest come first."""
    crowd = _owned_by_shard(3, 50)
    for i, key in enumerate(crowd):
        await redis_store.set_deadline(key, 10.0 + i)
    (late,) = _owned_by_shard(5, 1)
    await redis_store.set_deadline(late, 100.0)
    due = await redis_store.due(200.0, 50)
    assert len(due) == 50
    if server.cluster:
        assert late in due and due[-1] == late, "earliest first, but every shard gets a turn"
        assert due[:-1] == crowd[:49]
    else:
        assert due == crowd
    assert await redis_store.due(200.0, 1) == [crowd[0]]
    assert await redis_store.due(50.0, 100) == crowd[:41]


async def test_redis_deadline_indexes_expire_and_are_never_shortened(
    redis_store: RedisStore, redis_client: aioredis.Redis | RedisCluster
) -> None:
    index = redis_store.index("game:c")
    await redis_client.zadd(index, {"game:old": 5.0})  # an index written by an older version
    assert await redis_client.ttl(index) == -1
    await redis_store.set_deadline("game:c", 10.0)
    assert INDEX_KEEP - 2 < await redis_client.ttl(index) <= INDEX_KEEP
    long = INDEX_KEEP + 1000  # a document kept longer than INDEX_KEEP: its index too
    await redis_store.save("game:c", DATA, 0, long, deadline=20.0)
    assert long - 2 < await redis_client.ttl(index) <= long
    await redis_store.clear_deadline("game:c")
    await redis_store.save("game:c", DATA, 1, 60, deadline=30.0)
    assert long - 2 < await redis_client.ttl(index) <= long, "not shortened"
    assert await redis_store.due(100.0, 10) == ["game:old", "game:c"]


async def test_a_claim_is_held_until_handled_or_lapsed(store: Store) -> None:
    def claim(process: str, update: str = "u1", ttl: float = 60) -> Claim:
        return Claim("seen:c", "claims:c", update, process, ttl)

    await store.save("game:c", DATA, 0, 60)
    got = await store.claim(claim("p1"), "game:c")
    assert got.doc is not None and got.doc.data == DATA
    assert (got.handled, got.busy) == (False, None), "p1 holds u1 now"
    assert await store.claim(claim("p2")) == Claimed(None, False, "p1")
    assert await store.claim(claim("p1")) == Claimed(None, False), "its own claim again"
    assert await store.claim(claim("p2", "u2")) == Claimed(None, False), "another update"
    await store.mark_seen(Seen("seen:c", "u1", 60))
    got = await store.claim(claim("p2"), "game:c")
    assert got.handled and got.busy is None and got.doc is not None
    assert await store.claim(claim("p3", "u2")) == Claimed(None, False, "p2")


LAPSE = 2.0  # seconds a claim in the test below holds


async def test_redis_a_claim_lapses_and_its_hash_expires(
    redis_store: RedisStore, redis_client: aioredis.Redis | RedisCluster
) -> None:
    """A claim held past its lapse is taken by another process; the hash of claims expires
    with the last one. (LAPSE leaves a loaded machine time for the steps before the sleep.)"""
    claims = [Claim("seen:c", "claims:c", f"u{i}", "p1", LAPSE) for i in range(3)]
    for claim in claims:
        assert (await redis_store.claim(claim)).busy is None
    other = Claim("seen:c", "claims:c", "u0", "p2", LAPSE)
    assert (await redis_store.claim(other)).busy == "p1"
    assert 0 < await redis_client.pttl(redis_store.name("claims:c")) <= LAPSE * 1000
    await asyncio.sleep(LAPSE + 0.1)
    assert (await redis_store.claim(other)).busy is None, "p1's claim lapsed"
    assert await redis_client.hkeys(redis_store.name("claims:c")) == [b"u0"], "lapsed: gone"
    await asyncio.sleep(LAPSE + 0.1)
    assert await redis_client.exists(redis_store.name("claims:c")) == 0
    assert not await redis_client.keys(redis_store.name("claims-at:*")), "expired with it"


async def test_a_save_that_marks_an_update_handled_releases_its_claim(
    redis_store: RedisStore, redis_client: aioredis.Redis | RedisCluster
) -> None:
    """The claims of a busy chat do not pile up until they lapse: a save marking the update
    handled removes its claim (a claim looks at its own update only, however many there are)."""
    claims = [Claim("seen:c", "claims:c", f"u{i}", "p1", 60) for i in range(100)]
    for claim in claims:
        assert (await redis_store.claim(claim)).busy is None
    await redis_store.save("game:c", DATA, 0, 60, seen=Seen("seen:c", "u7", 60, "claims:c"))
    held = await redis_client.hkeys(redis_store.name("claims:c"))
    assert len(held) == 99 and b"u7" not in held
    other = Claim("seen:c", "claims:c", "u7", "p2", 60)
    assert await redis_store.claim(other) == Claimed(None, True), "handled, not busy"
    assert (await redis_store.claim(Claim("seen:c", "claims:c", "u8", "p2", 60))).busy == "p1"


async def test_an_update_recorded_handled_releases_its_claim(store: Store) -> None:
    """Marked handled with the deliveries (`record`), as by a save: its claim goes with it."""
    assert (await store.claim(Claim("seen:c", "claims:c", "u1", "p1", 60))).busy is None
    await store.write_marks([("sent:c", "change", "3")], 60, [Seen("seen:c", "u1", 60, "claims:c")])
    assert await store.get_setting("sent:c", "change") == "3"
    assert await store.claim(Claim("seen:c", "claims:c", "u1", "p2", 60)) == Claimed(None, True)
    released = await store.claim(Claim("seen2:c", "claims:c", "u1", "p2", 60))  # not in seen2
    assert released.busy is None, "p1's claim went with the mark"
    await store.write_marks([], None, [Seen("seen:c", "u2", 60)])  # no claim to release
    assert await store.was_seen("seen:c", "u2")


async def test_memory_a_claim_lapses() -> None:
    clock = Clock(1000.0)
    store = MemoryStore(clock=clock)
    assert (await store.claim(Claim("seen:c", "claims:c", "u", "p1", 5))).busy is None
    clock.now += 4.9
    assert (await store.claim(Claim("seen:c", "claims:c", "u", "p2", 5))).busy == "p1"
    clock.now += 0.1
    assert (await store.claim(Claim("seen:c", "claims:c", "u", "p2", 5))).busy is None


async def test_redis_cluster_mode_comes_from_the_environment(redis_cluster_url: str) -> None:
    assert not Settings.from_env({}).redis_cluster
    assert not Settings.from_env({"REDIS_CLUSTER": "0"}).redis_cluster
    settings = Settings.from_env({"REDIS_URL": redis_cluster_url, "REDIS_CLUSTER": "1"})
    with pytest.raises(ValueError, match="REDIS_CLUSTER"):
        Settings.from_env({"REDIS_CLUSTER": "cluster"})
    store = RedisStore.from_settings(settings)
    try:
        assert isinstance(store._r, RedisCluster)
        assert store.name("game:c").startswith("egobot:{s")
        await store.save("game:c", DATA, 0, 60)
        doc = await store.load("game:c")
        assert doc is not None and doc.data == DATA
        await store.delete("game:c", doc.version)
    finally:
        await store.close()


async def test_redis_long_documents_are_stored_deflated_and_read_back(
    redis_store: RedisStore,
) -> None:
    long = b'{"seats": [' + b'{"name": "P", "language": "th"}, ' * 40 + b"{}]}"
    nul = b"\x00z looks deflated but is not"
    for key, data in (("game:long", long), ("game:nul", nul), ("game:short", DATA)):
        version = await redis_store.save(key, data, 0, 60)
        doc = await redis_store.load(key)
        assert doc is not None and (doc.version, doc.data) == (version, data)
    stored = await redis_store._r.get(redis_store.name("game:long"))
    assert stored.startswith(b"1:\x00z") and len(stored) < len(long) / 4
    assert await redis_store._r.get(redis_store.name("game:short")) == b"1:" + DATA


async def test_redis_a_document_written_before_deflating_still_loads(
    redis_store: RedisStore,
) -> None:
    old = b'{"seats": [' + b'{"name": "P"}, ' * 30 + b"{}]}"
    await redis_store._r.set(redis_store.name("game:old"), b"7:" + old)
    doc = await redis_store.load("game:old")
    assert doc is not None and (doc.version, doc.data) == (7, old)


# --- commits of several documents at once ---------------------------------------------------


async def test_a_commit_writes_and_deletes_together_or_not_at_all(store: Store) -> None:
    await store.save("game:c", b"over", 0, 60, deadline=5.0)
    entry = Entry("hist:c", b"result", 5, 60)
    stale = [Write("game:c", 1, None), Write("stats:c", 3, b"counted", 60)]
    with pytest.raises(Conflict):
        await store.commit(stale, [entry])
    assert await store.load("game:c") == Doc(1, b"over"), "a stale version: nothing changed"
    assert await store.load("stats:c") is None and await store.history("hist:c", 5) == []
    versions = await store.commit(
        [Write("game:c", 1, None), Write("stats:c", 0, b"one", 60)], [entry]
    )
    assert versions == [0, 1]
    assert await store.load("game:c") is None and await store.due(10.0, 10) == []
    assert await store.load("stats:c") == Doc(1, b"one")
    assert await store.history("hist:c", 5) == [b"result"]
    with pytest.raises(Conflict):  # the same commit again (a second finisher): refused
        await store.commit([Write("game:c", 1, None), Write("stats:c", 0, b"one", 60)], [entry])
    assert await store.history("hist:c", 5) == [b"result"]
    assert await store.commit([Write("stats:c", 1, b"two", 60)]) == [2]
    assert await store.save("game:c", b"new", 0, 60) == 2, "a version is never issued twice"


async def test_a_commit_stays_with_one_owner(store: Store) -> None:
    with pytest.raises(ValueError, match="owners"):
        await store.commit([Write("game:a", 0, b"x")], [Entry("hist:b", b"e", 5)])


async def test_a_load_may_refresh_the_time_to_live() -> None:
    now = [0.0]
    store = MemoryStore(clock=lambda: now[0])
    await store.save("stats:c", b"x", 0, 100)
    now[0] = 90.0
    assert await store.load("stats:c", refresh=100) is not None
    now[0] = 180.0
    assert await store.load("stats:c") is not None, "the read kept it"
    now[0] = 191.0
    assert await store.load("stats:c") is None


async def test_redis_a_commit_is_one_slot_with_ttls(
    redis_store: RedisStore, redis_client: aioredis.Redis | RedisCluster, server: Server
) -> None:
    await redis_store.commit([Write("stats:c", 0, b"x", 100)], [Entry("hist:c", b"e", 5, 200)])
    assert 98 < await redis_client.ttl(redis_store.name("stats:c")) <= 100
    assert 198 < await redis_client.ttl(redis_store.name("hist:c")) <= 200
    await redis_client.expire(redis_store.name("stats:c"), 5)
    assert await redis_store.load("stats:c", refresh=100) == Doc(1, b"x")
    assert 98 < await redis_client.ttl(redis_store.name("stats:c")) <= 100
    if server.cluster:  # the chat's standings, history and game: one tag, one slot
        names = ("stats:c", "hist:c", "game:c")
        assert len({key_slot(redis_store.name(k).encode()) for k in names}) == 1


async def test_fields_live_beside_a_document_and_die_with_it(store: Store) -> None:
    assert await store.set_field("game:c", "lobby", "1") is None
    await store.save("game:c", DATA, 0, 60)
    assert await store.load("game:c") == Doc(1, DATA), "nothing was set without a document"
    assert await store.set_field("game:c", "lobby", "1") is None
    assert await store.set_field("game:c", "lobby", "2") == "1", "the value it replaced"
    assert await store.set_field("game:c", "lobby", "3", replace=False) == "2"
    assert await store.set_field("game:c", "table:9", "ไทย", replace=False) is None
    assert await store.load("game:c") == Doc(1, DATA, {"lobby": "2", "table:9": "ไทย"})
    claimed = await store.claim(Claim("seen:c", "claims:c", "u1", "p1", 60), "game:c")
    assert claimed.doc == Doc(1, DATA, {"lobby": "2", "table:9": "ไทย"}), "read with the claim"
    assert await store.save("game:c", b"two", 1, 60) == 2, "a field is no new version"
    assert (await store.load("game:c") or Doc(0, b"")).fields == {"lobby": "2", "table:9": "ไทย"}
    await store.delete("game:c", 2)
    await store.save("game:c", DATA, 0, 60)
    assert await store.load("game:c") == Doc(3, DATA), "a document created anew has none"
    await store.set_field("game:c", "lobby", "4")
    await store.commit([Write("game:c", 3, None)])
    await store.commit([Write("game:c", 0, DATA)])
    assert await store.load("game:c") == Doc(4, DATA), "a commit's delete took them too"
    await store.set_field("game:c", "lobby", "5")
    await store.commit([Write("game:c", 4, b"five")])
    assert await store.load("game:c") == Doc(5, b"five", {"lobby": "5"})


async def test_memory_fields_expire_with_their_document() -> None:
    now = [0.0]
    store = MemoryStore(clock=lambda: now[0])
    await store.save("game:c", DATA, 0, 100)
    await store.set_field("game:c", "lobby", "1")
    now[0] = 101.0
    assert await store.load("game:c") is None
    await store.save("game:c", DATA, 0, 100)
    assert await store.load("game:c") == Doc(2, DATA)


async def test_redis_fields_share_the_documents_slot_and_outlive_it_by_the_counters_time(
    redis_store: RedisStore, redis_client: aioredis.Redis | RedisCluster, server: Server
) -> None:
    """The hash beside a document holds its fields and its version counter: it lives as long
    as the document and `VERSION_KEEP` more; a delete leaves the counter alone in it."""
    fields, keep = redis_store._fields("game:c"), VERSION_KEEP
    await redis_store.save("game:c", DATA, 0, 100)
    await redis_client.expire(redis_store.name("game:c"), 50)  # as if 50 s had passed
    await redis_client.expire(fields, 50)  # (as an older version kept it)
    await redis_store.set_field("game:c", "lobby", "1")
    assert (48 + keep) * 1000 < await redis_client.pttl(fields) <= (50 + keep) * 1000
    if server.cluster:
        assert key_slot(fields.encode()) == key_slot(redis_store.name("game:c").encode())
    await redis_store.save("game:c", DATA, 1, 100)
    assert 98 + keep < await redis_client.ttl(fields) <= 100 + keep, "a save keeps them"
    await redis_store.load("game:c", refresh=200)
    assert 198 + keep < await redis_client.ttl(fields) <= 200 + keep, "a refreshing load too"
    await redis_store.save("game:c", DATA, 2, None)
    assert await redis_client.ttl(fields) == -1
    await redis_store.delete("game:c", 3)
    assert await redis_client.hkeys(fields) == [b"#version"]
    assert keep - 30 < await redis_client.ttl(fields) <= keep


async def test_a_tagged_list_drops_by_tag_and_is_taken_whole(store: Store) -> None:
    assert await store.take("parked:c") == []
    await store.append("parked:c", b"table 1", 5, 60, tag="c/table")
    await store.append("parked:c", b"Ann played\n7", 5, 60)
    await store.append("parked:c", b"table 2", 5, 60, tag="c/table", drop="c/table")
    await store.append("parked:c", b"news", 5, 60, drop="c/table")
    assert await store.take("parked:c") == [b"Ann played\n7", b"news"], "oldest first"
    assert await store.take("parked:c") == [], "taken once"
    for i in range(7):
        await store.append("parked:c", b"%d" % i, 3, 60)
    assert await store.take("parked:c") == [b"4", b"5", b"6"], "the newest stay"
    with pytest.raises(ValueError):
        await store.append("parked:c", b"x", 3, 60, tag="two\nlines")


async def test_redis_a_tagged_list_expires_and_shares_the_chats_slot(
    redis_store: RedisStore, redis_client: aioredis.Redis | RedisCluster, server: Server
) -> None:
    await redis_store.append("parked:c", b"x", 5, 100)
    assert 98 < await redis_client.ttl(redis_store.name("parked:c")) <= 100
    if server.cluster:
        names = ("parked:c", "game:c")
        assert len({key_slot(redis_store.name(k).encode()) for k in names}) == 1
    got = await asyncio.gather(*(redis_store.take("parked:c") for _ in range(4)))
    assert sorted(got) == [[], [], [], [b"x"]], "one taker gets it"


async def test_redis_scripts_survive_a_flushed_cache_and_connections_closed_by_redis(
    redis_store: RedisStore, redis_client: aioredis.Redis | RedisCluster, server: Server
) -> None:
    """A Redis restarted or flushed has forgotten the scripts, and has closed the store's
    connections: the next calls load the scripts again and open new connections."""
    version = await redis_store.save("g", DATA, 0, 60)
    await redis_client.script_flush()
    version = await redis_store.save("g", DATA, version, 60)
    assert (await redis_store.load("g")) == Doc(version, DATA)
    if not server.cluster:
        killed = await redis_client.execute_command("CLIENT", "KILL", "TYPE", "normal")
        assert killed >= 2  # ours and the store's
        assert await redis_store.save("g", DATA, version, 60) == version + 1
        assert await redis_store.get_setting("nothing", "here") is None


async def test_redis_after_a_restart_every_pooled_connection_is_opened_anew(
    redis_url: str, redis_prefix: str
) -> None:
    """Redis closed every connection the store had (a restart): the first call that finds its
    connection broken opens a new one and drops the other idle ones, so no later call fails
    on one of them, even with a single retry."""
    settings = replace(Settings(redis_url=redis_url), redis_retries=1)
    store = RedisStore.from_settings(settings, redis_prefix)
    killer = aioredis.Redis.from_url(redis_url)
    try:
        await asyncio.gather(*(store.save(f"g{n}", DATA, 0, 60) for n in range(5)))
        idle = store._r.connection_pool._available_connections  # type: ignore[union-attr]
        assert len(idle) == 5
        for conn in idle:
            host, port = conn._writer.get_extra_info("sockname")[:2]  # type: ignore[union-attr]
            await killer.execute_command("CLIENT", "KILL", "ADDR", f"{host}:{port}")
        for n in range(5):
            assert await store.load(f"g{n}") == Doc(1, DATA)
    finally:
        await store.close()
        await killer.aclose()


async def test_redis_a_deleted_documents_version_is_never_issued_again(
    redis_store: RedisStore, redis_client: aioredis.Redis | RedisCluster
) -> None:
    """The delete keeps the deleted version in the counter, even where the counter had been
    lost meanwhile (an evicted field, an older version's counter key expired)."""
    for version in range(3):
        await redis_store.save("g", DATA, version, 60)
    await redis_client.hdel(redis_store._fields("g"), "#version")
    await redis_store.delete("g", 3)
    assert await redis_store.save("g", DATA, 0, 60) == 4
    await redis_client.hdel(redis_store._fields("g"), "#version")
    await redis_store.commit([Write("g", 4, None)])
    assert await redis_store.save("g", DATA, 0, 60) == 5


async def test_a_field_may_not_take_the_stores_own_names(store: Store) -> None:
    await store.save("g", DATA, 0, 60)
    with pytest.raises(ValueError, match="#"):
        await store.set_field("g", "#version", "1")


async def test_a_settings_field_can_be_dropped(store: Store) -> None:
    await store.set_setting("user:1", "lang", "th", 60)
    await store.set_setting("user:1", "games", "[]", 60)
    await store.drop_setting("user:1", "lang")
    await store.drop_setting("user:1", "nothing")
    assert await store.get_setting("user:1", "lang") is None
    assert await store.get_setting("user:1", "games") == "[]"
