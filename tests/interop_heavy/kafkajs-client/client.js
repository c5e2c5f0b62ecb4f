// kafkajs 2.2.4 against a broker: creates a topic, produces COUNT records idempotently with
// gzip (kafkajs' built-in codec), consumes them in a group and prints one JSON line per
// record: {offset, key, value, timestamp, headers} with bytes as hex.
//   node client.js BOOTSTRAP TOPIC GROUP COUNT [table]
// With `table` the topic is a JSON table topic (floe.table.topic.*) and record i has key
// kafkajs-i and value {"id": i, "client": "kafkajs", "text": "row i \u00e9", "n": 7 i}.
const { Kafka, CompressionTypes, logLevel } = require('kafkajs');

async function main() {
  const [bootstrap, topic, group, countText, mode] = process.argv.slice(2);
  const table = mode === 'table';
  const count = Number(countText);
  const kafka = new Kafka({ clientId: 'floe-kafkajs', brokers: [bootstrap], logLevel: logLevel.ERROR });
  const admin = kafka.admin();
  await admin.connect();
  const configEntries = table ? [
    { name: 'floe.table.topic.enable', value: 'true' },
    { name: 'floe.table.topic.commit.interval.ms', value: '1000' },
    { name: 'floe.table.topic.convert.value.type', value: 'json' },
    { name: 'floe.table.topic.transform.value.type', value: 'flatten' },
  ] : [];
  await admin.createTopics({ topics: [{ topic, numPartitions: 1, configEntries }],
                             waitForLeaders: true });
  await admin.disconnect();

  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const messages = [];
  for (let i = 0; i < count; i++) {
    const value = table
      ? JSON.stringify({ id: i, client: 'kafkajs', text: `row ${i} \u00e9`, n: i * 7 })
      : `kafkajs-value-${i}`;
    messages.push({ key: table ? `kafkajs-${i}` : `key-${i}`, value, partition: 0,
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
