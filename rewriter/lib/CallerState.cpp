//===- CallerState.cpp - hazards a section run as its caller keeps ----------===//
#include "CallerState.h"

namespace rcl {

static bool AnswersThreadQueries = false;

void setLibrclAnswersThreadQueries(bool Answers) {
    AnswersThreadQueries = Answers;
}

/// 0: the C library's state of the thread; 1: what librcl answers for it (its kernel thread id,
/// its name); 2: anything else. The words are threadHazard's (CalleeFacts.cpp): "uses
/// thread-local variable 'x'", "uses its thread's pthread_self", "uses its thread's
/// thread-specific data (...)", "asks its thread's kernel id (gettid)", "asks its thread's name
/// (prctl PR_GET_NAME)". A chain of calls ends with exactly one hazard, and quoted names cannot
/// hold these words.
static int rank(llvm::StringRef Reason) {
    if (Reason.contains("uses thread-local variable '") || Reason.contains("uses its thread's "))
        return 0;
    if (Reason.contains("asks its thread's ")) return 1;
    return 2;
}

bool usesCallerState(llvm::StringRef Reason) {
    int R = rank(Reason);
    return R == 0 || (R == 1 && AnswersThreadQueries);
}

bool harderHazard(llvm::StringRef New, llvm::StringRef Old) {
    return rank(New) > rank(Old);
}

bool finalHazard(llvm::StringRef Reason) {
    return rank(Reason) == 2;
}

} // namespace rcl
