# kafka-python changes a topic's configs through KafkaAdminClient
# .alter_configs (AlterConfigs, run by TestKafkaPythonAlterConfigs), then
# describes them, and prints one JSON line: the alter's error code per
# resource (the topic, then a topic that does not exist) and the topic's
# retention.ms and min.insync.replicas as DescribeConfigs answers them
# ([value, config source]: kafka-python asks v1+, where 1 is
# DYNAMIC_TOPIC_CONFIG).
# Usage: python3 alter_configs.py BROKER[,BROKER...] TOPIC
import json
import sys

from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient

brokers, topic = sys.argv[1].split(","), sys.argv[2]
admin = KafkaAdminClient(bootstrap_servers=brokers, client_id="kafka-python-configs")
resp = admin.alter_configs([
    ConfigResource(ConfigResourceType.TOPIC, topic, configs={"retention.ms": "60000", "min.insync.replicas": "2"}),
    ConfigResource(ConfigResourceType.TOPIC, "no-such-topic", configs={"retention.ms": "1"}),
])
codes = [r[0] for r in resp.resources]
described = {}
for d in admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic)]):
    for r in d.resources:
        for entry in r[4]:
            if entry[0] in ("retention.ms", "min.insync.replicas"):
                described[entry[0]] = [entry[1], entry[3]]
print(json.dumps({"codes": codes, "described": described}))
