// floe_catalog_store_tool: drives a SqlCatalogStore from the command line, for the interop
// tests (tests/interop/test_sql_catalog.py). Not a product command: `floe namespace` will be.
//
//   floe_catalog_store_tool URI CATALOG COMMAND ARGS...
//
// Namespaces are given dotted ("a.b"). Output is one item per line. On error it prints
// "<StatusCodeName>: <message>" to stderr and exits 1; usage errors exit 2.
#include <cstdio>
#include <string>
#include <vector>

#include "floe/base/macros.h"
#include "floe/catalog/sql_catalog_store.h"

namespace floe::catalog {
namespace {

constexpr const char* kUsage =
    "usage: floe_catalog_store_tool URI CATALOG COMMAND ARGS...\n"
    "  create-namespace NS [KEY=VALUE...]   namespace-exists NS   list-namespaces [PARENT]\n"
    "  properties NS   update-properties NS [-KEY | KEY=VALUE]...   drop-namespace NS\n"
    "  create-table NS NAME LOCATION   load-table NS NAME   cas NS NAME EXPECTED NEW\n"
    "  rename NS NAME TO_NS TO_NAME   drop-table NS NAME   list-tables NS\n"
    "  cas-loop NS NAME COUNT   (COUNT successful increments of a location \"v<n>\")\n";

NamespaceProperties ParseProperties(const std::vector<std::string>& args, size_t from,
                                    std::vector<std::string>* removals, bool* usage) {
  NamespaceProperties properties;
  for (size_t i = from; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (removals != nullptr && arg.starts_with('-')) {
      removals->push_back(arg.substr(1));
      continue;
    }
    size_t eq = arg.find('=');
    if (eq == std::string::npos) {
      *usage = true;
      return {};
    }
    properties[arg.substr(0, eq)] = arg.substr(eq + 1);
  }
  return properties;
}

Status Run(SqlCatalogStore& store, const std::string& command, const std::vector<std::string>& args,
           bool* usage) {
  auto need = [&](size_t n) {
    if (args.size() != n) *usage = true;
    return !*usage;
  };
  auto ns = [&](size_t i) { return Namespace::FromString(args[i]); };
  if (command == "create-namespace" && args.size() >= 1) {
    NamespaceProperties properties = ParseProperties(args, 1, nullptr, usage);
    if (*usage) return Status::OK();
    return store.CreateNamespace(ns(0), properties);
  }
  if (command == "namespace-exists" && need(1)) {
    FLOE_ASSIGN_OR_RETURN(bool exists, store.NamespaceExists(ns(0)));
    std::puts(exists ? "true" : "false");
    return Status::OK();
  }
  if (command == "list-namespaces" && args.size() <= 1) {
    FLOE_ASSIGN_OR_RETURN(auto list, store.ListNamespaces(args.empty() ? Namespace{} : ns(0)));
    for (const Namespace& n : list) std::puts(n.ToString().c_str());
    return Status::OK();
  }
  if (command == "properties" && need(1)) {
    FLOE_ASSIGN_OR_RETURN(auto properties, store.LoadNamespaceProperties(ns(0)));
    for (const auto& [k, v] : properties) std::printf("%s=%s\n", k.c_str(), v.c_str());
    return Status::OK();
  }
  if (command == "update-properties" && args.size() >= 1) {
    std::vector<std::string> removals;
    NamespaceProperties updates = ParseProperties(args, 1, &removals, usage);
    if (*usage) return Status::OK();
    FLOE_ASSIGN_OR_RETURN(auto change, store.UpdateNamespaceProperties(ns(0), removals, updates));
    for (const auto& k : change.updated) std::printf("updated %s\n", k.c_str());
    for (const auto& k : change.removed) std::printf("removed %s\n", k.c_str());
    for (const auto& k : change.missing) std::printf("missing %s\n", k.c_str());
    return Status::OK();
  }
  if (command == "drop-namespace" && need(1)) return store.DropNamespace(ns(0));
  if (command == "create-table" && need(3)) return store.CreateTable(ns(0), args[1], args[2]);
  if (command == "load-table" && need(2)) {
    FLOE_ASSIGN_OR_RETURN(auto pointer, store.LoadTable(ns(0), args[1]));
    std::puts(pointer.metadata_location.c_str());
    std::puts(pointer.previous_metadata_location.value_or("").c_str());
    return Status::OK();
  }
  if (command == "cas" && need(4)) return store.CompareAndSwap(ns(0), args[1], args[2], args[3]);
  if (command == "rename" && need(4)) return store.RenameTable(ns(0), args[1], ns(2), args[3]);
  if (command == "drop-table" && need(2)) return store.DropTable(ns(0), args[1]);
  if (command == "list-tables" && need(1)) {
    FLOE_ASSIGN_OR_RETURN(auto names, store.ListTables(ns(0)));
    for (const auto& n : names) std::puts(n.c_str());
    return Status::OK();
  }
  if (command == "cas-loop" && need(3)) {
    int count = std::atoi(args[2].c_str());
    int done = 0;
    int conflicts = 0;
    while (done < count) {
      auto current = store.LoadTable(ns(0), args[1]);
      if (!current.ok()) {
        if (current.status().code() == StatusCode::kUnavailable) continue;
        return current.status();
      }
      int n = std::atoi(current->metadata_location.c_str() + 1);
      Status status = store.CompareAndSwap(ns(0), args[1], current->metadata_location,
                                           "v" + std::to_string(n + 1));
      if (status.ok()) {
        ++done;
      } else if (status.code() == StatusCode::kConflict) {
        ++conflicts;
      } else if (status.code() != StatusCode::kUnavailable) {
        return status;
      }
    }
    std::printf("%d %d\n", done, conflicts);
    return Status::OK();
  }
  *usage = true;
  return Status::OK();
}

int Main(int argc, char** argv) {
  if (argc < 4) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::vector<std::string> args(argv + 4, argv + argc);
  auto store = SqlCatalogStore::Open(argv[1], argv[2]);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().ToString().c_str());
    return 1;
  }
  bool usage = false;
  Status status = Run(**store, argv[3], args, &usage);
  if (usage) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace floe::catalog

int main(int argc, char** argv) { return floe::catalog::Main(argc, argv); }
