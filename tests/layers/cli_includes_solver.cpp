// Must not compile: the CLI links the app privately, and the app keeps the solver private.
#include "bevenv/solver/solve.hpp"
