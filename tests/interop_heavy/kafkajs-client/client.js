// kafkajs 2.2.4 against a broker: creates a topic, produces COUNT records idempotently with
// gzip (kafkajs' built-in codec), consumes them in a group and prints one JSON line per
// record: {offset, key, value, timestamp, headers} with bytes as hex.
//   node client.js BOOTSTRAP TOPIC GROUP COUNT
const { Kafka, CompressionTypes, logLevel } = require('kafkajs');

async function main() {
  const [bootstrap, topic, group, countText] = process.argv.slice(2);
  const count = Number(countText);
  const kafka = new Kafka({ clientId: 'floe-kafkajs', brokers: [bootstrap], logLevel: logLevel.ERROR });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
  await admin.disconnect();

  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const messages = [];
  for (let i = 0; i < count; i++) {
    messages.push({ key: `key-${i}`, value: `kafkajs-value-${i}`, partition: 0,
                    timestamp: String(1700000000000 + i), headers: { h: String(i) } });
  }
  for (let i = 0; i < count; i += 50) {
    await producer.send({ topic, acks: -1, compression: CompressionTypes.GZIP,
                          messages: messages.slice(i, i + 50) });
  }
  await producer.disconnect();

  const consumer = kafka.consumer({ groupId: group });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const got = [];
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${got.length} records`)), 60000);
    consumer.run({
      eachMessage: async ({ message }) => {
        const headers = {};
        for (const [k, v] of Object.entries(message.headers)) headers[k] = v.toString('hex');
        got.push({ offset: Number(message.offset), key: message.key.toString('hex'),
                   value: message.value.toString('hex'), timestamp: Number(message.timestamp),
                   headers });
        if (got.length === count) {
          clearTimeout(timer);
          resolve();
        }
      },
    }).catch(reject);
  });
  await consumer.disconnect();
  for (const r of got) console.log(JSON.stringify(r));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
