// Must not compile: the solver never sees matrix types (docs/architecture.md).
#include "bevenv/matrix/model.hpp"
