// What every decision table's test (test_auto_rule_*.cpp) checks of its plan names: the record's
// metrics.plan is a plan's name, so each plan has one, no two share one, and Count has none.
#pragma once
#include <set>
#include <string>

#include "check.hpp"

template <class Plan, class Name>
void check_plan_names(Name name) {
  std::set<std::string> seen;
  for (unsigned i = 0; i < unsigned(Plan::Count); ++i) {
    const std::string n = name(Plan(i));
    CHECK_MSG(n != "?" && seen.insert(n).second, "plan " << i << " named " << n);
  }
  CHECK(std::string(name(Plan::Count)) == "?");
}
