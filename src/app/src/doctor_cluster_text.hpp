#pragma once
// Shared by the launch line and its rendering: the placeholders a printed line may hold, the
// shell form of an argv, and rank 0's aggregate turned into doctor lines.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bevenv/app/output.hpp"
#include "bevenv/matrix/model.hpp"

namespace bevenv::app {

// Stand-ins for what only the user knows; a line that holds one is printed, never run.
inline constexpr const char* kMasterPlaceholder = "$MASTER_ADDR";
inline constexpr const char* kHostfilePlaceholder = "hostfile";

// The line as a POSIX shell reads it back (placeholders left expandable).
std::string shell_line(const std::vector<std::string>& argv);

// The aggregate JSON document in the launcher's stdout (launchers may add their own lines).
std::optional<nlohmann::json> find_aggregate(const std::string& out);

// Doctor lines for rank 0's aggregate; returns true when it found no problem.
// The fixes of its problems come from `matrix`'s failure catalogue (`rank-unreachable`,
// `nodes-differ`); without one they are left out.
bool render_aggregate(const nlohmann::json& aggregate, const matrix::Matrix* matrix,
                      CommandOutput& output);

}  // namespace bevenv::app
