// `floe namespace ...` and `floe table ...`: catalog operations against --catalog URI
// (sqlite:PATH, postgresql://..., file:PATH; env FLOE_CATALOG). The work is the catalog
// layer's (floe/catalog/catalog.h); this file parses flags and prints.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/base/macros.h"
#include "floe/catalog/catalog.h"
#include "floe/exe/catalog_flags.h"
#include "floe/exe/command.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/schema_update.h"
#include "floe/iceberg/sort_order.h"
#include "floe/iceberg/table.h"
#include "floe/io/s3/make_file_io.h"

namespace floe::exe {

namespace {

using catalog::Catalog;
using catalog::Namespace;
using catalog::TableIdentifier;

Status Print(const std::string& text) {
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    return Status::IOError("cannot write to standard output");
  }
  return Status::OK();
}

Status PrintJson(const nlohmann::json& value) { return Print(value.dump(2) + "\n"); }

nlohmann::json NamespaceJson(const Namespace& ns) { return ns.levels; }

nlohmann::json DescribeJson(const TableIdentifier& id, const iceberg::TableMetadata& md) {
  nlohmann::json out;
  out["identifier"] = id.ToString();
  out["metadata_location"] = md.metadata_file_location;
  out["location"] = md.location;
  out["format_version"] = md.format_version;
  out["table_uuid"] = md.table_uuid ? nlohmann::json(*md.table_uuid) : nlohmann::json();
  out["current_schema_id"] = md.current_schema_id;
  out["schema"] =
      md.current_schema() ? iceberg::SchemaToJsonValue(*md.current_schema()) : nlohmann::json();
  out["spec"] = md.default_spec()
                    ? nlohmann::json::parse(iceberg::PartitionSpecToJson(*md.default_spec()))
                    : nlohmann::json();
  out["sort_order"] = md.default_sort_order()
                          ? iceberg::SortOrderToJsonValue(*md.default_sort_order())
                          : nlohmann::json();
  out["properties"] = md.properties;
  out["current_snapshot_id"] =
      md.current_snapshot_id ? nlohmann::json(*md.current_snapshot_id) : nlohmann::json();
  out["snapshots"] = md.snapshots.size();
  out["last_updated_ms"] = md.last_updated_ms;
  return out;
}

Status PrintDescribe(const CatalogFlags& flags, const TableIdentifier& id,
                     const iceberg::TableMetadata& md) {
  nlohmann::json j = DescribeJson(id, md);
  if (flags.json) return PrintJson(j);
  std::string text;
  for (const char* key : {"identifier", "table_uuid", "format_version", "location",
                          "metadata_location", "current_snapshot_id", "snapshots"}) {
    const nlohmann::json& v = j[key];
    text += std::string(key) + ": " + (v.is_string() ? v.get<std::string>() : v.dump()) + "\n";
  }
  text += "schema: " + j["schema"].dump() + "\n";
  text += "spec: " + j["spec"].dump() + "\n";
  text += "sort_order: " + j["sort_order"].dump() + "\n";
  for (const auto& [k, v] : md.properties) text += "property " + k + "=" + v + "\n";
  return Print(text);
}

// --- namespace ---

struct NamespaceArgs {
  CatalogFlags flags;
  std::string ns;
  std::vector<std::string> properties;
};

Status NamespaceCreate(const NamespaceArgs& a) {
  FLOE_ASSIGN_OR_RETURN(auto cat, OpenFromFlags(a.flags));
  FLOE_ASSIGN_OR_RETURN(Namespace ns, catalog::ParseNamespace(a.ns));
  if (ns.empty()) return Status::InvalidArgument("namespace name is empty");
  FLOE_ASSIGN_OR_RETURN(auto props, ParseProperties(a.properties));
  FLOE_RETURN_IF_ERROR(cat->CreateNamespace(ns, props));
  if (a.flags.json) return PrintJson({{"namespace", NamespaceJson(ns)}, {"created", true}});
  return Status::OK();
}

Status NamespaceList(const NamespaceArgs& a) {
  FLOE_ASSIGN_OR_RETURN(auto cat, OpenFromFlags(a.flags));
  FLOE_ASSIGN_OR_RETURN(Namespace parent, catalog::ParseNamespace(a.ns));
  FLOE_ASSIGN_OR_RETURN(auto list, cat->ListNamespaces(parent));
  if (a.flags.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const Namespace& ns : list) out.push_back(ns.ToString());
    return PrintJson(out);
  }
  std::string text;
  for (const Namespace& ns : list) text += ns.ToString() + "\n";
  return Print(text);
}

Status NamespaceDescribe(const NamespaceArgs& a) {
  FLOE_ASSIGN_OR_RETURN(auto cat, OpenFromFlags(a.flags));
  FLOE_ASSIGN_OR_RETURN(Namespace ns, catalog::ParseNamespace(a.ns));
  FLOE_ASSIGN_OR_RETURN(auto props, cat->LoadNamespaceProperties(ns));
  if (a.flags.json) return PrintJson({{"namespace", NamespaceJson(ns)}, {"properties", props}});
  std::string text = "namespace: " + ns.ToString() + "\n";
  for (const auto& [k, v] : props) text += "property " + k + "=" + v + "\n";
  return Print(text);
}

Status NamespaceDrop(const NamespaceArgs& a) {
  FLOE_ASSIGN_OR_RETURN(auto cat, OpenFromFlags(a.flags));
  FLOE_ASSIGN_OR_RETURN(Namespace ns, catalog::ParseNamespace(a.ns));
  return cat->DropNamespace(ns);
}

// --- table ---

struct TableArgs {
  CatalogFlags flags;
  std::string id;
  std::string to;
  std::string schema;
  std::string partition;
  std::string sort;
  std::string location;
  int format_version = iceberg::kDefaultFormatVersion;
  std::vector<std::string> properties;
  std::vector<std::string> unset;
  std::vector<std::string> identifier;
  bool purge = false;
};

Status TableCreate(const TableArgs& a) {
  FLOE_ASSIGN_OR_RETURN(TableIdentifier id, TableIdentifier::Parse(a.id));
  catalog::CreateTableRequest request;
  FLOE_ASSIGN_OR_RETURN(request.schema, iceberg::ParseSchemaText(a.schema));
  if (!a.identifier.empty()) {
    std::vector<int32_t> ids;
    for (const std::string& name : a.identifier) {
      const iceberg::NestedField* f = request.schema.FindFieldByName(name);
      if (f == nullptr) return Status::InvalidArgument("unknown identifier column '{}'", name);
      ids.push_back(f->id);
    }
    FLOE_ASSIGN_OR_RETURN(request.schema, iceberg::Schema::Make(request.schema.fields(),
                                                                request.schema.schema_id(), ids));
    for (int32_t id : ids) {
      FLOE_RETURN_IF_ERROR(iceberg::ValidateIdentifierField(request.schema, id));
    }
  }
  if (!a.partition.empty()) {
    FLOE_ASSIGN_OR_RETURN(request.spec, iceberg::ParsePartitionText(request.schema, a.partition));
  }
  if (!a.sort.empty()) {
    FLOE_ASSIGN_OR_RETURN(request.sort_order, iceberg::ParseSortText(request.schema, a.sort));
  }
  if (!a.location.empty()) request.location = a.location;
  FLOE_ASSIGN_OR_RETURN(request.properties, ParseProperties(a.properties));
  request.format_version = a.format_version;
  FLOE_ASSIGN_OR_RETURN(auto cat, OpenFromFlags(a.flags));
  FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadataPtr md, cat->CreateTable(id, request));
  return PrintDescribe(a.flags, id, *md);
}

Status TableList(const TableArgs& a) {
  FLOE_ASSIGN_OR_RETURN(auto cat, OpenFromFlags(a.flags));
  FLOE_ASSIGN_OR_RETURN(Namespace ns, catalog::ParseNamespace(a.id));
  FLOE_ASSIGN_OR_RETURN(auto tables, cat->ListTables(ns));
  if (a.flags.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const TableIdentifier& t : tables) out.push_back(t.ToString());
    return PrintJson(out);
  }
  std::string text;
  for (const TableIdentifier& t : tables) text += t.ToString() + "\n";
  return Print(text);
}

Status TableDescribe(const TableArgs& a) {
  FLOE_ASSIGN_OR_RETURN(TableIdentifier id, TableIdentifier::Parse(a.id));
  FLOE_ASSIGN_OR_RETURN(auto cat, OpenFromFlags(a.flags));
  FLOE_ASSIGN_OR_RETURN(auto ops, cat->LoadTable(id));
  FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadataPtr md, ops->Refresh());
  return PrintDescribe(a.flags, id, *md);
}

Status TableDrop(const TableArgs& a) {
  FLOE_ASSIGN_OR_RETURN(TableIdentifier id, TableIdentifier::Parse(a.id));
  FLOE_ASSIGN_OR_RETURN(auto cat, OpenFromFlags(a.flags));
  return cat->DropTable(id, a.purge);
}

Status TableRename(const TableArgs& a) {
  FLOE_ASSIGN_OR_RETURN(TableIdentifier from, TableIdentifier::Parse(a.id));
  FLOE_ASSIGN_OR_RETURN(TableIdentifier to, TableIdentifier::Parse(a.to));
  FLOE_ASSIGN_OR_RETURN(auto cat, OpenFromFlags(a.flags));
  return cat->RenameTable(from, to);
}

Status TableSetProperty(const TableArgs& a) {
  FLOE_ASSIGN_OR_RETURN(TableIdentifier id, TableIdentifier::Parse(a.id));
  FLOE_ASSIGN_OR_RETURN(auto updates, ParseProperties(a.properties));
  if (updates.empty() && a.unset.empty()) {
    return Status::InvalidArgument("nothing to set: give KEY=VALUE or --unset KEY");
  }
  FLOE_ASSIGN_OR_RETURN(auto cat, OpenFromFlags(a.flags));
  FLOE_ASSIGN_OR_RETURN(auto ops, cat->LoadTable(id));
  FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadataPtr base, ops->Refresh());
  // The requirement Java's UpdateRequirements sends with any update: the same table.
  std::vector<iceberg::TableRequirement> requirements;
  if (base->table_uuid)
    requirements.push_back(iceberg::requirement::AssertTableUuid{*base->table_uuid});
  std::vector<iceberg::TableUpdate> changes;
  if (!updates.empty()) changes.push_back(iceberg::update::SetProperties{updates});
  if (!a.unset.empty()) changes.push_back(iceberg::update::RemoveProperties{a.unset});
  FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadataPtr md, ops->Commit(requirements, changes));
  if (a.flags.json) return PrintDescribe(a.flags, id, *md);
  return Status::OK();
}

// --- evolve ---

struct EvolveArgs {
  CatalogFlags flags;
  std::string id;
  std::vector<std::string> add_columns;
  std::vector<std::string> drop_columns;
  std::vector<std::string> renames;
  std::vector<std::string> widens;
  std::vector<std::string> make_optional;
  std::vector<std::string> require;
  std::vector<std::string> moves;
  std::vector<std::string> identifier;
  bool clear_identifier = false;
  std::vector<std::string> add_partitions;
  std::vector<std::string> drop_partitions;
  std::vector<std::string> rename_partitions;
  std::string sort;
  bool allow_incompatible = false;
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// "OLD=NEW" -> {OLD, NEW}.
Result<std::pair<std::string, std::string>> ParsePair(std::string_view flag,
                                                      std::string_view text) {
  size_t eq = text.find('=');
  std::string_view left = Trim(text.substr(0, eq));
  std::string_view right = eq == std::string_view::npos ? "" : Trim(text.substr(eq + 1));
  if (eq == std::string_view::npos || left.empty() || right.empty()) {
    return Status::InvalidArgument("{} '{}' is not OLD=NEW", flag, text);
  }
  return std::pair{std::string(left), std::string(right)};
}

// "--add-column 'address.zip string not null comment ...'": the column's full name (a
// struct's fields after a dot; backticks quote a name with dots or spaces), then its type
// in the schema text syntax of `table create`.
Status AddColumnFromText(iceberg::UpdateSchema& update, std::string_view text) {
  text = Trim(text);
  std::string full;
  std::string_view rest;
  if (!text.empty() && text.front() == '`') {
    size_t close = text.find('`', 1);
    if (close == std::string_view::npos) {
      return Status::InvalidArgument("--add-column '{}': unterminated `", text);
    }
    full = std::string(text.substr(1, close - 1));
    rest = text.substr(close + 1);
  } else {
    size_t space = text.find_first_of(" \t");
    if (space == std::string_view::npos) {
      return Status::InvalidArgument("--add-column '{}' needs a name and a type", text);
    }
    full = std::string(text.substr(0, space));
    rest = text.substr(space);
  }
  if (full.empty() || Trim(rest).empty()) {
    return Status::InvalidArgument("--add-column '{}' needs a name and a type", text);
  }
  // A quoted name is one level; an unquoted dotted one names a field of a struct column.
  std::string parent;
  std::string leaf = full;
  if (text.front() != '`') {
    size_t dot = full.rfind('.');
    if (dot != std::string::npos) {
      parent = full.substr(0, dot);
      leaf = full.substr(dot + 1);
    }
  }
  auto parsed = iceberg::ParseSchemaText("`x` " + std::string(Trim(rest)));
  if (!parsed.ok()) {
    return Status::InvalidArgument("--add-column '{}': {}", text, parsed.status().message());
  }
  const iceberg::NestedField& f = parsed->fields().front();
  update.AddColumn(parent, leaf, f.type, f.doc, f.required);
  return Status::OK();
}

// "--move 'NAME first'", "'NAME before OTHER'", "'NAME after OTHER'".
Status MoveFromText(iceberg::UpdateSchema& update, std::string_view text) {
  std::vector<std::string> words;
  std::string_view t = Trim(text);
  while (!t.empty()) {
    size_t space = t.find_first_of(" \t");
    words.emplace_back(t.substr(0, space));
    t = space == std::string_view::npos ? std::string_view() : Trim(t.substr(space));
  }
  if (words.size() == 2 && words[1] == "first") {
    update.MoveFirst(words[0]);
  } else if (words.size() == 3 && words[1] == "before") {
    update.MoveBefore(words[0], words[2]);
  } else if (words.size() == 3 && words[1] == "after") {
    update.MoveAfter(words[0], words[2]);
  } else {
    return Status::InvalidArgument(
        "--move '{}' is not 'NAME first', 'NAME before OTHER' or 'NAME after OTHER'", text);
  }
  return Status::OK();
}

bool HasSchemaChanges(const EvolveArgs& a) {
  return !a.add_columns.empty() || !a.drop_columns.empty() || !a.renames.empty() ||
         !a.widens.empty() || !a.make_optional.empty() || !a.require.empty() || !a.moves.empty() ||
         !a.identifier.empty() || a.clear_identifier;
}

Status StageSchemaChanges(const EvolveArgs& a, iceberg::UpdateSchema& update) {
  if (a.allow_incompatible) update.AllowIncompatibleChanges();
  for (const std::string& text : a.add_columns)
    FLOE_RETURN_IF_ERROR(AddColumnFromText(update, text));
  for (const std::string& name : a.drop_columns) update.DeleteColumn(name);
  for (const std::string& text : a.renames) {
    FLOE_ASSIGN_OR_RETURN(auto pair, ParsePair("--rename-column", text));
    update.RenameColumn(pair.first, pair.second);
  }
  for (const std::string& text : a.widens) {
    FLOE_ASSIGN_OR_RETURN(auto pair, ParsePair("--widen-column", text));
    auto type = iceberg::ParseTypeText(pair.second);
    if (!type.ok()) {
      return Status::InvalidArgument("--widen-column '{}': {}", text, type.status().message());
    }
    update.UpdateColumn(pair.first, *type);
  }
  for (const std::string& name : a.make_optional) update.MakeColumnOptional(name);
  for (const std::string& name : a.require) update.RequireColumn(name);
  for (const std::string& text : a.moves) FLOE_RETURN_IF_ERROR(MoveFromText(update, text));
  if (!a.identifier.empty() || a.clear_identifier) update.SetIdentifierFields(a.identifier);
  return update.Commit();
}

// Each --add-partition is partition text for one field ("bucket(16, id)", "day(ts) as d"),
// resolved against the schema the transaction has so far (so it may use a column added in
// the same command).
Status StageSpecChanges(const EvolveArgs& a, const iceberg::Schema& schema,
                        iceberg::UpdatePartitionSpec& update) {
  for (const std::string& text : a.add_partitions) {
    FLOE_ASSIGN_OR_RETURN(iceberg::PartitionSpec one, iceberg::ParsePartitionText(schema, text));
    if (one.fields().size() != 1) {
      return Status::InvalidArgument("--add-partition '{}' must name one partition field", text);
    }
    const iceberg::PartitionField& f = one.fields().front();
    std::optional<std::string> source = schema.FindColumnName(f.source_id);
    if (!source) return Status::InvalidArgument("--add-partition '{}': no source column", text);
    // Java picks the default name itself (and resolves clashes with removed fields); pass a
    // name only when the text gave one.
    const bool named = text.find(" as ") != std::string::npos;
    update.AddField(*source, f.transform, named ? f.name : std::string());
  }
  for (const std::string& name : a.drop_partitions) update.RemoveField(name);
  for (const std::string& text : a.rename_partitions) {
    FLOE_ASSIGN_OR_RETURN(auto pair, ParsePair("--rename-partition", text));
    update.RenameField(pair.first, pair.second);
  }
  return update.Commit();
}

Status StageSortOrder(const std::string& text, const iceberg::Schema& schema,
                      iceberg::ReplaceSortOrder& update) {
  FLOE_ASSIGN_OR_RETURN(iceberg::SortOrder order, iceberg::ParseSortText(schema, text));
  for (const iceberg::SortField& f : order.fields()) {
    std::optional<std::string> source = schema.FindColumnName(f.source_id);
    if (!source) return Status::InvalidArgument("--sort-by '{}': no source column", text);
    update.Add(*source, f.transform, f.direction, f.null_order);
  }
  return update.Commit();
}

// Schema, partition spec and sort order changes in one atomic commit, with Iceberg Java's
// rules (metadata_updates.h); the new metadata is printed like `table describe`.
Status TableEvolve(const EvolveArgs& a) {
  const bool spec_changes =
      !a.add_partitions.empty() || !a.drop_partitions.empty() || !a.rename_partitions.empty();
  if (!HasSchemaChanges(a) && !spec_changes && a.sort.empty()) {
    return Status::InvalidArgument("nothing to change: see `floe table evolve --help`");
  }
  FLOE_ASSIGN_OR_RETURN(TableIdentifier id, TableIdentifier::Parse(a.id));
  FLOE_ASSIGN_OR_RETURN(auto cat, OpenFromFlags(a.flags));
  FLOE_ASSIGN_OR_RETURN(auto ops, cat->LoadTable(id));
  FLOE_ASSIGN_OR_RETURN(auto table, iceberg::Table::Load(*ops));
  auto txn = table->NewTransaction();
  if (HasSchemaChanges(a)) FLOE_RETURN_IF_ERROR(StageSchemaChanges(a, txn->NewUpdateSchema()));
  if (spec_changes) {
    FLOE_RETURN_IF_ERROR(
        StageSpecChanges(a, *txn->current()->current_schema(), txn->NewUpdateSpec()));
  }
  if (!a.sort.empty()) {
    FLOE_RETURN_IF_ERROR(
        StageSortOrder(a.sort, *txn->current()->current_schema(), txn->NewReplaceSortOrder()));
  }
  FLOE_RETURN_IF_ERROR(txn->Commit());
  return PrintDescribe(a.flags, id, *table->metadata());
}

}  // namespace

Result<std::map<std::string, std::string>> ParseProperties(const std::vector<std::string>& pairs) {
  std::map<std::string, std::string> out;
  for (const std::string& pair : pairs) {
    size_t eq = pair.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument("property '{}' is not KEY=VALUE", pair);
    }
    out[pair.substr(0, eq)] = pair.substr(eq + 1);
  }
  return out;
}

void AddCatalogFlags(CLI::App* command, CatalogFlags* flags) {
  command
      ->add_option("--catalog", flags->uri,
                   "Catalog URI: sqlite:PATH, postgresql://user:pass@host:port/db, file:PATH, "
                   "rest:http://host:port[/base][?token=T|credential=ID:SECRET]")
      ->envname("FLOE_CATALOG");
  command
      ->add_option("--warehouse", flags->warehouse,
                   "Root of new tables' default locations (SQL catalogs)")
      ->envname("FLOE_WAREHOUSE");
  command
      ->add_option("--catalog-name", flags->name,
                   "The SQL catalog's catalog_name, a REST catalog's warehouse "
                   "(default: default, pyiceberg's default)")
      ->envname("FLOE_CATALOG_NAME");
  command->add_option("--catalog-property", flags->properties,
                      "Catalog property KEY=VALUE, repeatable: s3.endpoint, s3.region, "
                      "s3.access-key-id, s3.secret-access-key, s3.session-token, "
                      "s3.path-style-access, ... (docs/storage.md)");
  command->add_flag("--json", flags->json, "Print JSON");
}

Result<std::unique_ptr<Catalog>> OpenFromFlags(const CatalogFlags& flags,
                                               std::shared_ptr<io::s3::S3Metrics> s3_metrics) {
  if (flags.uri.empty()) {
    return Status::InvalidArgument("no catalog: pass --catalog URI or set FLOE_CATALOG");
  }
  catalog::CatalogOptions options;
  options.name = flags.name;
  options.warehouse = flags.warehouse;
  FLOE_ASSIGN_OR_RETURN(auto properties, ParseProperties(flags.properties));
  if (auto it = properties.find(std::string(catalog::kAllowedLocationsProperty));
      it != properties.end()) {
    options.allowed_locations = catalog::LocationPolicy::ParseAllowedLocations(it->second);
  }
  // The process environment is read here, at the edge (AWS_* variables).
  auto getenv = [](const char* name) { return std::getenv(name); };
  FLOE_ASSIGN_OR_RETURN(options.io, io::s3::MakeFileIO(properties, getenv, std::move(s3_metrics)));
  return catalog::OpenCatalog(flags.uri, std::move(options));
}

void AddTableCommands(CLI::App& app, int* exit_code) {
  auto* ns = app.add_subcommand("namespace", "Catalog namespaces");
  ns->require_subcommand(1);
  {
    auto a = std::make_shared<NamespaceArgs>();
    auto* c = ns->add_subcommand("create", "Create a namespace");
    AddCatalogFlags(c, &a->flags);
    c->add_option("namespace", a->ns, "Namespace, levels separated by '.'")->required();
    c->add_option("--property", a->properties, "KEY=VALUE (repeatable)");
    SetCommand(c, exit_code, [a] { return NamespaceCreate(*a); });
  }
  {
    auto a = std::make_shared<NamespaceArgs>();
    auto* c = ns->add_subcommand("list", "List the namespaces below PARENT (default: top)");
    AddCatalogFlags(c, &a->flags);
    c->add_option("parent", a->ns, "Parent namespace");
    SetCommand(c, exit_code, [a] { return NamespaceList(*a); });
  }
  {
    auto a = std::make_shared<NamespaceArgs>();
    auto* c = ns->add_subcommand("describe", "Show a namespace's properties");
    AddCatalogFlags(c, &a->flags);
    c->add_option("namespace", a->ns, "Namespace")->required();
    SetCommand(c, exit_code, [a] { return NamespaceDescribe(*a); });
  }
  {
    auto a = std::make_shared<NamespaceArgs>();
    auto* c = ns->add_subcommand("drop", "Drop an empty namespace");
    AddCatalogFlags(c, &a->flags);
    c->add_option("namespace", a->ns, "Namespace")->required();
    SetCommand(c, exit_code, [a] { return NamespaceDrop(*a); });
  }

  auto* table = app.add_subcommand("table", "Catalog tables");
  table->require_subcommand(1);
  {
    auto a = std::make_shared<TableArgs>();
    auto* c = table->add_subcommand("create", "Create a table");
    AddCatalogFlags(c, &a->flags);
    c->add_option("table", a->id, "NS.TABLE")->required();
    c->add_option("--schema", a->schema,
                  "Schema text: \"id long not null, name string, ts timestamptz\"")
        ->required();
    c->add_option("--partition-by,--partition", a->partition,
                  "Partition text: \"bucket(16, id), day(ts)\"");
    c->add_option("--sort-by,--sort", a->sort, "Sort text: \"id desc nulls last\"");
    c->add_option("--location", a->location, "Table location (default: the catalog's)");
    c->add_option("--property", a->properties, "KEY=VALUE (repeatable)");
    c->add_option("--format-version", a->format_version, "1, 2 or 3 (default 2)");
    c->add_option("--identifier", a->identifier, "Identifier (primary key) columns: id,region")
        ->delimiter(',');
    SetCommand(c, exit_code, [a] { return TableCreate(*a); });
  }
  {
    auto a = std::make_shared<TableArgs>();
    auto* c = table->add_subcommand("list", "List the tables of a namespace");
    AddCatalogFlags(c, &a->flags);
    c->add_option("namespace", a->id, "Namespace")->required();
    SetCommand(c, exit_code, [a] { return TableList(*a); });
  }
  {
    auto a = std::make_shared<TableArgs>();
    auto* c = table->add_subcommand("describe", "Show a table's current metadata");
    AddCatalogFlags(c, &a->flags);
    c->add_option("table", a->id, "NS.TABLE")->required();
    SetCommand(c, exit_code, [a] { return TableDescribe(*a); });
  }
  {
    auto a = std::make_shared<TableArgs>();
    auto* c = table->add_subcommand("drop", "Drop a table");
    AddCatalogFlags(c, &a->flags);
    c->add_option("table", a->id, "NS.TABLE")->required();
    c->add_flag("--purge", a->purge, "Also delete every file the table's metadata reaches");
    SetCommand(c, exit_code, [a] { return TableDrop(*a); });
  }
  {
    auto a = std::make_shared<TableArgs>();
    auto* c = table->add_subcommand("rename", "Rename a table");
    AddCatalogFlags(c, &a->flags);
    c->add_option("from", a->id, "NS.TABLE")->required();
    c->add_option("to", a->to, "NS.TABLE")->required();
    SetCommand(c, exit_code, [a] { return TableRename(*a); });
  }
  {
    auto a = std::make_shared<TableArgs>();
    auto* c = table->add_subcommand("set-property", "Set or remove table properties (a commit)");
    AddCatalogFlags(c, &a->flags);
    c->add_option("table", a->id, "NS.TABLE")->required();
    c->add_option("properties", a->properties, "KEY=VALUE ...");
    c->add_option("--unset", a->unset, "KEY to remove (repeatable)");
    SetCommand(c, exit_code, [a] { return TableSetProperty(*a); });
  }
  {
    auto a = std::make_shared<EvolveArgs>();
    auto* c = table->add_subcommand(
        "evolve", "Evolve the schema, partition spec and sort order (one atomic commit)");
    AddCatalogFlags(c, &a->flags);
    c->add_option("table", a->id, "NS.TABLE")->required();
    c->add_option(
        "--add-column", a->add_columns,
        "\"NAME TYPE [not null] [comment '...']\"; NAME may be struct.field (repeatable)");
    c->add_option("--drop-column", a->drop_columns, "Column to drop (repeatable)");
    c->add_option("--rename-column", a->renames, "OLD=NEW (repeatable)");
    c->add_option("--widen-column", a->widens,
                  "NAME=TYPE: int->long, float->double, wider decimal, v3 date->timestamp")
        ->type_name("NAME=TYPE");
    c->add_option("--make-optional", a->make_optional, "Make a required column optional");
    c->add_option("--require", a->require,
                  "Make an optional column required (needs --allow-incompatible)");
    c->add_option("--move", a->moves, "\"NAME first\", \"NAME before X\" or \"NAME after X\"");
    c->add_option("--identifier", a->identifier, "New identifier columns: id,region")
        ->delimiter(',');
    c->add_flag("--clear-identifier", a->clear_identifier, "Remove the identifier columns");
    c->add_option("--add-partition", a->add_partitions,
                  "Partition field: \"bucket(16, id)\", \"day(ts) as d\" (repeatable)");
    c->add_option("--drop-partition", a->drop_partitions, "Partition field name to remove");
    c->add_option("--rename-partition", a->rename_partitions, "OLD=NEW partition field name");
    c->add_option("--sort-by,--sort", a->sort, "New sort order: \"id desc nulls last\"");
    c->add_flag("--allow-incompatible", a->allow_incompatible,
                "Allow changes that old readers or writers cannot handle (required columns)");
    SetCommand(c, exit_code, [a] { return TableEvolve(*a); });
  }
  AddTableDataCommands(table, exit_code);
}

}  // namespace floe::exe
