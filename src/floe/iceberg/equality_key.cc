#include "floe/iceberg/equality_key.h"

#include "floe/base/macros.h"

namespace floe::iceberg {

namespace col = floe::columnar;

namespace {

bool Locate(const std::vector<col::Field>& fields, const std::vector<const col::Array*>& arrays,
            int32_t id, Located* out) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].field_id == id) {
      out->array = arrays[i];
      return true;
    }
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].type->id() != col::TypeId::kStruct) continue;
    std::vector<const col::Array*> children;
    for (const col::Array& c : arrays[i]->children()) children.push_back(&c);
    out->parents.push_back(arrays[i]);
    if (Locate(fields[i].type->children(), children, id, out)) return true;
    out->parents.pop_back();
  }
  return false;
}

}  // namespace

Result<std::vector<Located>> LocateAll(const col::RecordBatch& batch,
                                       const std::vector<int32_t>& ids) {
  std::vector<const col::Array*> arrays;
  for (const col::Array& a : batch.columns()) arrays.push_back(&a);
  std::vector<Located> out;
  for (int32_t id : ids) {
    Located l;
    if (!Locate(batch.schema()->fields(), arrays, id, &l)) {
      return Status::Internal("equality field {} missing from the read batch", id);
    }
    out.push_back(std::move(l));
  }
  return out;
}

void AppendKey(const std::vector<Located>& cols, int64_t i, std::string* key) {
  for (const Located& c : cols) {
    bool valid = c.array->IsValid(i);
    for (const col::Array* p : c.parents) valid = valid && p->IsValid(i);
    if (!valid) {
      key->push_back('\0');
      continue;
    }
    key->push_back('\1');
    const col::Array& a = *c.array;
    switch (a.type_id()) {
      case col::TypeId::kBool: key->push_back(a.BoolValue(i) ? '\1' : '\0'); break;
      case col::TypeId::kString:
      case col::TypeId::kBinary: {
        std::string_view v = a.BinaryValue(i);
        auto len = static_cast<uint32_t>(v.size());
        key->append(reinterpret_cast<const char*>(&len), sizeof(len));
        key->append(v);
        break;
      }
      default: {
        auto w = static_cast<size_t>(a.type()->fixed_width());
        key->append(reinterpret_cast<const char*>(a.values().data()) + w * static_cast<size_t>(i),
                    w);
      }
    }
  }
}

Status ReadRowKeys(const TableMetadata& md, io::FileIO& io, const DataFile& data,
                   const std::vector<int32_t>& ids,
                   const std::function<Status(const RowKeyBatch&)>& fn) {
  const Schema* schema = md.current_schema();
  if (schema == nullptr) return Status::Corrupt("table has no current schema");
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<const Schema> key_schema,
                        internal::KeySchema(md, *schema, ids));
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<DataFileReader> reader,
                        internal::OpenScanDataFile(md, io, data, key_schema, DataReadOptions{}));
  RowKeyBatch keys;
  while (true) {
    FLOE_ASSIGN_OR_RETURN(std::optional<PositionedBatch> b, reader->Next());
    if (!b) break;
    FLOE_ASSIGN_OR_RETURN(std::vector<Located> cols, LocateAll(b->batch, ids));
    keys.arena.clear();
    keys.ends.clear();
    keys.first_position = b->first_position;
    for (int64_t i = 0; i < b->batch.num_rows(); ++i) {
      AppendKey(cols, i, &keys.arena);
      keys.ends.push_back(static_cast<uint32_t>(keys.arena.size()));
    }
    FLOE_RETURN_IF_ERROR(fn(keys));
  }
  return Status::OK();
}

}  // namespace floe::iceberg
