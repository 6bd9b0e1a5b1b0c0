#pragma once
// The one table of E3's LadderConfig fields (a common/config_fields.hpp
// table): the Python binding takes a ladder's settings by these names
// (`_engine.openedge_ladder(**settings)`), `_engine.openedge_config_fields()`
// exports them, and `python -m dbrepro.openedge` builds its options from
// them. Ranges and the checks across fields are validate(LadderConfig)'s.
#include <span>

#include "common/config_fields.hpp"
#include "driver/openedge/run.hpp"

namespace dbrepro::openedge {

using LadderField = config::Field<LadderConfig>;

std::span<const LadderField> ladder_fields();

}  // namespace dbrepro::openedge
