// Record assembly and shredding (Dremel): the mapping between the repetition and
// definition levels of Parquet leaf columns and nested columnar Arrays.
//
// An AssemblyNode tree mirrors the columnar type of a top-level field and records, for
// each node, which level entries of its leaves make up its slots:
//   - the slots of a node are the entries e of its first leaf with
//       rep[e] <= slot_rep && def[e] >= slot_def
//     (slot_rep/slot_def are those of the nearest repeated Parquet node at or above it;
//     0/0 at the top level, where every record is one slot);
//   - a slot is valid (non-null) iff def[e] >= valid_def (the node's own definition level,
//     so a child of a null struct is null as in Arrow);
//   - for lists and maps, the element slots are the entries with rep <= elem_rep and
//     def >= elem_def (those of the repeated node), counted per list slot.
// See the Parquet spec's "Nested Encoding" and parquet.md §5.3.
#pragma once

#include <cstdint>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/status.h"
#include "floe/columnar/array.h"

namespace floe::format::parquet {

// Decoded levels and dense values of one leaf column for a run of whole records.
struct LeafData {
  int64_t num_entries = 0;  // level entries (== records when max_rep == 0)
  Buffer def_levels;        // int16_t[num_entries]; empty when max_def == 0
  Buffer rep_levels;        // int16_t[num_entries]; empty when max_rep == 0
  int64_t num_values = 0;   // entries with def == max_def
  Buffer values;            // dense values in the leaf's columnar layout (kBool: bits)
  Buffer offsets;           // kString/kBinary: int64_t[num_values + 1]

  const int16_t* defs() const { return def_levels.data_as<int16_t>(); }
  const int16_t* reps() const { return rep_levels.data_as<int16_t>(); }
};

struct AssemblyNode {
  enum class Kind : uint8_t { kLeaf, kStruct, kList, kMap };
  Kind kind = Kind::kLeaf;
  columnar::DataTypePtr type;
  int16_t slot_rep = 0;
  int16_t slot_def = 0;
  int16_t valid_def = 0;
  bool nullable = true;  // the Parquet node is OPTIONAL (a null in a required node is an error)
  int16_t elem_rep = 0;  // kList / kMap
  int16_t elem_def = 0;  // kList / kMap
  // kLeaf: max levels and index of the leaf among all leaves of the file.
  int16_t max_def = 0;
  int16_t max_rep = 0;
  int leaf = -1;
  // The first leaf under this node (its levels define the node's slots).
  int first_leaf = -1;
  // kStruct: fields; kList: the element; kMap: key then value.
  std::vector<AssemblyNode> children;
};

// Builds the Array of `node` from the decoded leaves (indexed by AssemblyNode::leaf).
// Consumes the leaves' value buffers where it can move them. Inconsistent levels (a
// corrupt file) are kCorrupt.
Result<columnar::Array> AssembleArray(const AssemblyNode& node, std::vector<LeafData>& leaves);

// The levels of one leaf computed from a columnar Array, and which slots of the leaf's
// own Array hold its values.
struct ShreddedLeaf {
  int64_t num_entries = 0;
  Buffer def_levels;                       // int16_t[num_entries]; empty when max_def == 0
  Buffer rep_levels;                       // int16_t[num_entries]; empty when max_rep == 0
  const columnar::Array* array = nullptr;  // the leaf's Array
  // Indices into *array of the values, in entry order. Unused when all_valid is true:
  // then the values are the valid slots of *array in [slot_offset, slot_offset +
  // num_entries), in order (the flat case).
  std::vector<int64_t> value_indices;
  bool all_valid = true;
  int64_t slot_offset = 0;
  int64_t num_values = 0;
};

// Computes the levels of every leaf under `node` from rows [offset, offset + length) of
// `array` (whose type matches node.type); appends one ShreddedLeaf per leaf to `out`, in
// leaf order. A null where the Parquet schema says REQUIRED is kInvalidArgument.
// REQUIRES: array.Validate() is OK; the row range lies within the array.
Status ShredArray(const AssemblyNode& node, const columnar::Array& array, int64_t offset,
                  int64_t length, std::vector<ShreddedLeaf>* out);

}  // namespace floe::format::parquet
