"""Ask a Kafka broker for cluster metadata over the wire protocol; exit 0 when it answers.

Standard library only, so the start scripts can wait for a broker before any virtualenv exists.
It sends a real Metadata request (v4: still accepted by Kafka 4.x, which dropped v0-v3) and
succeeds only when the reply lists at least one broker and an active controller, i.e. the node
has finished starting and can serve clients, not merely opened its port.

usage: python3 kafka_probe.py HOST:PORT [TIMEOUT_SECONDS]
"""

from __future__ import annotations

import socket
import struct
import sys

METADATA_API_KEY = 3
METADATA_VERSION = 4


def _request(correlation_id: int) -> bytes:
    client_id = b"hallmon-probe"
    header = struct.pack(
        ">hhih", METADATA_API_KEY, METADATA_VERSION, correlation_id, len(client_id)
    )
    # topics = null (all topics), allow_auto_topic_creation = false
    body = struct.pack(">i?", -1, False)
    payload = header + client_id + body
    return struct.pack(">i", len(payload)) + payload


def _read_exact(sock: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("broker closed the connection")
        buf += chunk
    return buf


def probe(host: str, port: int, timeout: float) -> tuple[int, int]:
    """Return (number of brokers, controller id) from one Metadata request."""
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.sendall(_request(correlation_id=7))
        (size,) = struct.unpack(">i", _read_exact(sock, 4))
        data = _read_exact(sock, size)
    pos = 0

    def take(fmt: str) -> tuple[int, ...]:
        nonlocal pos
        values = struct.unpack_from(fmt, data, pos)
        pos += struct.calcsize(fmt)
        return values

    def skip_string() -> None:
        nonlocal pos
        (length,) = take(">h")
        pos += max(length, 0)

    (correlation,) = take(">i")
    if correlation != 7:
        raise ConnectionError(f"unexpected correlation id {correlation}")
    take(">i")  # throttle_time_ms
    (n_brokers,) = take(">i")
    for _ in range(n_brokers):
        take(">i")  # node_id
        skip_string()  # host
        take(">i")  # port
        skip_string()  # rack (nullable)
    skip_string()  # cluster_id (nullable)
    (controller_id,) = take(">i")
    return n_brokers, controller_id


def main() -> int:
    address = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:9092"
    timeout = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    host, _, port = address.rpartition(":")
    try:
        brokers, controller = probe(host, int(port), timeout)
    except (OSError, struct.error) as exc:
        print(f"no answer from {address}: {exc}", file=sys.stderr)
        return 1
    if brokers < 1 or controller < 0:
        print(f"{address} answers but is not ready (brokers={brokers}, controller={controller})")
        return 1
    print(f"{address} ready: {brokers} broker(s), controller {controller}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
