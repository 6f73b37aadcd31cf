// `bench compare BASE.json NEW.json`: the regression gate between two result files of the same
// study. Host-only (nlohmann/json and fmt, no CUDA) so that it can run on a machine without a GPU,
// e.g. in CI against results copied off the GPU machine.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace harness {

// Parses a --threshold value: "5%", "5 %", "12.5%" (percentages) or "0.05" (a bare number is a
// fraction, so "5" means 500% and is rejected). Throws std::invalid_argument with a one-line
// message naming --threshold for anything else, negative values, or values >= 100%.
double parse_threshold(const std::string& text);

// Compares NEW against BASE record by record, keyed by (study, variant, params). Writes the table,
// a summary line and a verdict line to `out`. Returns the exit code of `bench compare`:
//   0  no slow-down;
//   1  at least one record is slower beyond max(threshold, noise), or a record that did not fail
//      in BASE fails (status "failed" or validation "fail") in NEW;
//   2  error: unreadable or malformed file, wrong schema_version, different studies, or no record
//      of NEW matches BASE. Exactly one line starting with "error: " goes to `err` and nothing to
//      `out`.
// Records only in one file ("missing", "new") and records skipped in either are listed but never
// fail the gate. CPU baselines (kind "cpu") get verdicts but fail the gate only with `gate_cpu`:
// on a shared host they moved by up to 2.4x between two runs of unchanged code, far beyond the
// spread that a few in-run samples show.
//
// With `exact` (metric-name prefixes, e.g. {"served_per_input.", "reference_checksum"}) the gate is
// one of determinism, not speed: times are not compared; a record whose status or validation
// differs, or any metric under those prefixes that differs (numbers beyond 1e-12 relative), is
// CHANGED and fails the gate. For quantities that do not depend on the machine's speed: the cache
// simulator's counts, the checksums of the CPU references.
int compare_results(const std::string& base_path, const std::string& new_path, double threshold,
                    std::ostream& out, std::ostream& err, bool gate_cpu = false,
                    const std::vector<std::string>& exact = {});

}  // namespace harness
