# Parquet metadata structs and their Thrift compact (de)serialization.
