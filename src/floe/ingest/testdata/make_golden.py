"""Golden bytes for the schema-registry decoders' unit tests (proto_test.cc), written by the
reference implementations: Protobuf messages of order.proto serialized by the protobuf
package (compiled with grpcio-tools' protoc), Avro datums by fastavro, and the base64
FileDescriptorProto confluent-kafka's ProtobufSerializer registers. Run it and paste the
output into proto_test.cc:

    /work/main/.venv/bin/python src/floe/ingest/testdata/make_golden.py
"""
import base64
import io
import os
import tempfile

import fastavro
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from grpc_tools import protoc

HERE = os.path.dirname(os.path.abspath(__file__))


def compile_proto():
    import grpc_tools
    include = os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "set.pb")
        rc = protoc.main(["protoc", f"-I{HERE}", f"-I{include}", "--include_imports",
                          f"--descriptor_set_out={out}", "order.proto"])
        assert rc == 0
        fds = descriptor_pb2.FileDescriptorSet()
        fds.ParseFromString(open(out, "rb").read())
    pool = descriptor_pool.DescriptorPool()
    for f in fds.file:
        pool.Add(f)
    order = message_factory.GetMessageClass(pool.FindMessageTypeByName("floe.test.Order"))
    return order, pool.FindFileByName("order.proto")


def main():
    Order, file_desc = compile_proto()
    full = Order(id=-7, name="zoë", delta=-3, scores=[1, -2, 300], item=Order.Item(sku="a", qty=4),
                 items=[Order.Item(sku="b", qty=1), Order.Item(sku="c")], status=Order.DONE,
                 price=2.5, text="hi", big=18446744073709551615, f32=4000000000, raw=b"\x00\xff",
                 flag=True, ratio=0.5, tags=["x", "y"], s64=-9)
    full.counts["k"] = 9
    full.at.seconds = 1700000000
    full.at.nanos = 123456000
    print("// Order (all fields set)")
    print(f'constexpr std::string_view kOrderFull = "{full.SerializeToString().hex()}";')
    sparse = Order(number=42)
    print("// Order{number: 42} (everything else absent)")
    print(f'constexpr std::string_view kOrderSparse = "{sparse.SerializeToString().hex()}";')
    print("// order.proto as confluent-kafka's ProtobufSerializer registers it")
    print(f'constexpr std::string_view kOrderDescriptor = "'
          f'{base64.standard_b64encode(file_desc.serialized_pb).decode()}";')

    schema = fastavro.parse_schema({
        "type": "record", "name": "Event", "namespace": "floe.test", "fields": [
            {"name": "id", "type": "long"},
            {"name": "name", "type": ["null", "string"], "default": None},
            {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B"]}},
            {"name": "tags", "type": {"type": "array", "items": "string"}},
            {"name": "attrs", "type": {"type": "map", "values": "int"}},
            {"name": "inner", "type": {"type": "record", "name": "Inner",
                                       "fields": [{"name": "x", "type": "double"}]}},
            {"name": "day", "type": {"type": "int", "logicalType": "date"}},
            {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}},
            {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal",
                                        "precision": 9, "scale": 2}},
        ]})
    import datetime
    import decimal
    buf = io.BytesIO()
    fastavro.schemaless_writer(buf, schema, {
        "id": 5, "name": "n", "kind": "B", "tags": ["t1", "t2"], "attrs": {"a": 1},
        "inner": {"x": 1.25}, "day": datetime.date(2024, 2, 29),
        "ts": datetime.datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=datetime.timezone.utc),
        "amount": decimal.Decimal("-12.34")})
    print("// Event datum written by fastavro")
    print(f'constexpr std::string_view kEventDatum = "{buf.getvalue().hex()}";')


if __name__ == "__main__":
    main()
