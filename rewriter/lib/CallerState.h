//===- CallerState.h - hazards a section run as its caller keeps ------------===//
#ifndef RCL_REWRITER_CALLERSTATE_H
#define RCL_REWRITER_CALLERSTATE_H

#include "llvm/ADT/StringRef.h"

namespace rcl {

/// The program's links route gettid(), syscall(SYS_gettid) and prctl(PR_GET_NAME) through
/// librcl, which answers a section run as its caller with its caller's kernel thread id and
/// name (rcl-cc's links do: runtime/src/caller.c, "The caller's thread id and name";
/// rcl-rewrite --librcl-thread-queries). Off by default: a program linked otherwise would get
/// the server's.
void setLibrclAnswersThreadQueries(bool Answers);

/// Whether Reason, a hazard reached through any chain of calls (threadHazard's words at its
/// end), is only a use of the calling thread's state that a section run as its caller keeps:
/// a thread-local variable, pthread_self, thread-specific data (the C library's, which the
/// thread pointer designates), and the kernel's thread id and name where librcl answers them. Such
/// a section converts as one that the server runs as its caller (runtime/src/caller.c,
/// RCL_AS_CALLER); every other hazard refuses. Where a section reaches both, the analyses
/// report the other one (harderHazard).
bool usesCallerState(llvm::StringRef Reason);

/// Whether New should replace Old as the hazard reported: New refuses in more settings than
/// Old (the C library's state < the kernel's thread id and name < everything else).
bool harderHazard(llvm::StringRef New, llvm::StringRef Old);

/// Whether nothing met after Reason can be harder (a search for a function's hazard may stop
/// there). Independent of setLibrclAnswersThreadQueries, so that the facts a unit records are the
/// same whoever reads them.
bool finalHazard(llvm::StringRef Reason);

} // namespace rcl

#endif
