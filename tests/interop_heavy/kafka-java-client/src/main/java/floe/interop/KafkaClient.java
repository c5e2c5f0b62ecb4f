package floe.interop;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Drives the Java client against a broker:
 *   create BOOTSTRAP TOPIC PARTITIONS
 *   create-table BOOTSTRAP TOPIC          (one partition, a JSON table topic: flatten, commit
 *                                          interval 1 s)
 *   produce-json BOOTSTRAP TOPIC COUNT    (idempotent, acks=all, zstd; record i: key
 *                                          "java-i", value {"id":i,"client":"java",...})
 *   produce BOOTSTRAP TOPIC CODEC COUNT   (idempotent, acks=all; record i: key "key-i",
 *                                          value "java-value-i", header h=i, timestamp
 *                                          1700000000000 + i)
 *   produce-values BOOTSTRAP TOPIC HEX... (idempotent, acks=all; each value, hex, as its own
 *                                          record, waited for; prints "ok OFFSET" or "error
 *                                          EXCEPTION-CLASS MESSAGE" per record)
 *   consume BOOTSTRAP TOPIC GROUP COUNT   (prints "offset key value timestamp headers" per
 *                                          record, bytes in hex, then commits)
 * With FLOE_KAFKA_SASL=MECHANISM:USER:PASSWORD in the environment (never on the command line)
 * every client logs in with SASL_PLAINTEXT (PLAIN or SCRAM-SHA-256/512).
 */
public final class KafkaClient {
  private static final HexFormat HEX = HexFormat.of();

  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    props.put("bootstrap.servers", args[1]);
    String sasl = System.getenv("FLOE_KAFKA_SASL");
    if (sasl != null && !sasl.isEmpty()) {
      String[] parts = sasl.split(":", 3);
      String module = parts[0].equals("PLAIN")
          ? "org.apache.kafka.common.security.plain.PlainLoginModule"
          : "org.apache.kafka.common.security.scram.ScramLoginModule";
      props.put("security.protocol", "SASL_PLAINTEXT");
      props.put("sasl.mechanism", parts[0]);
      props.put("sasl.jaas.config",
          module + " required username=\"" + parts[1] + "\" password=\"" + parts[2] + "\";");
    }
    switch (args[0]) {
      case "create" -> {
        try (Admin admin = Admin.create(props)) {
          admin.createTopics(List.of(new NewTopic(args[2], Integer.parseInt(args[3]), (short) 1)
                  .configs(Map.of("retention.ms", "86400000"))))
              .all().get();
        }
      }
      case "create-table" -> {
        try (Admin admin = Admin.create(props)) {
          admin.createTopics(List.of(new NewTopic(args[2], 1, (short) 1).configs(Map.of(
                  "floe.table.topic.enable", "true",
                  "floe.table.topic.commit.interval.ms", "1000",
                  "floe.table.topic.convert.value.type", "json",
                  "floe.table.topic.transform.value.type", "flatten"))))
              .all().get();
        }
      }
      case "produce-json" -> {
        props.put("acks", "all");
        props.put("enable.idempotence", "true");
        props.put("compression.type", "zstd");
        props.put("linger.ms", "5");
        try (KafkaProducer<byte[], byte[]> p =
            new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
          int n = Integer.parseInt(args[3]);
          for (int i = 0; i < n; i++) {
            String value = "{\"id\":" + i + ",\"client\":\"java\",\"text\":\"row " + i
                + " \u00e9\",\"n\":" + (i * 7) + "}";
            p.send(new ProducerRecord<>(args[2], 0, ("java-" + i).getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8)));
          }
          p.flush();
        }
      }
      case "produce" -> {
        props.put("acks", "all");
        props.put("enable.idempotence", "true");
        props.put("compression.type", args[3]);
        props.put("linger.ms", "5");
        try (KafkaProducer<byte[], byte[]> p =
            new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
          int n = Integer.parseInt(args[4]);
          for (int i = 0; i < n; i++) {
            List<Header> headers = List.of(
                new RecordHeader("h", Integer.toString(i).getBytes(StandardCharsets.UTF_8)));
            p.send(new ProducerRecord<>(args[2], 0, 1700000000000L + i,
                ("key-" + i).getBytes(StandardCharsets.UTF_8),
                ("java-value-" + i).getBytes(StandardCharsets.UTF_8), headers)).get();
          }
        }
      }
      case "produce-values" -> {
        props.put("acks", "all");
        props.put("enable.idempotence", "true");
        props.put("retries", "3");
        try (KafkaProducer<byte[], byte[]> p =
            new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
          for (int i = 3; i < args.length; i++) {
            try {
              long offset = p.send(new ProducerRecord<>(args[2], 0, null, HEX.parseHex(args[i])))
                  .get().offset();
              System.out.println("ok " + offset);
            } catch (java.util.concurrent.ExecutionException e) {
              Throwable c = e.getCause();
              System.out.println("error " + c.getClass().getName() + " " + c.getMessage());
            }
          }
        }
      }
      case "consume" -> {
        props.put("group.id", args[3]);
        props.put("auto.offset.reset", "earliest");
        props.put("enable.auto.commit", "false");
        try (KafkaConsumer<byte[], byte[]> c =
            new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
          c.subscribe(List.of(args[2]));
          int n = Integer.parseInt(args[4]);
          List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
          long deadline = System.currentTimeMillis() + 60_000;
          while (got.size() < n && System.currentTimeMillis() < deadline) {
            for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) got.add(r);
          }
          c.commitSync();
          for (ConsumerRecord<byte[], byte[]> r : got) {
            StringBuilder hs = new StringBuilder();
            for (Header h : r.headers()) {
              hs.append(h.key()).append('=')
                  .append(h.value() == null ? "null" : HEX.formatHex(h.value())).append(',');
            }
            System.out.println(r.offset() + " " + HEX.formatHex(r.key()) + " "
                + HEX.formatHex(r.value()) + " " + r.timestamp() + " " + hs);
          }
        }
      }
      default -> throw new IllegalArgumentException(args[0]);
    }
  }
}
