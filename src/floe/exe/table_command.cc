// `floe namespace ...` and `floe table ...`: catalog operations against --catalog URI
// (sqlite:PATH, postgresql://..., file:PATH; env FLOE_CATALOG). The work is the catalog
// layer's (floe/catalog/catalog.h); this file parses flags and prints.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/base/macros.h"
#include "floe/catalog/catalog.h"
#include "floe/exe/catalog_flags.h"
#include "floe/exe/command.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/schema_update.h"
#include "floe/iceberg/sort_order.h"

namespace floe::exe {

namespace {

using catalog::Catalog;
using catalog::Namespace;
using catalog::TableIdentifier;

Result<std::map<std::string, std::string>> ParseProperties(
    const std::vector<std::string>& pairs) {
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
  out["schema"] = md.current_schema() ? iceberg::SchemaToJsonValue(*md.current_schema())
                                      : nlohmann::json();
  out["spec"] = md.default_spec() ? nlohmann::json::parse(
                                        iceberg::PartitionSpecToJson(*md.default_spec()))
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
  if (base->table_uuid) requirements.push_back(iceberg::requirement::AssertTableUuid{*base->table_uuid});
  std::vector<iceberg::TableUpdate> changes;
  if (!updates.empty()) changes.push_back(iceberg::update::SetProperties{updates});
  if (!a.unset.empty()) changes.push_back(iceberg::update::RemoveProperties{a.unset});
  FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadataPtr md, ops->Commit(requirements, changes));
  if (a.flags.json) return PrintDescribe(a.flags, id, *md);
  return Status::OK();
}

}  // namespace

void AddCatalogFlags(CLI::App* command, CatalogFlags* flags) {
  command->add_option("--catalog", flags->uri,
                      "Catalog URI: sqlite:PATH, postgresql://user:pass@host:port/db, file:PATH")
      ->envname("FLOE_CATALOG");
  command->add_option("--warehouse", flags->warehouse,
                      "Root of new tables' default locations (SQL catalogs)")
      ->envname("FLOE_WAREHOUSE");
  command->add_option("--catalog-name", flags->name,
                      "The SQL catalog's catalog_name (default: default, pyiceberg's default)")
      ->envname("FLOE_CATALOG_NAME");
  command->add_flag("--json", flags->json, "Print JSON");
}

Result<std::unique_ptr<Catalog>> OpenFromFlags(const CatalogFlags& flags) {
  if (flags.uri.empty()) {
    return Status::InvalidArgument("no catalog: pass --catalog URI or set FLOE_CATALOG");
  }
  catalog::CatalogOptions options;
  options.name = flags.name;
  options.warehouse = flags.warehouse;
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
    c->add_option("--partition-by,--partition", a->partition, "Partition text: \"bucket(16, id), day(ts)\"");
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
  AddTableDataCommands(table, exit_code);
}

}  // namespace floe::exe
