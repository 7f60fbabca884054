// kafkajs transactional producer for kafkasim (run by
// TestTransactionsRefused): connect and begin a transaction, then print
// one JSON line: the error's name (or began) and how long it took in
// ms.
// Usage: node txn.js BROKER[,BROKER...]
const { Kafka, logLevel } = require("kafkajs");

const kafka = new Kafka({ clientId: "kafkajs-txn", brokers: process.argv[2].split(","), logLevel: logLevel.NOTHING });

async function main() {
  const producer = kafka.producer({ transactionalId: "tx-kafkajs", maxInFlightRequests: 1, idempotent: true });
  const start = Date.now();
  const res = {};
  try {
    await producer.connect();
    await producer.transaction();
    res.began = true;
  } catch (e) {
    res.error = e.name;
  }
  res.ms = Date.now() - start;
  await producer.disconnect().catch(() => {});
  console.log(JSON.stringify(res));
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
