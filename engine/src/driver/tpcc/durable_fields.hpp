#pragma once
// The one table of the options of `dbrepro-native durable-run` and
// `recover` (a common/config_fields.hpp table of DurableRunConfig): both
// commands read every option through it, so a value one refuses the other
// refuses too, with the same line. The run's own settings (stack,
// warehouses, seconds, ...) are set through TPC-C's run table
// (driver/tpcc/fields.hpp), with a durable run's own ranges where they
// differ (terminals); the rest (run id, acks, checkpoints) are a durable
// run's alone.
#include <span>

#include "common/config_fields.hpp"
#include "driver/tpcc/durable_run.hpp"

namespace dbrepro::tpcc {

using DurableField = config::Field<DurableRunConfig>;

std::span<const DurableField> durable_fields();

}  // namespace dbrepro::tpcc
