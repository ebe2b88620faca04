// Discarding a workspace (discard.cpp), shared with the recovery of a discard that died
// (workspace.cpp).
#pragma once

#include "berth/berth.hpp"

namespace berth {

/// The rest of a discard killed after its tree left its place: the tree aside lets go of the
/// branch, and the branch goes when nothing else has it and its commits are kept.
void finish_discard(const Project& project, const Workspace& w);

} // namespace berth
