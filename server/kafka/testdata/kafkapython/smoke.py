# kafka-python smoke test for kafkasim (run by TestKafkaPython): the
# client probes the cluster's version itself (ApiVersions v0, then picks
# its own old request versions: Produce v3-v7, Fetch v4-v10, JoinGroup
# v2, ...), produces records with keys, headers and timestamps at
# acks=all, reads them back through a consumer group, commits, and prints
# one JSON line with what it saw.
# Usage: python3 smoke.py BROKER[,BROKER...] TOPIC COUNT
import json
import sys

from kafka import KafkaConsumer, KafkaProducer, TopicPartition

brokers, topic, count = sys.argv[1].split(","), sys.argv[2], int(sys.argv[3])
base = 1700000000000

producer = KafkaProducer(bootstrap_servers=brokers, acks="all", client_id="kafka-python-smoke",
                         compression_type="gzip", retries=5)
api = producer.config["api_version"]
futures = [producer.send(topic, key=b"k%d" % i, value=b"v%d" % i, headers=[("n", b"%d" % i)],
                         timestamp_ms=base + i * 1000) for i in range(count)]
producer.flush(30)
for f in futures:
    f.get(timeout=30)
producer.close()

consumer = KafkaConsumer(topic, bootstrap_servers=brokers, group_id="py-group", client_id="kafka-python-smoke",
                         auto_offset_reset="earliest", enable_auto_commit=False, consumer_timeout_ms=30000)
seen, bad = {}, []
for m in consumer:
    j = int(m.value[1:])
    if m.key != b"k%d" % j or m.timestamp != base + j * 1000 or dict(m.headers).get("n") != b"%d" % j:
        bad.append([m.value.decode(), m.timestamp])
    seen[m.value] = m.offset
    if len(seen) == count:
        break
consumer.commit()
parts = consumer.partitions_for_topic(topic)
committed = sum(consumer.committed(TopicPartition(topic, p)) or 0 for p in parts)
consumer.close()
print(json.dumps({"api": list(api), "partitions": len(parts), "read": len(seen), "bad": bad, "committed": committed}))
