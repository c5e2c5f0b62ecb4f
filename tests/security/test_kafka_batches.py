"""Produce validates record batches as Kafka's LogValidator does before acknowledging (issue 19
§3): a batch whose header and CRC-32C are right but whose records are not — a record length
running past its record, more records claimed than present, bytes after the last record,
offset deltas out of order — is refused with CORRUPT_MESSAGE or INVALID_RECORD and nothing
is stored; the topic keeps working for well-formed producers (confluent-kafka). The batches
are written here from the protocol guide (magic 2, kafka.md §4), then broken one way each."""

from __future__ import annotations

import socket
import struct

import pytest
from confluent_kafka import Consumer, Producer
from floe_server import FloeServer

CORRUPT_MESSAGE = 2
INVALID_RECORD = 87


def _crc32c_table() -> list[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc32c_table()


def crc32c(data: bytes) -> int:
    c = 0xFFFFFFFF
    for b in data:
        c = _TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def zigzag(n: int) -> bytes:
    v = (n << 1) ^ (n >> 63)
    out = bytearray()
    while True:
        byte = v & 0x7F
        v >>= 7
        if v:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def record(offset_delta: int, value: bytes) -> bytes:
    body = (b"\x00" + zigzag(0) + zigzag(offset_delta) + zigzag(-1) + zigzag(len(value)) + value
            + zigzag(0))
    return zigzag(len(body)) + body


def batch(records: bytes, count: int, last_offset_delta: int | None = None) -> bytes:
    """An uncompressed magic-2 batch around `records`, its length and CRC right."""
    last = count - 1 if last_offset_delta is None else last_offset_delta
    after_crc = (struct.pack(">hiqqqhii", 0, last, 1000, 1000, -1, -1, -1, count) + records)
    crc = crc32c(after_crc)
    length = 4 + 1 + 4 + len(after_crc)  # leader epoch, magic, crc, the rest
    return struct.pack(">qii", 0, length, -1) + b"\x02" + struct.pack(">I", crc) + after_crc


def produce_raw(port: int, topic: str, records: bytes) -> int:
    """Produce v3 with acks=-1; the partition's error code."""
    name = topic.encode()
    body = (struct.pack(">hhi", -1, -1, 10000) + struct.pack(">i", 1) + struct.pack(">h", len(name))
            + name + struct.pack(">i", 1) + struct.pack(">ii", 0, len(records)) + records)
    header = struct.pack(">hhih", 0, 3, 7, 4) + b"test"
    frame = header + body
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(struct.pack(">i", len(frame)) + frame)
        size = struct.unpack(">i", _read(s, 4))[0]
        reply = _read(s, size)
    correlation, topics = struct.unpack(">ii", reply[:8])
    assert correlation == 7 and topics == 1
    name_len = struct.unpack(">h", reply[8:10])[0]
    pos = 10 + name_len
    partitions, index, error = struct.unpack(">iih", reply[pos:pos + 10])
    assert partitions == 1 and index == 0
    return error


def _read(s: socket.socket, n: int) -> bytes:
    out = b""
    while len(out) < n:
        chunk = s.recv(n - len(out))
        if not chunk:
            raise ConnectionError("closed")
        out += chunk
    return out


@pytest.fixture(scope="module")
def server(floe, tmp_path_factory):
    with FloeServer(floe.path, tmp_path_factory.mktemp("batches") / "data", kafka=True) as s:
        yield s


def log_end(server, topic: str) -> int:
    consumer = Consumer({"bootstrap.servers": server.kafka_bootstrap, "group.id": "probe"})
    try:
        from confluent_kafka import TopicPartition
        return consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)[1]
    finally:
        consumer.close()


def test_well_formed_batch_written_here_is_accepted(server):
    # Produce does not create topics (Metadata does): a client creates it first.
    producer = Producer({"bootstrap.servers": server.kafka_bootstrap})
    producer.produce("raw", b"seed")
    assert producer.flush(30) == 0
    good = batch(record(0, b"one") + record(1, b"two"), 2)
    assert produce_raw(server.kafka_port, "raw", good) == 0
    assert log_end(server, "raw") == 3


@pytest.mark.parametrize("name,records,expected", [
    ("length past the record",
     batch(zigzag(20) + record(0, b"one")[1:] + record(1, b"two"), 2), CORRUPT_MESSAGE),
    ("fewer records than the header", batch(record(0, b"one"), 3), INVALID_RECORD),
    ("bytes after the last record", batch(record(0, b"one") + b"\x02\x00\x00", 1),
     CORRUPT_MESSAGE),
    ("offset deltas out of order", batch(record(1, b"one") + record(0, b"two"), 2),
     INVALID_RECORD),
])
def test_broken_records_are_refused_and_nothing_is_stored(server, name, records, expected):
    topic = "victim-" + name.replace(" ", "-")
    producer = Producer({"bootstrap.servers": server.kafka_bootstrap})
    producer.produce(topic, b"before")
    assert producer.flush(30) == 0
    assert produce_raw(server.kafka_port, topic, records) == expected, name
    # Nothing appended; a real producer still gets through, and consumers read only its data.
    assert log_end(server, topic) == 1
    producer.produce(topic, b"after")
    assert producer.flush(30) == 0
    consumer = Consumer({"bootstrap.servers": server.kafka_bootstrap, "group.id": topic,
                         "auto.offset.reset": "earliest"})
    consumer.subscribe([topic])
    got = []
    for _ in range(60):
        m = consumer.poll(1.0)
        if m is not None and m.error() is None:
            got.append(m.value())
        if len(got) == 2:
            break
    consumer.close()
    assert got == [b"before", b"after"]
