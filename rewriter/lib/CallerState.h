//===- CallerState.h - hazards a section run as its caller keeps ------------===//
#ifndef RCL_REWRITER_CALLERSTATE_H
#define RCL_REWRITER_CALLERSTATE_H

#include "llvm/ADT/StringRef.h"

namespace rcl {

/// Whether Reason, a hazard reached through any chain of calls (threadHazard's words at its
/// end), is only a use of the calling thread's state in the C library: a thread-local
/// variable, pthread_self, thread-specific data. Such a section converts as one that the
/// server runs as its caller (runtime/src/caller.c, RCL_AS_CALLER); every other hazard
/// refuses. Where a section reaches both, the analyses report the other one (harderHazard).
bool usesCallerState(llvm::StringRef Reason);

/// Whether New should replace Old as the hazard reported: Old only uses the caller's state
/// and New does more.
bool harderHazard(llvm::StringRef New, llvm::StringRef Old);

} // namespace rcl

#endif
