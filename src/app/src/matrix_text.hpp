#pragma once
// Text for matrix records shared by the `matrix` commands.
#include <string>
#include <vector>

#include "bevenv/matrix/model.hpp"

namespace bevenv::app::matrix_text {

// `torch <1.11, python >=3.9, profile bevfusion`
std::string describe_when(const matrix::Rule& rule);
// `conflicts setuptools>=59.6`
std::string describe_then(const matrix::Rule& rule);

}  // namespace bevenv::app::matrix_text
