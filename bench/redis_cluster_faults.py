"""How the bot's store on a Redis Cluster reports a node's fault, and whether other chats go on.

Starts a throwaway three-node Redis Cluster (no replicas, append-only files synced at every
write), then with the store's production settings (Settings(): REDIS_TIMEOUT etc. at their
defaults, REDIS_CLUSTER on) prints, for one node frozen (SIGSTOP) and then killed: seconds
until a load of a chat on that node fails with StoreUnavailable, and the slowest load of a
chat on the other nodes meanwhile; then how many of N loads fail right after the node is
restarted on its port.

Usage: python bench/redis_cluster_faults.py [--loads N]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chatbot.settings import Settings
from chatbot.store.base import StoreUnavailable
from chatbot.store.redis import RedisStore

PORTS = (31011, 31012, 31013)  # (their Cluster bus ports are 10000 higher)


def start(port: int, workdir: str) -> subprocess.Popen[bytes]:
    server = shutil.which("redis-server") or sys.exit("redis-server is not on PATH")
    node = Path(workdir) / str(port)
    node.mkdir(exist_ok=True)
    args = [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(node)]
    args += ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"]
    args += ["--appendonly", "yes", "--appendfsync", "always"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    client = redis.Redis(port=port, socket_connect_timeout=0.2)
    for _ in range(100):
        try:
            client.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.05)
    client.close()
    return proc


def cluster_ok() -> bool:
    for port in PORTS:
        client = redis.Redis(port=port, socket_timeout=1)
        try:
            if client.cluster("INFO").get("cluster_state") != "ok":
                return False
        except redis.RedisError:
            return False
        finally:
            client.close()
    return True


def wait_ok() -> None:
    for _ in range(400):
        if cluster_ok():
            return
        time.sleep(0.05)
    sys.exit("the cluster did not reach cluster_state:ok")


def chats_by_node(store: RedisStore) -> dict[int, str]:
    """A chat's game key for each node (the node that holds its slot)."""
    probe = redis.RedisCluster(host="127.0.0.1", port=PORTS[0])
    found: dict[int, str] = {}
    n = 0
    while len(found) < len(PORTS):
        key = f"game:tg:{n}"
        node = probe.get_node_from_key(store.name(key))  # type: ignore[no-untyped-call]
        assert node is not None
        found.setdefault(node.port, key)
        n += 1
    probe.close()
    return found


async def timed_load(store: RedisStore, key: str) -> tuple[float, bool]:
    """Seconds a load took, and whether it failed with StoreUnavailable."""
    started = time.monotonic()
    try:
        await store.load(key)
        return time.monotonic() - started, False
    except StoreUnavailable:
        return time.monotonic() - started, True


async def fault(store: RedisStore, sick: str, healthy: list[str]) -> tuple[float, bool, float]:
    """The sick node's load (seconds, failed) and the slowest of the healthy ones meanwhile."""
    results = await asyncio.gather(
        timed_load(store, sick), *(timed_load(store, k) for k in healthy * 5)
    )
    (took, failed), others = results[0], results[1:]
    assert not any(f for _, f in others), "a healthy node's chat failed"
    return took, failed, max(t for t, _ in others)


async def main(loads: int) -> None:
    settings = Settings(redis_cluster=True)
    cli = shutil.which("redis-cli") or sys.exit("redis-cli is not on PATH")
    with tempfile.TemporaryDirectory() as workdir:
        procs = {port: start(port, workdir) for port in PORTS}
        try:
            create = [cli, "--cluster", "create", *(f"127.0.0.1:{p}" for p in PORTS)]
            create += ["--cluster-replicas", "0", "--cluster-yes"]
            subprocess.run(create, capture_output=True, check=True, timeout=60)
            wait_ok()
            url = f"redis://127.0.0.1:{PORTS[0]}"
            store = RedisStore.from_url(url, "bench:", settings)
            keys = chats_by_node(store)
            port = PORTS[1]  # not the node the client was given
            sick, healthy = keys[port], [k for p, k in keys.items() if p != port]
            await asyncio.gather(*(store.load(k) for k in keys.values() for _ in range(loads)))
            procs[port].send_signal(signal.SIGSTOP)
            frozen = await fault(store, sick, healthy)
            procs[port].send_signal(signal.SIGCONT)
            procs[port].kill()
            procs[port].wait()
            down = await fault(store, sick, healthy)
            procs[port] = start(port, workdir)
            wait_ok()
            results = await asyncio.gather(
                *(store.load(sick) for _ in range(loads)), return_exceptions=True
            )
            lost = sum(isinstance(r, BaseException) for r in results)
            await store.close()
        finally:
            for proc in procs.values():
                proc.send_signal(signal.SIGCONT)
                proc.kill()
                proc.wait()
    s = settings
    print(f"REDIS_TIMEOUT {s.redis_timeout} s, REDIS_RETRIES {s.redis_retries}, three nodes")
    for name, (took, failed, others) in (("frozen", frozen), ("down", down)):
        what = "fails" if failed else "succeeds"
        print(
            f"a node {name}: a load of a chat on it {what} after {took:.2f} s; "
            f"chats on the other nodes: slowest load {others * 1000:.1f} ms"
        )
    print(f"the node restarted: {lost} of {loads} loads of a chat on it failed")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=25)
    asyncio.run(main(parser.parse_args().loads))
