#pragma once
// `dbrepro-native key-cache`: E2's model run without Python (for perf and
// valgrind), its options the settings table driver/key_cache/fields.hpp.

namespace dbrepro::cli {

// Runs the cells that argv[2..] set and prints a summary line per cell; the exit status.
int key_cache_command(int argc, char** argv);

}  // namespace dbrepro::cli
