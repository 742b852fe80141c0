#pragma once
// The one place libsolv's C headers are included. libsolv's `Solvable` has a field named
// `requires`, a keyword in C++20; the macro renames the field for C++ only (layout unchanged).
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wkeyword-macro"
#endif
#define requires solv_requires
#include <solv/evr.h>
#include <solv/pool.h>
#include <solv/poolid.h>
#include <solv/pooltypes.h>
#include <solv/problems.h>
#include <solv/queue.h>
#include <solv/repo.h>
#include <solv/rules.h>
#include <solv/solvable.h>
#include <solv/solver.h>
#include <solv/transaction.h>
#undef requires
#if defined(__clang__)
#pragma clang diagnostic pop
#endif
