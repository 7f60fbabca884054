# kafka-python rebalance test for kafkasim (run by TestKafkaPython): c1
# consumes alone, c2 joins the group (c1's heartbeat hears
# REBALANCE_IN_PROGRESS, both join again with JoinGroup v2 and SyncGroup
# v1), then c2 leaves (LeaveGroup v1) and c1 takes every partition back.
# Prints one JSON line: each consumer's records and the assignments it
# went through.
# Usage: python3 rebalance.py BROKER[,BROKER...] TOPIC COUNT
import json
import sys
import threading
import time

from kafka import KafkaConsumer, KafkaProducer

brokers, topic, count = sys.argv[1].split(","), sys.argv[2], int(sys.argv[3])
producer = KafkaProducer(bootstrap_servers=brokers, acks="all")
for i in range(count):
    producer.send(topic, b"r%d" % i)
producer.flush(30)
producer.close()

res = {}


def member(name, delay, seconds):
    time.sleep(delay)
    c = KafkaConsumer(topic, bootstrap_servers=brokers, group_id="py-rebalance", client_id=name,
                      auto_offset_reset="earliest", session_timeout_ms=10000, heartbeat_interval_ms=500)
    start, seen, assigned = time.time(), 0, []
    while time.time() - start < seconds:
        for records in c.poll(timeout_ms=200).values():
            seen += len(records)
        now = sorted(p.partition for p in c.assignment())
        if now and (not assigned or assigned[-1] != now):
            assigned.append(now)
    c.close()
    res[name] = {"seen": seen, "assigned": assigned}


threads = [threading.Thread(target=member, args=("c1", 0, 12)), threading.Thread(target=member, args=("c2", 4, 4))]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps(res))
