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
