#pragma once
// The one table of E2's KeyCacheRunConfig fields (a common/config_fields.hpp
// table, as TPC-C's and E3's): the Python binding takes a run's settings by
// these names (`_engine.key_cache_run(**settings)`) and
// `_engine.key_cache_config_fields()` exports them. Ranges and the checks
// across fields are validate(KeyCacheRunConfig)'s.
#include <span>

#include "common/config_fields.hpp"
#include "driver/key_cache/run.hpp"

namespace dbrepro::keycache_driver {

using KeyCacheField = config::Field<KeyCacheRunConfig>;

std::span<const KeyCacheField> key_cache_fields();

}  // namespace dbrepro::keycache_driver
