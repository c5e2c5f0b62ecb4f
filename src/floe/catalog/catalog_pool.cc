#include "floe/catalog/catalog_pool.h"

#include <utility>

namespace floe::catalog {

CatalogLease::~CatalogLease() {
  if (catalog_ && pool_) pool_->Release(std::move(catalog_));
}

Result<CatalogLease> CatalogPool::Acquire() {
  {
    std::lock_guard lock(mu_);
    if (!idle_.empty()) {
      std::unique_ptr<Catalog> catalog = std::move(idle_.back());
      idle_.pop_back();
      return CatalogLease(this, std::move(catalog));
    }
  }
  auto opened = factory_();
  if (!opened.ok()) return opened.status();
  return CatalogLease(this, std::move(*opened));
}

std::optional<uint64_t> CatalogPool::ChangeVersion() {
  std::shared_ptr<ChangeProbe> probe;
  bool opened;
  {
    std::lock_guard lock(mu_);
    probe = probe_;
    opened = probe_opened_;
  }
  if (!opened) {
    // First use: open the probe from a catalog of the pool. Without one the pool still
    // serves; only caching is off.
    std::lock_guard once(probe_open_mu_);
    std::shared_ptr<ChangeProbe> made;
    auto lease = Acquire();
    if (!lease.ok()) return std::nullopt;
    auto opened_probe = (*lease)->OpenChangeProbe();
    if (opened_probe.ok()) made = std::move(*opened_probe);
    std::lock_guard lock(mu_);
    if (!probe_opened_) {
      probe_opened_ = true;
      probe_ = std::move(made);
    }
    probe = probe_;
  }
  if (!probe) return std::nullopt;
  auto version = probe->Version();
  if (!version.ok()) return std::nullopt;
  return *version;
}

void CatalogPool::Release(std::unique_ptr<Catalog> catalog) {
  std::lock_guard lock(mu_);
  if (idle_.size() < max_idle_) idle_.push_back(std::move(catalog));
}

void CatalogRegistry::Put(std::shared_ptr<CatalogPool> pool) {
  std::unique_lock lock(mu_);
  std::string name = pool->name();
  pools_[std::move(name)] = std::move(pool);
}

void CatalogRegistry::Remove(std::string_view name) {
  std::unique_lock lock(mu_);
  if (auto it = pools_.find(name); it != pools_.end()) pools_.erase(it);
}

Result<std::shared_ptr<CatalogPool>> CatalogRegistry::Get(std::string_view name) const {
  std::shared_lock lock(mu_);
  auto it = pools_.find(name);
  if (it == pools_.end()) return Status::NotFound("no catalog named '{}'", name);
  return it->second;
}

bool CatalogRegistry::Contains(std::string_view name) const {
  std::shared_lock lock(mu_);
  return pools_.find(name) != pools_.end();
}

std::vector<std::string> CatalogRegistry::Names() const {
  std::shared_lock lock(mu_);
  std::vector<std::string> out;
  for (const auto& [name, pool] : pools_) out.push_back(name);
  return out;
}

}  // namespace floe::catalog
