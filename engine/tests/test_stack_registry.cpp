// The registries of stacks and replacement policies: every row is a stack the
// driver can build, names are unique, and the name-to-type maps agree.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <type_traits>

#include "cache/policies.hpp"
#include "driver/tpcc/run_config.hpp"
#include "driver/tpcc/stack_registry.hpp"
#include "driver/tpcc/with_stack.hpp"

namespace dbrepro::tpcc {
namespace {

TEST(StackRegistry, EveryRowValidatesAndNamesAreUnique) {
  std::set<std::string> names;
  for (const StackInfo& s : kStacks) {
    EXPECT_TRUE(names.insert(s.name).second) << s.name;
    RunConfig c;
    c.stack = s.name;
    c.transactions = 10;
    EXPECT_NO_THROW(validate(c)) << s.name;
    EXPECT_EQ(&find_stack(s.name), &s);
  }
  EXPECT_THROW(find_stack("step12"), std::invalid_argument);
  EXPECT_EQ(stack_step("step11"), kOptimalStep);
}

TEST(StackRegistry, TerminalsFollowTheConcurrentColumn) {
  for (const StackInfo& s : kStacks) {
    RunConfig c;
    c.stack = s.name;
    c.transactions = 10;
    c.terminals = 2;
    if (s.concurrent) {
      EXPECT_NO_THROW(validate(c)) << s.name;
    } else {
      EXPECT_THROW(validate(c), std::invalid_argument) << s.name;
    }
  }
}

TEST(StackRegistry, WithStackMapsEachRowToItsType) {
  for (const StackInfo& s : kStacks) {
    RunConfig c;
    c.stack = s.name;
    const RunConfig r = resolve(c);
    const int kind = with_stack(r, []<class S>(std::type_identity<S>) {
      if constexpr (std::is_same_v<S, DiskStacks>) return 1;
      else if constexpr (std::is_same_v<S, OptimalKernelStack>) return 2;
      else return 0;
    });
    EXPECT_EQ(kind, s.disk ? 1 : s.step == kOptimalStep ? 2 : 0) << s.name;
  }
  RunConfig step3;
  step3.stack = "step3";
  EXPECT_TRUE(with_stack(resolve(step3), []<class S>(std::type_identity<S>) { return std::is_same_v<S, Step3>; }));
}

TEST(PolicyRegistry, NamesAreUniqueAndMapBack) {
  std::set<std::string> names;
  for (size_t i = 0; i < cache::kPolicyCount; ++i) {
    EXPECT_TRUE(names.insert(cache::kPolicyNames[i]).second);
    EXPECT_EQ(cache::policy_index(cache::kPolicyNames[i]), i);
    const std::string via_type =
        cache::with_policy(cache::kPolicyNames[i], []<class P>(std::type_identity<P>) { return std::string(P::kName); });
    EXPECT_EQ(via_type, cache::kPolicyNames[i]);
  }
  EXPECT_THROW(cache::policy_index("mru"), std::invalid_argument);
}

}  // namespace
}  // namespace dbrepro::tpcc
