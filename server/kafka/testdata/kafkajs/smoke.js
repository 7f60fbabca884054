// kafkajs smoke test for kafkasim (run by TestKafkaJS): produce records
// with headers and timestamps, then read them back through a consumer
// group, and print one JSON line with what was read.
// Usage: node smoke.js BROKER[,BROKER...] TOPIC COUNT
const { Kafka, logLevel } = require("kafkajs");

const [brokers, topic, countArg] = process.argv.slice(2);
const count = Number(countArg);
const kafka = new Kafka({ clientId: "kafkajs-smoke", brokers: brokers.split(","), logLevel: logLevel.ERROR,
  retry: { initialRetryTime: 100, retries: 8 } });

async function main() {
  const admin = kafka.admin();
  await admin.connect();
  const topics = await admin.fetchTopicMetadata({ topics: [topic] });
  await admin.disconnect();

  const producer = kafka.producer();
  await producer.connect();
  const base = 1700000000000;
  for (let i = 0; i < count; i += 5) {
    const messages = [];
    for (let j = i; j < Math.min(i + 5, count); j++) {
      messages.push({ key: "k" + j, value: "v" + j, timestamp: String(base + j * 1000), headers: { n: String(j) } });
    }
    await producer.send({ topic, acks: -1, messages });
  }
  await producer.disconnect();

  const consumer = kafka.consumer({ groupId: "kafkajs-group", sessionTimeout: 10000, heartbeatInterval: 1000 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const seen = {};
  let bad = [];
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("timed out with " + Object.keys(seen).length + " records")), 30000);
    consumer.run({
      eachMessage: async ({ message }) => {
        const v = message.value.toString();
        const j = Number(v.slice(1));
        const n = message.headers.n && message.headers.n.toString();
        if (n !== String(j) || message.timestamp !== String(base + j * 1000) || message.key.toString() !== "k" + j) {
          bad.push({ v, n, ts: message.timestamp });
        }
        seen[v] = true;
        if (Object.keys(seen).length === count) {
          clearTimeout(timer);
          resolve();
        }
      },
    }).catch(reject);
  });
  await consumer.disconnect();
  console.log(JSON.stringify({ partitions: topics.topics[0].partitions.length, read: Object.keys(seen).length, bad }));
}

main().then(() => process.exit(0), (err) => {
  console.error("kafkajs:", err && err.stack || err);
  process.exit(1);
});
