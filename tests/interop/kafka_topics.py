"""Topic helpers shared by the tests of floe's Kafka endpoint (confluent-kafka's admin client)."""

from __future__ import annotations

from confluent_kafka.admin import AdminClient, NewTopic


def create_topic(bootstrap: str, name: str, partitions: int = 1, config: dict | None = None):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics([NewTopic(name, num_partitions=partitions,
                                            replication_factor=1, config=config or {})])
    futures[name].result(timeout=30)
