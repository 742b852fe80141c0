// Must compile: the control for cli_includes_solver.cpp (same target shape, allowed header).
#include "bevenv/app/lock.hpp"
