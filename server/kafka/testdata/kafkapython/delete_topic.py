# kafka-python deletes a topic through KafkaAdminClient (run by
# TestKafkaPythonDeleteDisabled) and prints one JSON line: the error's
# class name ("" for none), how long the deletion took in ms, and whether
# the topic is still listed.
# Usage: python3 delete_topic.py BROKER[,BROKER...] TOPIC TIMEOUT_MS
import json
import sys
import time

from kafka.admin import KafkaAdminClient

brokers, topic, timeout_ms = sys.argv[1].split(","), sys.argv[2], int(sys.argv[3])
admin = KafkaAdminClient(bootstrap_servers=brokers, client_id="kafka-python-delete", request_timeout_ms=timeout_ms + 10000)
start = time.monotonic()
error = ""
try:
    admin.delete_topics([topic], timeout_ms=timeout_ms)
except Exception as e:  # the broker's error, as kafka-python raises it
    error = type(e).__name__
ms = int((time.monotonic() - start) * 1000)
print(json.dumps({"error": error, "ms": ms, "listed": topic in admin.list_topics()}))
