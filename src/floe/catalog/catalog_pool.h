// CatalogPool: Catalog objects are not thread-safe (each owns its connection), so a server
// hands each request a catalog of its own from a pool, opened on first need and kept for the
// next request. CatalogRegistry: the named catalogs a server serves.
//
// Thread-safety: both are thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"
#include "floe/catalog/catalog.h"

namespace floe::catalog {

class CatalogPool;

// A catalog borrowed from a pool; returned to it on destruction.
class CatalogLease {
 public:
  CatalogLease(CatalogPool* pool, std::unique_ptr<Catalog> catalog)
      : pool_(pool), catalog_(std::move(catalog)) {}
  CatalogLease(CatalogLease&&) noexcept = default;
  CatalogLease& operator=(CatalogLease&&) = delete;
  ~CatalogLease();

  Catalog& operator*() const { return *catalog_; }
  Catalog* operator->() const { return catalog_.get(); }
  // Drops the catalog instead of returning it (its connection may be broken).
  void Discard() { catalog_.reset(); }

 private:
  CatalogPool* pool_;
  std::unique_ptr<Catalog> catalog_;
};

class CatalogPool {
 public:
  using Factory = std::function<Result<std::unique_ptr<Catalog>>()>;

  // Keeps at most `max_idle` idle catalogs.
  CatalogPool(std::string name, Factory factory, size_t max_idle = 64)
      : name_(std::move(name)), factory_(std::move(factory)), max_idle_(max_idle) {}

  const std::string& name() const { return name_; }

  // An idle catalog, or a new one from the factory (its errors).
  Result<CatalogLease> Acquire();

  // The catalog database's change version (Catalog::OpenChangeProbe), or nullopt when its
  // backend has none or the probe failed: then nothing may be served from a cache. The first
  // call opens the probe (blocking); later ones run one cheap probe query.
  std::optional<uint64_t> ChangeVersion();

 private:
  friend class CatalogLease;
  void Release(std::unique_ptr<Catalog> catalog);

  std::string name_;
  Factory factory_;
  size_t max_idle_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Catalog>> idle_;
  std::mutex probe_open_mu_;            // one opener at a time
  bool probe_opened_ = false;           // guarded by mu_
  std::shared_ptr<ChangeProbe> probe_;  // guarded by mu_; the probe itself is thread-safe
};

class CatalogRegistry {
 public:
  // Adds or replaces the pool of `pool->name()`.
  void Put(std::shared_ptr<CatalogPool> pool);
  void Remove(std::string_view name);
  // kNotFound when no catalog has the name.
  Result<std::shared_ptr<CatalogPool>> Get(std::string_view name) const;
  bool Contains(std::string_view name) const;
  std::vector<std::string> Names() const;

 private:
  mutable std::shared_mutex mu_;
  std::map<std::string, std::shared_ptr<CatalogPool>, std::less<>> pools_;
};

}  // namespace floe::catalog
