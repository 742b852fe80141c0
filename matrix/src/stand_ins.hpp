#pragma once
// Releases that a newer release of the same package stands for in every solve, found once when
// the matrix is loaded (the build does it for the image). An offline lock merges alike versions
// (solver::Request::merge_alike_versions): of the versions of a name whose records are alike and
// that no specifier on the name tells apart, only the newest is solved over. A profile lock
// made records of about half the releases it reaches only for the solver to drop them.
//
// Two releases stand for each other on every target when everything a record takes from them
// but the version is the same: requirements (markers included), Python range, files (their
// names with the version taken out: the same wheel tags, the same sdist), CUDA build, kernels,
// the index or page serving them, pre-release or not. And every specifier the matrix states on
// the package (the requirements of every release, the rules' conditions and requirements, the
// profiles' requirements and preferences) must answer both versions alike. A lock checks the
// specifiers only it knows (a user's requirements, a replaced lock's pins, observed results)
// before it leaves a release out. Packages that some requirement asks extras of are left
// alone: each extra's record requires its release exactly.
#include "bevenv/matrix/model.hpp"

namespace bevenv::matrix::detail {

// Sets `newer_stands_for` on every release that the matrix lets stand in, clears it elsewhere.
void mark_stand_ins(Matrix& matrix);
// Clears it everywhere: for a matrix some of whose releases were left out after marking.
void forget_stand_ins(Matrix& matrix);
// Moves the marked releases out, keeping their versions (Package::stood_for): a lock that finds
// none of them kept (app/lock_stand_ins.hpp) never reads the rest of them.
void leave_out_stood_for(Matrix& matrix);

}  // namespace bevenv::matrix::detail
