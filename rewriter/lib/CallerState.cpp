//===- CallerState.cpp - hazards a section run as its caller keeps ----------===//
#include "CallerState.h"

namespace rcl {

// The words are threadHazard's (CalleeFacts.cpp): "uses thread-local variable 'x'", "uses its
// thread's pthread_self", "uses its thread's thread-specific data (...)". A chain of calls
// ends with exactly one hazard, and quoted names cannot hold these words.
bool usesCallerState(llvm::StringRef Reason) {
    return Reason.contains("uses thread-local variable '") || Reason.contains("uses its thread's ");
}

bool harderHazard(llvm::StringRef New, llvm::StringRef Old) {
    return usesCallerState(Old) && !usesCallerState(New);
}

} // namespace rcl
