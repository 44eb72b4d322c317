# libxml2: xmlMutexLock/xmlMutexUnlock (threads.c) wrap pthread_mutex_lock on an xmlMutex.
# make check runs runtest (with its threaded tests) and the others, about two minutes. In the
# shared library's (PIC) compiles, elfgcchack.h renames every call and definition to
# xmlMutexLock__internal_alias (a macro: `rcl: warning: 'xmlMutexLock' ... is a macro`), so the
# aliases are declared too; without them the library's sections were converted in the static
# objects only, and the suite's programs, linked with the shared library, delegated 4.3 %.
RCL_CONF='lock-fn=xmlMutexLock,xmlMutexLock__internal_alias\nunlock-fn=xmlMutexUnlock,xmlMutexUnlock__internal_alias'
CONFIGURE='./configure CC="$CC" --without-python'
BUILD_CMD='make -j"$JOBS"'
TEST_CMD='make -k check'
TEST_TIMEOUT=400
# runtest's total ("Total 508 tests, 1 errors, 0 leaks") is the result compared: the Debian
# source (+dfsg) lacks test/threads/, so the threaded test fails the same in every build.
FAILED_CMD='sed -n "s/^Total \([0-9]*\) tests, \([0-9]*\) errors, \([0-9]*\) leaks.*/runtest:\1-tests,\2-errors,\3-leaks/p"'
