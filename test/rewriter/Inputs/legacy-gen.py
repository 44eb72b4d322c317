#!/usr/bin/env python3
"""Differential testing of rcl-rewrite on legacy C shapes that csmith never writes.

For each seed (deterministically) a single-file C program is generated: one function per
section, each with its own mutex and shared counter, written in a random mix of what old C
code does around critical sections:

- how the lock is taken and released: plain calls, `(void)` casts, checked results
  (`if (pthread_mutex_lock(&m) != 0) abort();`, `if (pthread_mutex_unlock(&m)) abort();`,
  `assert(pthread_mutex_lock(&m) == 0);`),
  macros (`#define LOCK(m) pthread_mutex_lock(m)`, `#define BLOCK_LOCK(l)
  {pthread_mutex_lock(&(l));}`), wrappers (`my_lock`), wrappers with location arguments
  called through a macro (`#define possess(a) possess_(a, __FILE__, __LINE__)`), the wrappers
  declared with --lock-fn/--unlock-fn on the command line the harness builds;
- around the section: a synchronized-block macro (`for (i = 0; i ? (my_unlock(&m), 0) :
  (my_lock(&m), 1); i = 1)`), `pthread_cleanup_push/pop` (around the section, inside it, or
  releasing the lock), the section inside a statement expression, inside a loop;
- inside: `register` locals (written, read, declared in the section), statement expressions,
  `#if`/`#ifdef` blocks, comments and backslash line continuations at the boundaries, a local
  buffer written with snprintf, variables declared in the section and used after it;
- leaving it: `unlock; return "literal";`, `return 'c';`, `return -1;`, break/continue out of
  a loop, `goto out` after a conditional unlock;
- K&R definitions, for some programs -std=gnu89;
- the shapes of the rewriter's second round (drawn from a generator of their own, so that the
  seeds' other shapes stay the ones earlier campaigns saw): lock results checked `< 0` and
  `!(!(...))`, kept in a local and checked (lock and unlock), optional locks (`if (p) lock(p);`,
  bare or in a do-while macro), a lock wrapper with statements before and after its lock and an
  unlock wrapper with statements after its unlock, wrappers nobody declared (`lk_<k>()`), a
  checked wrapper whose failure path calls a helper that exits (not declared noreturn), a whole
  section inside a statement macro and a lock and an unlock each inside its own `#if` block
  (both converted in rcl-cc's copy: --resolve-copy), C11 mtx_t sections, and sections that use
  their thread's state (a thread-local accumulator, pthread_self, a kernel id cached from
  syscall(SYS_gettid), the name from prctl(PR_GET_NAME), these two with rcl-cc's wraps: run as
  their callers), checked wrappers whose test assigns the result to a file-scope variable
  (PortAudio's PA_ENSURE_SYSTEM), and lock macros written as statement expressions with a check
  before the lock (Tor's LOCK_LOGS: converted in rcl-cc's copy), and the lock taken in the
  branches of an `if` (both, a trylock-or-lock branch, an `else if` chain) and released after
  it (converted in rcl-cc's copy, each branch its own section).

main() calls every function in one thread (a checksum of their results), then 2 threads call
the functions whose results depend only on their arguments (their sections only add to their
counter) many times, so lost updates show in the counters printed at the end. The program's
output must not depend on the interleaving: a function whose section reads its counter is
called by main's thread only.

difftest.py (shared with csmith-diff.py) rewrites (--all and the wrapper options), compiles
and runs original and converted, the converted one in RCL_MODE=delegate, adaptive and local,
and compares; see its docstring. A rewriter failure, an uncompilable rewritten file or a
different output is a mismatch; a refused section is not (its reason is counted).

    legacy-gen.py --rewrite build/rewriter/rcl-rewrite --libs "build/runtime/librcl.a -lhwloc -pthread" \\
                  --include runtime/include --count 200 --seed 1 --workdir /tmp/lgd
    legacy-gen.py --print 17        # the program of seed 17, and the rewriter options it needs

scripts/fuzz-rewriter.sh --generator legacy runs long campaigns with it.
"""
import collections
import os
import random
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import difftest  # noqa: E402  (the shared harness: compile, run, compare, reduce, summary)

ITERATIONS = 2000  # calls of each threaded function per thread, after a common start

HELPERS = collections.OrderedDict([
    ("ifdef", "#define LEGACY_FAST 1\n"),
    ("macro", "#define LOCK(m) pthread_mutex_lock(m)\n#define UNLOCK(m) pthread_mutex_unlock(m)\n"),
    ("block", "#define BLOCK_LOCK(l) {pthread_mutex_lock(&(l));}\n"
              "#define BLOCK_UNLOCK(l) {pthread_mutex_unlock(&(l));}\n"),
    # Tor's LOCK_LOGS: a check and the lock in a statement expression written as a statement
    # (STMT_BEGIN/STMT_END under GCC and Clang); converted in rcl-cc's copy (--resolve-copy).
    ("stmtexpr", "static int se_ready = 1;\n"
                 "#define SE_LOCK(l) (void)({ if (!se_ready) abort(); pthread_mutex_lock(&(l)); })\n"
                 "#define SE_UNLOCK(l) (void)({ if (!se_ready) abort(); "
                 "pthread_mutex_unlock(&(l)); })\n"),
    ("wrapper", "static void my_lock(pthread_mutex_t *m)\n{\n    pthread_mutex_lock(m);\n}\n\n"
                "static void my_unlock(pthread_mutex_t *m)\n{\n    pthread_mutex_unlock(m);\n}\n"),
    ("possess", "typedef struct { pthread_mutex_t mutex; unsigned long value; } lock;\n\n"
                "static void possess_(lock *bolt, char const *file, long line)\n{\n"
                "    (void)file;\n    (void)line;\n    pthread_mutex_lock(&bolt->mutex);\n}\n\n"
                "static void release_(lock *bolt, char const *file, long line)\n{\n"
                "    (void)file;\n    (void)line;\n    pthread_mutex_unlock(&bolt->mutex);\n}\n"
                "#define possess(a) possess_(a, __FILE__, __LINE__)\n"
                "#define release(a) release_(a, __FILE__, __LINE__)\n"),
    ("sync", "#define SYNCHRONIZED(m, i) \\\n"
             "    for (i = 0; i ? (my_unlock(&(m)), 0) : (my_lock(&(m)), 1); i = 1)\n"),
    ("cleanup", "static void unlock_cleanup(void *m)\n{\n    pthread_mutex_unlock(m);\n}\n\n"
                "static void note_cleanup(void *p)\n{\n    (*(long *)p)++;\n}\n"),
    ("optional-macro", "#define OPT_LOCK(p) do { if (p) pthread_mutex_lock(p); } while (0)\n"
                       "#define OPT_UNLOCK(p) do { if (p) pthread_mutex_unlock(p); } while (0)\n"),
    ("effects", "static unsigned long fx_before, fx_released;\n\n"
                "static void fx_lock(pthread_mutex_t *m, unsigned long *held)\n{\n"
                "    __atomic_fetch_add(&fx_before, 1, __ATOMIC_RELAXED);\n"
                "    pthread_mutex_lock(m);\n    (*held)++;\n}\n\n"
                "static void fx_unlock(pthread_mutex_t *m, unsigned long *held)\n{\n"
                "    (*held) += 2;\n    pthread_mutex_unlock(m);\n"
                "    __atomic_fetch_add(&fx_released, 1, __ATOMIC_RELAXED);\n}\n"),
    # jemalloc's malloc_mutex_lock: a trylock through an inline function, a slow path on
    # failure (spinning, then a blocking lock, counted), statistics under the lock, and the
    # caller's token through an accessor call. Its counts of contention are not printed.
    ("fastpath", "static unsigned long fp_spins, fp_waits;\nstatic int fp_token;\n\n"
                 "static inline int fp_trylock_final(pthread_mutex_t *m)\n{\n"
                 "    return pthread_mutex_trylock(m) != 0;\n}\n\n"
                 "static void fp_lock_slow(pthread_mutex_t *m)\n{\n"
                 "    for (int i = 0; i < 50; i++)\n"
                 "        if (!fp_trylock_final(m)) {\n"
                 "            __atomic_fetch_add(&fp_spins, 1, __ATOMIC_RELAXED);\n"
                 "            return;\n        }\n"
                 "    pthread_mutex_lock(m);\n"
                 "    __atomic_fetch_add(&fp_waits, 1, __ATOMIC_RELAXED);\n}\n\n"
                 "static inline void *fp_self(void *t)\n{\n    return t;\n}\n\n"
                 "static inline void fp_lock(void *tok, pthread_mutex_t *m, unsigned long *ops)\n"
                 "{\n    (void)tok;\n    if (fp_trylock_final(m)) {\n"
                 "        fp_lock_slow(m);\n    }\n    (*ops)++;\n}\n\n"
                 "static inline void fp_unlock(void *tok, pthread_mutex_t *m, unsigned long *ops)\n"
                 "{\n    (void)tok;\n    (void)ops;\n    pthread_mutex_unlock(m);\n}\n"),
    ("checked-wrapper", "static void die(int e, const char *what)\n{\n"
                        "    fprintf(stderr, \"%s failed: %d\\n\", what, e);\n    exit(2);\n}\n\n"
                        "static void ck_lock(pthread_mutex_t *m)\n{\n    int ret;\n\n"
                        "    ret = pthread_mutex_lock(m);\n    if (ret)\n        die(ret, \"lock\");\n}\n\n"
                        "static void ck_unlock(pthread_mutex_t *m)\n{\n"
                        "    int ret = pthread_mutex_unlock(m);\n    if (ret < 0)\n"
                        "        die(ret, \"unlock\");\n}\n"),
    # A checked wrapper pair whose test keeps the result in a file-scope variable (PortAudio's
    # PA_ENSURE_SYSTEM: `if ((paUtilErr_ = pthread_mutex_lock(m)) != 0) goto error;`): a
    # converted section must leave it as the wrapper would, 0 (main sets it to 9 first).
    ("assigning-wrapper", "static int pa_err = 9; /* what the last wrapped operation returned */\n\n"
                          "static int pa_lock(pthread_mutex_t *m)\n{\n    int result = 0;\n\n"
                          "    do {\n        if ((pa_err = pthread_mutex_lock(m)) != 0) {\n"
                          "            fprintf(stderr, \"lock failed: %d\\n\", pa_err);\n"
                          "            result = -1;\n            goto error;\n        }\n"
                          "    } while (0);\nerror:\n    return result;\n}\n\n"
                          "static int pa_unlock(pthread_mutex_t *m)\n{\n    int result = 0;\n\n"
                          "    if ((pa_err = pthread_mutex_unlock(m)) != 0) {\n"
                          "        result = -1;\n        goto error;\n    }\n"
                          "error:\n    return result;\n}\n"),
    # MIT Kerberos's k5_mutex_lock: the result stored, printed when it is an error, asserted.
    ("reporting-wrapper", "static void rp_lock(pthread_mutex_t *m)\n{\n"
                          "    int r = pthread_mutex_lock(m);\n    if (r != 0) {\n"
                          "        fprintf(stderr, \"rp_lock: error %d\\n\", r);\n    }\n"
                          "    assert(r == 0);\n}\n\n"
                          "static void rp_unlock(pthread_mutex_t *m)\n{\n"
                          "    int r = pthread_mutex_unlock(m);\n"
                          "    if (r)\n        fprintf(stderr, \"rp_unlock: error %d\\n\", r);\n"
                          "    assert(!r);\n}\n"),
    # And its k5_os_mutex_lock: locks only when a memoising test, declared const, says so.
    ("guarded-wrapper", "static volatile int cg_flag = -1;\n"
                        "__attribute__((const)) static int cg_threads(void)\n{\n"
                        "    int x = cg_flag;\n    if (x != -1)\n        return x;\n"
                        "    cg_flag = 1;\n    return 1;\n}\n\n"
                        "static int cg_lock(pthread_mutex_t *m)\n{\n    if (cg_threads())\n"
                        "        return pthread_mutex_lock(m);\n    else\n        return 0;\n}\n\n"
                        "static int cg_unlock(pthread_mutex_t *m)\n{\n    if (cg_threads())\n"
                        "        return pthread_mutex_unlock(m);\n    return 0;\n}\n"),
    # A layer over a layer in one file: the section's wrappers call a checked portable layer
    # that nobody declared (inferred).
    ("layered-wrapper", "static void ly_mutex_lock(pthread_mutex_t *m)\n{\n"
                        "    if (pthread_mutex_lock(m) != 0)\n        abort();\n}\n\n"
                        "static void ly_mutex_unlock(pthread_mutex_t *m)\n{\n"
                        "    if (pthread_mutex_unlock(m) != 0)\n        abort();\n}\n\n"
                        "static void ly_lock(pthread_mutex_t *m)\n{\n    ly_mutex_lock(m);\n}\n\n"
                        "static void ly_unlock(pthread_mutex_t *m)\n{\n    ly_mutex_unlock(m);\n}\n"),
    ("threads", "#define LEGACY_THREADS 1\n"),
])
# The program's own allocator (jemalloc built in): a bump allocator whose section takes a
# mutex, so every section of the file becomes one of the allocator's (rcl_delegate_allocator)
# and the runtime's own allocations reach it. Drawn for a whole program (Program.allocator).
ALLOCATOR = """static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static _Alignas(64) char alloc_heap[256u << 20];
static size_t alloc_used;
static void *volatile alloc_keep; /* (the compiler may not drop the workers' allocations) */

static void *alloc_bump(size_t size, size_t align)
{
    char *p = NULL;
    size_t at;
    if (align < 16)
        align = 16;
    pthread_mutex_lock(&alloc_lock);
    at = (alloc_used + 16 + align - 1) & ~(align - 1);
    if (at + size <= sizeof alloc_heap) {
        alloc_used = at + (size ? size : 1);
        p = alloc_heap + at;
        ((size_t *)p)[-1] = size;
    }
    pthread_mutex_unlock(&alloc_lock);
    return p;
}

void *malloc(size_t size) { return alloc_bump(size, 16); }
void free(void *p) { (void)p; }
void *calloc(size_t n, size_t size) { return alloc_bump(n * size, 16); }
size_t malloc_usable_size(void *p) { return p ? ((size_t *)p)[-1] : 0; }
void *realloc(void *old, size_t size)
{
    void *p = alloc_bump(size, 16);
    if (p && old)
        memcpy(p, old, malloc_usable_size(old) < size ? malloc_usable_size(old) : size);
    return p;
}
int posix_memalign(void **out, size_t align, size_t size)
{
    void *p = alloc_bump(size, align);
    if (!p)
        return 12;
    *out = p;
    return 0;
}
void *aligned_alloc(size_t align, size_t size) { return alloc_bump(size, align); }
void *memalign(size_t align, size_t size) { return alloc_bump(size, align); }
void *valloc(size_t size) { return alloc_bump(size, 4096); }
void *pvalloc(size_t size) { return alloc_bump((size + 4095) & ~(size_t)4095, 4096); }
"""

# rcl-cc's links: the program's gettid and syscall through librcl (python/rcltools/driver.py).
TID_WRAP = ["-Wl,--wrap=gettid,--wrap=syscall,--wrap=prctl"] \
    if os.uname().machine in ("x86_64", "aarch64") else []

# The rcl-rewrite options a helper needs: its wrappers declared.
WRAPPERS = {"wrapper": ("my_lock", "my_unlock"), "sync": ("my_lock", "my_unlock"),
            "possess": ("possess_", "release_"), "effects": ("fx_lock", "fx_unlock"),
            "fastpath": ("fp_lock", "fp_unlock"),
            "checked-wrapper": ("ck_lock", "ck_unlock"),
            "assigning-wrapper": ("pa_lock", "pa_unlock"),
            "reporting-wrapper": ("rp_lock", "rp_unlock"),
            "guarded-wrapper": ("cg_lock", "cg_unlock"),
            "layered-wrapper": ("ly_lock", "ly_unlock")}
# The families of the second round (NEW_FAMILIES) and those only rcl-cc's copy converts.
NEW_FAMILIES = ["optional", "optional-macro", "effects", "inferred", "checked-wrapper",
                "macro-section", "ifdef-cross", "c11"]
RESOLVED = ("macro-section", "ifdef-cross", "worker-loop", "window", "early-exit")

RTYPES = {"str": "const char *", "chr": "char", "int": "long"}
HASH = {"str": "hash_str(%s)", "chr": "(unsigned char)%s", "int": "(unsigned long)%s"}
LITERALS = {"str": ['"one"', '"busy"', '"e\\"q"', '"x;y"', '""'],
            "chr": ["'x'", "';'", "'\\''", "'\\n'", "'}'"],
            "int": ["-1", "7", "-22"]}


class Section:
    """One function holding one critical section, drawn from the rng at construction."""

    def __init__(self, k, rng, avoid=(), rounds=(1, 2)):
        self.k = k
        ch = lambda p: rng.random() < p  # noqa: E731
        self.rtype = rng.choice(["str", "chr", "int", "int"])
        self.knr = ch(0.25)
        # The lock style: which pair of calls, and how each is written.
        family = rng.choice(["pthread"] * 6 + ["block", "wrapper", "possess", "sync",
                                               "cleanup-around", "cleanup-inside",
                                               "cleanup-pop-unlocks"])
        self.family = family
        self.lock_form = rng.choice(["plain", "void", "checked-ne", "checked-bool", "macro"])
        self.unlock_form = rng.choice(["plain", "void", "checked-ne", "checked-bool", "macro"])
        # `assert(op(m) == 0);` in place of some checked forms, drawn from a generator of its
        # own (seeded from the program's, not advancing it): the seeds' other shapes stay the
        # ones earlier campaigns and the lit tests saw.
        side = random.Random("%r/%d" % (rng.getstate()[1][:8], k))
        if self.lock_form == "checked-ne" and side.random() < 0.5:
            self.lock_form = "asserted"
        if self.unlock_form == "checked-ne" and side.random() < 0.5:
            self.unlock_form = "asserted"
        # The second round's shapes, from a generator of their own again.
        # rounds: (1,) the first round's shapes only, (2,) the second's only, (1, 2) both.
        new = random.Random("new/%r/%d" % (rng.getstate()[1][:8], k))
        only_new = 1 not in rounds
        if 2 not in rounds:
            pass
        elif family == "pthread" and (only_new or new.random() < 0.5):
            self.lock_form = new.choice(([] if only_new else [self.lock_form]) +
                                        ["checked-lt", "checked-notnot", "stored"])
            self.unlock_form = new.choice(([] if only_new else [self.unlock_form]) +
                                          ["checked-lt", "stored"])
        if 2 in rounds and (only_new and family != "pthread" or new.random() < 0.45):
            family = self.family = new.choice(NEW_FAMILIES)
            if family == "macro-section":
                self.outer = "plain"
        # The result assigned inside the test to a variable that outlives it (a local of the
        # function, a file-scope static as PortAudio's PA_ENSURE): from a generator of its own,
        # so the programs of earlier seeds keep their other shapes.
        assign = random.Random("assigned/%r/%d" % (rng.getstate()[1][:8], k))
        if 2 in rounds and family == "pthread" and assign.random() < 0.2:
            self.lock_form = assign.choice(["assigned", "assigned-global"])
        # A macro block whose local is initialised with the lock and only asserted
        # (PortAudio's ASSERT_CALL), again from a generator of its own.
        block_local = random.Random("assert-call/%r/%d" % (rng.getstate()[1][:8], k))
        if 2 in rounds and family == "pthread" and block_local.random() < 0.1:
            self.lock_form = "assert-call"
        # A wrapper with a fast path (jemalloc's) in place of some wrappers with effects, from a
        # generator of its own again.
        fast = random.Random("fastpath/%r/%d" % (rng.getstate()[1][:8], k))
        if family == "effects" and fast.random() < 0.5:
            family = self.family = "fastpath"
        self.block_semi = ch(0.5)
        self.outer = "plain"
        if family == "pthread" and ch(0.15):
            self.outer = "stmt-expr"
        elif family == "pthread" and ch(0.25):
            self.outer = "loop"
        self.lock_continued = ch(0.15)
        self.comments = ch(0.3)
        # Inside.
        self.reg_outer = ch(0.3)        # a register counter of the function, written inside
        self.reg_inner = ch(0.2)        # a register declared in a nested block of the section
        self.reg_read = ch(0.2)         # a register parameter-derived value only read inside
        self.stmt_expr = ch(0.3)
        self.ifblock = rng.choice([None, None, "if", "ifdef"])
        self.continued = ch(0.2)
        self.line_comment_continued = ch(0.1)
        self.buffer = ch(0.2)
        # Declared at the section's top level and used after it: only where the section's
        # statements are the function's (a for-macro, a cleanup block or a statement
        # expression would end the declaration's scope; in a loop it is used in the loop).
        self.decl_after = ch(0.35) and (self.outer in ("plain", "loop")) and \
            family in ("pthread", "block", "wrapper", "possess")
        self.reg_decl_after = self.decl_after and ch(0.2)
        self.sets_result = self.rtype != "int" and ch(0.6)
        # Reading the counter makes the results depend on the interleaving: main's thread only.
        self.reads_counter = ch(0.3)
        self.threaded = not self.reads_counter
        # Exits (not from a for-macro, a cleanup block or a statement expression: leaving
        # those with return/break/goto is undefined or skips the unlock).
        can_exit = family in ("pthread", "block", "wrapper", "possess", "optional",
                              "optional-macro", "effects", "fastpath", "inferred",
                              "checked-wrapper",
                              "ifdef-cross", "c11") and self.outer != "stmt-expr"
        self.exits = []
        if can_exit:
            if self.outer == "loop":
                self.exits = [e for e in ("continue", "break") if ch(0.6)]
            if ch(0.5):
                self.exits.append("return-literal")
            if ch(0.2):
                self.exits.append("return-var")
            if self.outer != "loop" and ch(0.25):
                self.exits.append("goto")
            if self.decl_after and ch(0.1):
                self.exits.append("return-section-var")
        self.literals = {e: rng.choice(LITERALS[self.rtype]) for e in ("return-literal",)}
        self.mods = [rng.randint(2, 7) for _ in range(6)]
        self.exit_unlock_same = ch(0.7)  # exits unlock like the final unlock, else plain
        # Known faults left out with --avoid (after every draw, so the rest of the program
        # stays the same): a written or hoisted `register` variable is declared without the
        # keyword, no string or character literal is returned after an unlock.
        self.register_kw = "register" not in avoid
        if "checked-unlock" in avoid:
            # A checked unlock is refused with a false reason ("still held at the end of its
            # block"): written as a (void) cast instead, so its section converts.
            self.unlock_form = {"checked-ne": "void", "checked-bool": "void"}.get(
                self.unlock_form, self.unlock_form)
        self.literal_returns = "return-literal" not in avoid
        if not self.literal_returns and self.rtype != "int" and "return-literal" in self.exits:
            self.exits.remove("return-literal")
        # A worker loop (second round) in place of some plain sections, from a generator of its
        # own: the other shapes of a seed stay the ones earlier campaigns drew.
        worker = random.Random("worker-loop/%r/%d" % (rng.getstate()[1][:8], k))
        if 2 in rounds and family == "pthread" and worker.random() < 0.12:
            self.family = "worker-loop"
            self.rtype, self.knr = "int", False
            self.reads_counter, self.threaded = False, True
            s2 = worker.random() < 0.6
            self.wl = {"s2": s2,                           # statements after the relock
                       "outer": worker.random() < 0.5 and s2,  # which read a local of the function
                       "cont": worker.random() < 0.5,      # a continue with the lock held
                       "held": worker.random() < 0.6,      # the exit breaks holding the lock
                       "loop": worker.choice(["for (;;)", "while (1)"])}
        # A section that lets its lock go for a stretch and takes it again, nested in its own
        # statements (second round, UnlockWindow.h: fuse's cache refreshed unlocked, a queue
        # drained one job at a time), in place of some plain sections: its own draw, as above.
        window = random.Random("unlock-window/%r/%d" % (rng.getstate()[1][:8], k))
        if 2 in rounds and self.family == "pthread" and window.random() < 0.1:
            self.family = "window"
            self.rtype, self.knr, self.outer = "int", False, "plain"
            self.reads_counter, self.threaded = False, True
            self.uw = {"where": window.choice(["if", "while", "for", "two"]),
                       "decl": window.random() < 0.5,  # the stretch declares what follows reads
                       "ret": window.random() < 0.3}   # the stretch may return
        # A section whose goto reaches, with the lock held, a label after an unlock that
        # returns (second round, SectionFinder::earlyExit: PulseAudio's pa_ratelimit_test, an
        # error label that frees), in place of some plain sections: its own draw, as above.
        early = random.Random("early-exit/%r/%d" % (rng.getstate()[1][:8], k))
        if 2 in rounds and self.family == "pthread" and early.random() < 0.06:
            self.family = "early-exit"
            self.rtype, self.knr, self.outer = "int", False, "plain"
            self.reads_counter, self.threaded = False, True
            self.ee = {"loop": early.random() < 0.5,  # the goto is in a loop
                       "two": early.random() < 0.4}   # two gotos
        # The lock taken in the branches of an `if` and released after it (second round,
        # BranchJoin.h: APR's `if (timeout) timedlock; else lock;`, a trylock-or-lock branch, an
        # `else if` chain), from a generator of its own.
        join = random.Random("branch-join/%r/%d" % (rng.getstate()[1][:8], k))
        self.branch = None
        # (each branch takes the lock in the section's own lock form)
        if 2 in rounds and self.family == "pthread" and self.outer in ("plain", "loop") and \
                join.random() < 0.15:
            self.branch = join.choice(["else", "trylock", "chain"])
        # The thread's state in the C library (second round), from a generator of its own: a
        # thread-local accumulator in the body or in a callee, pthread_self in a callee. The
        # server runs such a section as its caller (runtime/src/caller.c); run with the
        # server's state, each thread's accumulator (whose values go into the counter) and
        # main's identity would differ.
        state = random.Random("caller-state/%r/%d" % (rng.getstate()[1][:8], k))
        self.caller_state = None
        if 2 in rounds and self.family not in ("worker-loop", "window", "early-exit") and \
                state.random() < 0.15:
            self.caller_state = state.choice(["tls", "tls-callee", "self-callee"])
            # Its thread's kernel id, cached in a thread-local variable as libusb's
            # usbi_get_tid does (rcl-cc's links answer it: --librcl-thread-queries, link_args);
            # its own draw, so that the draws above stay as they were for earlier seeds.
            if TID_WRAP and state.random() < 0.5:
                self.caller_state = "tid-callee"
            # Or its name, compared with main's (PulseAudio's log lines ask prctl(PR_GET_NAME);
            # a server is named otherwise).
            if TID_WRAP and state.random() < 0.3:
                self.caller_state = "name-callee"

        # A checked wrapper whose test assigns the result to a file-scope variable, in place of
        # some checked wrappers: its own draw, as above.
        self.assigning = self.family == "checked-wrapper" and random.Random(
            "assigning/%r/%d" % (rng.getstate()[1][:8], k)).random() < 0.5
        # The checked wrapper's prefix: ck, pa (assigning), or in the second round rp (a report
        # before an assertion) or cg (a guard calling a const function); its own draw, as above.
        self.checked = "pa" if self.assigning else "ck"
        if self.family == "checked-wrapper" and not self.assigning and 2 in rounds:
            draw = random.Random("checked/%r/%d" % (rng.getstate()[1][:8], k)).random()
            self.checked = "rp" if draw < 0.25 else "cg" if draw < 0.5 else \
                "ly" if draw < 0.75 else "ck"
        # A timed lock in place of the lock (second round, a statement of its own: bare,
        # checked, stored), its deadline far away (the timed-out path is timed-section.c's):
        # its own draw, as above.
        self.timed = None
        if 2 in rounds and self.family == "pthread" and not self.branch and \
                self.outer != "stmt-expr" and not self.caller_state and self.lock_form in (
                    "plain", "void", "checked-ne", "checked-bool", "checked-lt",
                    "checked-notnot", "stored", "assigned"):
            draw = random.Random("timed/%r/%d" % (rng.getstate()[1][:8], k))
            if draw.random() < 0.4:
                self.timed = draw.choice(["timedlock", "clocklock"])
        # Block macros written as statement expressions (second round), in place of some.
        self.stmtexpr = self.family == "block" and 2 in rounds and random.Random(
            "stmtexpr/%r/%d" % (rng.getstate()[1][:8], k)).random() < 0.5

    def shape(self):
        """How the section is written, in a few words (refusals are counted by it)."""
        f = self.family
        if f == "pthread":
            d = "lock %s, unlock %s" % (self.lock_form, self.unlock_form)
            if self.branch:
                d += ", lock in the branches of an if (%s)" % self.branch
            if self.timed:
                d += ", a timed lock (%s)" % self.timed
        else:
            d = {"block": "block macros", "wrapper": "wrappers",
                 "possess": "wrappers with location arguments",
                 "sync": "synchronized-block macro", "optional": "optional lock",
                 "optional-macro": "optional lock in a macro",
                 "effects": "wrappers with effects", "inferred": "wrappers nobody declared",
                 "fastpath": "wrappers with a trylock fast path",
                 "checked-wrapper": "checked wrappers", "macro-section": "section in a macro",
                 "ifdef-cross": "lock and unlock in #if blocks",
                 "c11": "C11 mtx_t"}.get(f, f)
        if f == "checked-wrapper" and self.checked in ("rp", "cg", "ly"):
            d += {"rp": " (a report, then an assertion)",
                  "cg": " (a guard calling a const function)",
                  "ly": " (over another layer of wrappers)"}[self.checked]
        if f == "worker-loop":
            d = "worker loop" + "".join(", " + n for n in ("s2", "outer", "cont", "held")
                                        if self.wl[n])
        if f == "early-exit":
            d = "goto to a label after an early return" + "".join(
                ", " + n for n in ("loop", "two") if self.ee[n])
        if f == "window":
            d = "unlock window (%s)" % self.uw["where"] + "".join(
                ", " + n for n in ("decl", "ret") if self.uw[n])
        if self.outer != "plain":
            d += ", " + {"loop": "in a loop", "stmt-expr": "in a statement expression"}[self.outer]
        return d

    # -- pieces ----------------------------------------------------------------------------
    def helpers(self):
        need = set()
        if self.family in ("block", "wrapper", "possess", "sync", "optional-macro", "effects",
                           "fastpath", "checked-wrapper"):
            need.add({"pa": "assigning-wrapper", "rp": "reporting-wrapper",
                      "cg": "guarded-wrapper", "ly": "layered-wrapper"}.get(self.checked)
                     if self.checked != "ck" else
                     "stmtexpr" if self.stmtexpr else self.family)
        if self.family == "ifdef-cross":
            need.add("threads")
        if self.family == "sync":
            need.add("wrapper")
        if self.family.startswith("cleanup"):
            need.add("cleanup")
        if self.family == "pthread" and "macro" in (self.lock_form, self.unlock_form):
            need.add("macro")
        if self.ifblock:
            need.add("ifdef")
        return need

    def counter(self):
        return "L_%d.value" % self.k if self.family == "possess" else "g_%d" % self.k

    def globals(self):
        return self.caller_globals() + self.lock_globals()

    def caller_globals(self):
        """What the section's use of its thread's state needs (Section.caller_state)."""
        k, out = self.k, ""
        if self.caller_state:
            out += "static __thread unsigned long tl_%d;\nstatic pthread_t main_%d;\n" % (k, k)
        if self.caller_state == "tls-callee":
            out += ("static unsigned long note_%d(unsigned long x)\n{\n    tl_%d += x;\n"
                    "    return tl_%d %% 7;\n}\n" % (k, k, k))
        if self.caller_state == "self-callee":
            out += ("static unsigned long who_%d(void)\n{\n"
                    "    return pthread_equal(pthread_self(), main_%d) ? 1 : 2;\n}\n" % (k, k))
        if self.caller_state == "name-callee":
            out += ("static char main_name_%d[17];\n"
                    "static unsigned long whose_name_%d(void)\n{\n"
                    "    char n[17] = {0};\n"
                    "    if (prctl(PR_GET_NAME, (unsigned long)n, 0, 0, 0) != 0)\n"
                    "        return 3;\n"
                    "    return strcmp(n, main_name_%d) == 0 ? 1 : 2;\n}\n" % (k, k, k))
        if self.caller_state == "tid-callee":
            out += ("static __thread long tid_%d;\n"
                    "static unsigned long whose_tid_%d(void)\n{\n"
                    "    if (!tid_%d)\n        tid_%d = syscall(SYS_gettid);\n"
                    "    return tid_%d == getpid() ? 1 : 2;\n}\n" % (k, k, k, k, k))
        return out

    def lock_globals(self):
        k = self.k
        if self.family == "possess":
            return "static lock L_%d = { PTHREAD_MUTEX_INITIALIZER, 0 };\n" % k
        if self.family == "c11":
            return "static mtx_t m_%d;\nstatic unsigned long g_%d;\n" % (k, k)
        out = ("static pthread_mutex_t m_%d = PTHREAD_MUTEX_INITIALIZER;\n"
               "static unsigned long g_%d;\n" % (k, k))
        if self.family in ("optional", "optional-macro"):
            out += "static pthread_mutex_t *opt_%d = &m_%d;\n" % (k, k)
        if self.family == "pthread" and self.lock_form == "assigned-global":
            out += "static int lock_err_%d = -7; /* what the last lock returned */\n" % k
        if self.family in ("effects", "fastpath"):
            out += "static unsigned long h_%d;\n" % k
        if self.family == "inferred":
            out += ("static void lk_%d(void)\n{\n    pthread_mutex_lock(&m_%d);\n}\n\n"
                    "static void ulk_%d(void)\n{\n    pthread_mutex_unlock(&m_%d);\n}\n"
                    % (k, k, k, k))
        if self.family == "macro-section":
            out += ("#define SECTION_%d(a, r) \\\n    do { \\\n"
                    "        pthread_mutex_lock(&m_%d); \\\n"
                    "        g_%d += (unsigned long)(a) + 1; \\\n"
                    "        (r) += (long)((a) %% 5); \\\n"
                    "        pthread_mutex_unlock(&m_%d); \\\n    } while (0)\n" % (k, k, k, k))
        return out

    def init_lines(self):
        """What main() does before the first call (a C11 mutex has no static initializer)."""
        out = ["    main_%d = pthread_self();" % self.k] if self.caller_state else []
        if self.caller_state == "name-callee":
            out.append("    prctl(PR_GET_NAME, (unsigned long)main_name_%d, 0, 0, 0);" % self.k)
        if self.family == "c11":
            out += ["    if (mtx_init(&m_%d, mtx_plain) != thrd_success)" % self.k,
                    "        abort();"]
        return out

    def lock_lines(self, ind, in_branch=False):
        k, f = self.k, self.family
        m = "&m_%d" % k
        if f == "block" and self.stmtexpr:
            return [ind + "SE_LOCK(m_%d);" % k]
        if f == "block":
            return [ind + "BLOCK_LOCK(m_%d)%s" % (k, ";" if self.block_semi else "")]
        if f == "wrapper":
            return [ind + "my_lock(%s);" % m]
        if f == "possess":
            return [ind + "possess(&L_%d);" % k]
        if f == "optional":
            return [ind + "if (opt_%d)" % k, ind + "    pthread_mutex_lock(opt_%d);" % k]
        if f == "optional-macro":
            return [ind + "OPT_LOCK(opt_%d);" % k]
        if f == "effects":
            return [ind + "fx_lock(%s, &h_%d);" % (m, k)]
        if f == "fastpath":
            return [ind + "fp_lock(fp_self(&fp_token), %s, &h_%d);" % (m, k)]
        if f == "inferred":
            return [ind + "lk_%d();" % k]
        if f == "checked-wrapper":
            return [ind + "%s_lock(%s);" % (self.checked, m)]
        if f == "ifdef-cross":
            return ["#if LEGACY_THREADS", ind + "pthread_mutex_lock(%s);" % m, "#endif"]
        if f == "c11":
            return [ind + "if (mtx_lock(%s) != thrd_success)" % m, ind + "    abort();"]
        if f == "pthread" and self.branch and not in_branch:
            inner = ind + "    "
            lock = self.lock_lines(inner, True)
            first = [inner + "r += 1;"] + lock
            if self.branch == "trylock":
                first = [inner + "if (pthread_mutex_trylock(%s) != 0) {" % m] + \
                    self.lock_lines(inner + "    ", True) + [inner + "}"]
            out = [ind + "if ((a & 3) == 1) {"] + first
            if self.branch == "chain":
                out += [ind + "} else if ((a & 3) == 2) {", inner + "long t_ = a;",
                        inner + "r += t_;"] + lock
            return out + [ind + "} else {"] + lock + [ind + "}"]
        form = self.lock_form if f == "pthread" else "plain"
        call = "pthread_mutex_lock(%s)" % m
        if self.lock_continued:
            call = "pthread_mutex_lock(\\\n%s    %s)" % (ind, m)
        if self.timed == "timedlock":
            call = "pthread_mutex_timedlock(%s, &far_realtime)" % m
        elif self.timed == "clocklock":
            call = "pthread_mutex_clocklock(%s, CLOCK_MONOTONIC, &far_monotonic)" % m
        if form == "macro":
            call = "LOCK(%s)" % m
        out = {"plain": [ind + call + ";"], "void": [ind + "(void)" + call + ";"],
               "checked-ne": [ind + "if (%s != 0)" % call, ind + "    abort();"],
               "checked-bool": [ind + "if (%s)" % call, ind + "    abort();"],
               "checked-lt": [ind + "if (%s < 0)" % call, ind + "    abort();"],
               "checked-notnot": [ind + "if (!(!(%s)))" % call, ind + "    abort();"],
               "stored": [ind + "rc = %s;" % call, ind + "if (rc)", ind + "    abort();"],
               "assigned": [ind + "if ((rc = %s) != 0)" % call, ind + "    abort();"],
               "assigned-global": [ind + "if ((lock_err_%d = %s) < 0)" % (k, call),
                                   ind + "    abort();"],
               "asserted": [ind + "assert(%s == 0);" % call],
               "assert-call": [ind + "do { int err = %s; assert(err == 0); } while (0);" % call],
               "macro": [ind + call + ";"]}[form]
        if self.comments:
            out[-1] += " /* enter: the counter is ours */"
        return out

    def unlock_lines(self, ind, exit_=False):
        k, f = self.k, self.family
        m = "&m_%d" % k
        if f == "block" and self.stmtexpr:
            return [ind + "SE_UNLOCK(m_%d);" % k]
        if f == "block":
            return [ind + "BLOCK_UNLOCK(m_%d)%s" % (k, ";" if self.block_semi else "")]
        if f == "wrapper":
            return [ind + "my_unlock(%s);" % m]
        if f == "possess":
            return [ind + "release(&L_%d);" % k]
        if f == "optional":
            return [ind + "if (opt_%d)" % k, ind + "    pthread_mutex_unlock(opt_%d);" % k]
        if f == "optional-macro":
            return [ind + "OPT_UNLOCK(opt_%d);" % k]
        if f == "effects":
            return [ind + "fx_unlock(%s, &h_%d);" % (m, k)]
        if f == "fastpath":
            return [ind + "fp_unlock(fp_self(&fp_token), %s, &h_%d);" % (m, k)]
        if f == "inferred":
            return [ind + "ulk_%d();" % k]
        if f == "checked-wrapper":
            return [ind + "%s_unlock(%s);" % (self.checked, m)]
        if f == "ifdef-cross":
            return ["#if LEGACY_THREADS", ind + "pthread_mutex_unlock(%s);" % m, "#endif"]
        if f == "c11":
            return [ind + "mtx_unlock(%s);" % m]
        form = self.unlock_form if f == "pthread" and (not exit_ or self.exit_unlock_same) \
            else "plain"
        if exit_ and form == "stored":  # a stored unlock ends a section, no exit
            form = "plain"
        call = "UNLOCK(%s)" % m if form == "macro" else "pthread_mutex_unlock(%s)" % m
        out = {"plain": [ind + call + ";"], "void": [ind + "(void)" + call + ";"],
               "checked-ne": [ind + "if (%s != 0)" % call, ind + "    abort();"],
               "checked-bool": [ind + "if (%s)" % call, ind + "    abort();"],
               "checked-lt": [ind + "if (%s < 0)" % call, ind + "    abort();"],
               "stored": [ind + "rc = %s;" % call, ind + "if (rc)", ind + "    abort();"],
               "asserted": [ind + "assert(%s == 0);" % call],
               "macro": [ind + call + ";"]}[form]
        if self.comments and not exit_:
            out.insert(0, ind + "/* leave */")
        return out

    def exit_block(self, ind, cond, jump):
        return [ind + "if (%s) {" % cond] + self.unlock_lines(ind + "    ", True) \
            + [ind + "    " + jump, ind + "}"]

    def body(self, ind, a, stats):
        """The statements between lock and unlock."""
        k, c, md = self.k, self.counter(), self.mods
        out = []
        if self.decl_after:
            if self.reg_decl_after and self.register_kw:
                out.append(ind + "register long v_%d = %s * 3 + 1;" % (k, a))
                stats["register"] += 1
            else:
                out.append(ind + "long v_%d = %s * 3 + 1;" % (k, a))
            stats["declared-in-section"] += 1
        if self.comments:
            out.append(ind + "// the update below must not be lost")
        out.append(ind + "%s += (unsigned long)%s + 1;" % (c, a))
        if self.assigning:
            out.append(ind + "%s += (unsigned long)pa_err;" % c)
            stats["checked-wrapper:assigns-result"] += 1
        if self.timed:
            stats["timed-lock:" + self.timed] += 1
        if self.checked in ("rp", "cg", "ly"):
            stats["checked-wrapper:" + {"rp": "report-then-assert", "cg": "const-guard",
                                        "ly": "layered"}[self.checked]] += 1
        if self.caller_state == "tls":
            out += [ind + "tl_%d += (unsigned long)%s + 1;" % (k, a), ind + "%s += tl_%d %% 7;" % (c, k)]
        elif self.caller_state == "tls-callee":
            out.append(ind + "%s += note_%d((unsigned long)%s + 1);" % (c, k, a))
        elif self.caller_state == "self-callee":
            out.append(ind + "%s += who_%d();" % (c, k))
        elif self.caller_state == "tid-callee":
            out.append(ind + "%s += whose_tid_%d();" % (c, k))
        elif self.caller_state == "name-callee":
            out.append(ind + "%s += whose_name_%d();" % (c, k))
        if self.caller_state:
            stats["caller-state:" + self.caller_state] += 1
        if self.reads_counter:
            out.append(ind + "r += (long)(%s %% %d);" % (c, 13 + k))
            stats["reads-shared"] += 1
        if "return-literal" in self.exits:
            out += self.exit_block(ind, "%s %% %d == 1" % (a, md[0]),
                                   "return %s;" % self.literals["return-literal"])
            stats["return-" + {"str": "string", "chr": "char", "int": "int"}[self.rtype]] += 1
        if self.reg_outer:
            out += [ind + "for (i = 0; i < (%s & 3); i++)" % a, ind + "    %s += (unsigned long)i;" % c]
            stats["register" if self.register_kw else "loop-counter"] += 1
        if self.reg_read:
            out.append(ind + "%s += (unsigned long)rq;" % c)
            stats["register"] += 1
        if self.reg_inner:
            out += [ind + "{", ind + "    register int q = %s & 5;" % a,
                    ind + "    %s += (unsigned long)q;" % c, ind + "}"]
            stats["register"] += 1
        if self.stmt_expr:
            out.append(ind + "%s += ({ long t_ = (long)%s * 2; (unsigned long)(t_ + 1); });" % (c, a))
            stats["statement-expression"] += 1
        if self.ifblock == "if":
            out += ["#if LEGACY_FAST", ind + "%s += 2;" % c, "#else", ind + "%s += 3;" % c, "#endif"]
            stats["#if"] += 1
        elif self.ifblock == "ifdef":
            out += ["#ifdef LEGACY_MISSING", ind + "%s += 100;" % c, "#endif"]
            stats["#if"] += 1
        if self.continued:
            out += [ind + "%s += \\" % c, ind + "    (unsigned long)b;"]
            stats["line-continuation"] += 1
        if self.line_comment_continued:
            out += [ind + "// a comment continued \\", ind + "   on the next line"]
            stats["line-continuation"] += 1
        if "goto" in self.exits:
            out += self.exit_block(ind, "%s %% %d == 2" % (a, md[1]), "goto out;")
            stats["goto"] += 1
        if "return-var" in self.exits:
            jump = {"str": "return s;", "chr": "return c;", "int": "return r;"}[self.rtype]
            out += self.exit_block(ind, "%s %% %d == 3" % (a, md[2]), jump)
            stats["return"] += 1
        if "return-section-var" in self.exits:
            jump = {"str": "return v_%d & 1 ? \"v\" : \"w\";", "chr": "return (char)('a' + v_%d %% 26);",
                    "int": "return v_%d;"}[self.rtype] % k
            if not self.literal_returns and self.rtype == "str":
                jump = "return (v_%d & 1 ? \"v\" : \"w\");" % k  # ends in ')', not in a literal
            out += self.exit_block(ind, "%s %% %d == 4" % (a, md[3]), jump)
            stats["return"] += 1
        if "continue" in self.exits:
            out += self.exit_block(ind, "(%s + j) %% %d == 0" % (a, md[4]), "continue;")
            stats["continue"] += 1
        if "break" in self.exits:
            out += self.exit_block(ind, "(%s + j) %% %d == %d" % (a, md[5] + 2, md[5]), "break;")
            stats["break"] += 1
        if self.buffer:
            out += [ind + "snprintf(buf, sizeof buf, \"%%d-%%ld\", %s, b);" % a,
                    ind + "r += (long)strlen(buf);"]
            stats["buffer"] += 1
        if self.sets_result:
            if self.rtype == "str":
                out.append(ind + "s = (%s & 1) ? \"odd\" : \"even\";" % a)
            else:
                out.append(ind + "c = \"abcdef\"[%s %% 6];" % a)
        return out

    def worker_loop(self, stats):
        """A worker loop (LoopRotation.h): the lock before the loop, each iteration's section
        from the lock to the unlock before its work, across the loop's back edge."""
        k, wl = self.k, self.wl
        stats["sections"] += 1
        stats["worker-loop"] += 1
        for n in ("s2", "outer", "cont", "held"):
            if wl[n]:
                stats["worker-loop:" + n] += 1
        ind, m = "    ", "&m_%d" % k
        lines = ["static long f_%d(int a, long b)" % k, "{", ind + "long r = 0;",
                 ind + "int i = 0;"]
        if wl["outer"]:
            lines.append(ind + "long got = 0;")
        lines += [ind + "pthread_mutex_lock(%s);" % m, ind + wl["loop"] + " {",
                  ind * 2 + "if (i >= (a & 3) + 1) {"]
        if not wl["held"]:
            lines.append(ind * 3 + "pthread_mutex_unlock(%s);" % m)
        lines += [ind * 3 + "break;", ind * 2 + "}",
                  ind * 2 + "g_%d += (unsigned long)((a + i) %% %d) + 1;" % (k, self.mods[0]),
                  ind * 2 + "i++;"]
        if wl["cont"]:
            lines.append(ind * 2 + "if (((a + i) & 7) == 3)")
            lines.append(ind * 3 + "continue;")
        lines.append(ind * 2 + "pthread_mutex_unlock(%s);" % m)
        lines.append(ind * 2 + "r += (long)i * (b & 7) + 1;")
        if wl["outer"]:
            lines.append(ind * 2 + "got = (long)i * 3 + (b & 15);")
        lines.append(ind * 2 + "pthread_mutex_lock(%s);" % m)
        if wl["s2"]:
            lines.append(ind * 2 + "g_%d += %s;" % (k, "(unsigned long)(got & 3)" if wl["outer"]
                                                    else "2"))
        lines.append(ind + "}")
        if wl["held"]:
            lines.append(ind + "pthread_mutex_unlock(%s);" % m)
        lines += [ind + "return r;", "}"]
        stats["threaded"] += 1
        return "\n".join(lines) + "\n"

    def unlock_window(self, stats):
        """A section that lets its lock go for a stretch (unlock, work, lock) nested in its own
        statements (UnlockWindow.h): in an `if`, in a `while` over a local count, in a `for`
        whose step declares what the relock's statements read, or two of them."""
        k, uw, ind = self.k, self.uw, "    "
        stats["sections"] += 1
        stats["unlock-window:" + uw["where"]] += 1
        for n in ("decl", "ret"):
            if uw[n]:
                stats["unlock-window:" + n] += 1
        lock, unlock, g = "pthread_mutex_lock(&m_%d);" % k, "pthread_mutex_unlock(&m_%d);" % k, \
            "g_%d" % k

        def stretch(d, n):  # the window at depth d, the function's n-th
            i2, w = ind * d, "w_%d_%d" % (k, n)
            out = [i2 + unlock]
            if uw["decl"]:
                out += [i2 + "long %s = (long)(b & 7) * 3 + a + %d;" % (w, n), i2 + "r += %s;" % w]
            else:
                out.append(i2 + "r += (long)(b & 7) + %d;" % n)
            if uw["ret"]:
                out += [i2 + "if ((a + b) %% 11 == %d)" % (4 + n), i2 + ind + "return r;"]
            out += [i2 + lock, i2 + "%s += %s;" % (g, "(unsigned long)(%s & 3)" % w if uw["decl"]
                                                   else "2")]
            return out

        lines = ["static long f_%d(int a, long b)" % k, "{", ind + "long r = 0;",
                 ind + "int i = 0;", ind + lock, ind + "%s += (unsigned long)(a %% %d) + 1;"
                 % (g, self.mods[0])]
        if uw["where"] in ("if", "two"):
            lines += [ind + "if ((a & 3) == 1) {", ind * 2 + "long t_%d = (long)a * 2;" % k]
            lines += stretch(2, 1)
            lines += [ind * 2 + "%s += (unsigned long)t_%d;" % (g, k), ind + "}"]
        if uw["where"] == "while":
            lines += [ind + "while (i < (a & 3) + 1) {", ind * 2 + "%s += 1;" % g, ind * 2 + "i++;"]
            lines += stretch(2, 2)
            lines.append(ind + "}")
        if uw["where"] in ("for", "two"):
            lines += [ind + "for (i = 0; i < (a & 3); i++) {",
                      ind * 2 + "long part_%d = (long)i + a;" % k]
            lines += stretch(2, 3)
            lines += [ind * 2 + "%s += (unsigned long)(part_%d & 1);" % (g, k), ind + "}"]
        lines += [ind + "%s += 1;" % g, ind + unlock, ind + "return r;", "}"]
        stats["threaded"] += 1
        return "\n".join(lines) + "\n"

    def early_exit(self, stats):
        """A section whose goto reaches, with the lock held, a label after an unlock that
        returns (`lock; if (c) goto good; ...; unlock; return r; good: ...; unlock; return`)."""
        k, ee, ind = self.k, self.ee, "    "
        stats["sections"] += 1
        stats["early-exit"] += 1
        for n in ("loop", "two"):
            if ee[n]:
                stats["early-exit:" + n] += 1
        lock, unlock, g = "pthread_mutex_lock(&m_%d);" % k, "pthread_mutex_unlock(&m_%d);" % k, \
            "g_%d" % k
        lines = ["static long f_%d(int a, long b)" % k, "{", ind + "long r = 0;", ind + "int i;",
                 ind + lock, ind + "%s += (unsigned long)(a %% %d) + 1;" % (g, self.mods[0])]
        if ee["loop"]:
            lines += [ind + "for (i = 0; i < (a & 3); i++) {", ind * 2 + "%s += 1;" % g,
                      ind * 2 + "if ((a + i) % 5 == 2)", ind * 3 + "goto good_%d;" % k,
                      ind + "}"]
        else:
            lines += [ind + "if ((a & 3) == 2)", ind * 2 + "goto good_%d;" % k]
        if ee["two"]:
            lines += [ind + "if (b % 7 == 3)", ind * 2 + "goto good_%d;" % k]
        lines += [ind + "r += 1;", ind + unlock, ind + "r += (long)(b & 7);", ind + "(void)i;",
                  ind + "return r;", "", "good_%d:" % k, ind + "%s += 2;" % g, ind + unlock,
                  ind + "return r + 5;", "}"]
        stats["threaded"] += 1
        return "\n".join(lines) + "\n"

    def function(self, stats):
        if self.family == "early-exit":
            return self.early_exit(stats)
        if self.family == "worker-loop":
            return self.worker_loop(stats)
        if self.family == "window":
            return self.unlock_window(stats)
        k, rt = self.k, self.rtype
        stats["sections"] += 1
        name = "f_%d" % k
        lines = []
        if self.knr:
            lines += ["static %s" % RTYPES[rt], "%s(a, b)" % name, "    int a;", "    long b;", "{"]
            stats["K&R"] += 1
        else:
            lines += ["static %s %s(int a, long b)" % (RTYPES[rt], name), "{"]
        ind = "    "
        lines.append(ind + "long r = 0;")
        if rt == "str":
            lines.append(ind + "const char *s = \"none\";")
        elif rt == "chr":
            lines.append(ind + "char c = 'n';")
        if self.reg_outer:
            lines.append(ind + ("register int i;" if self.register_kw else "int i;"))
        if self.reg_read:
            lines.append(ind + "register long rq = b & 3;")
        if self.buffer:
            lines.append(ind + "char buf[32];")
        if self.outer == "loop":
            lines.append(ind + "int j;")
        if self.outer == "stmt-expr":
            lines.append(ind + "long e;")
        if self.family == "sync":
            lines.append(ind + "int sync_i;")
        f = self.family
        if f == "pthread" and ("stored" in (self.lock_form, self.unlock_form) or
                               self.lock_form == "assigned"):
            lines.append(ind + "int rc;")
        if f == "pthread" and self.branch:
            stats["branch-join:" + self.branch] += 1
        if f == "pthread":
            stats["lock:" + self.lock_form] += 1
            stats["unlock:" + self.unlock_form] += 1
        elif f in NEW_FAMILIES or f == "fastpath":
            stats[f] += 1
        elif self.stmtexpr:
            stats["lock:statement-expression-macro"] += 1
        else:
            stats[{"block": "lock:block-macro", "wrapper": "lock:wrapper",
                   "possess": "lock:wrapper-location-args", "sync": "synchronized-macro"}.get(
                       f, "pthread_cleanup")] += 1
        if self.comments:
            stats["comments"] += 1
        if self.lock_continued and f == "pthread" and self.lock_form != "macro":
            stats["line-continuation"] += 1
        if self.outer == "loop":
            lines += [ind + "for (j = 0; j < 3; j++) {"]
            inner = ind + "    "
            lines += self.lock_lines(inner) + self.body(inner, "a", stats) + self.unlock_lines(inner)
            lines += [inner + "r += j;", ind + "}"]
            stats["in-loop"] += 1
        elif self.outer == "stmt-expr":
            inner = ind + "    "
            lines += [ind + "e = ({"] + self.lock_lines(inner) + self.body(inner, "a", stats) \
                + self.unlock_lines(inner) + [inner + "(long)a;", ind + "});", ind + "r += e;"]
            stats["section-in-statement-expression"] += 1
        elif f == "sync":
            lines += [ind + "SYNCHRONIZED(m_%d, sync_i) {" % k] + self.body(ind + "    ", "a", stats) \
                + [ind + "}"]
        elif f == "macro-section":
            lines += [ind + "SECTION_%d(a, r);" % k]
        elif f == "cleanup-around":
            lines += [ind + "pthread_cleanup_push(note_cleanup, &r);"] + self.lock_lines(ind) \
                + self.body(ind, "a", stats) + self.unlock_lines(ind) + [ind + "pthread_cleanup_pop(1);"]
        elif f == "cleanup-inside":
            lines += self.lock_lines(ind) + [ind + "pthread_cleanup_push(note_cleanup, &r);"] \
                + self.body(ind, "a", stats) + [ind + "pthread_cleanup_pop(1);"] + self.unlock_lines(ind)
        elif f == "cleanup-pop-unlocks":
            lines += self.lock_lines(ind) + [ind + "pthread_cleanup_push(unlock_cleanup, &m_%d);" % k] \
                + self.body(ind, "a", stats) + [ind + "pthread_cleanup_pop(1);"]
        else:
            lines += self.lock_lines(ind) + self.body(ind, "a", stats) + self.unlock_lines(ind)
        if self.decl_after:
            # Used after the section (in the loop form the declaration is the loop body's).
            if self.outer != "loop":
                lines.append(ind + "r += v_%d;" % k)
        lines.append(ind + "r += (long)b;")
        if "goto" in self.exits:
            lines += ["out:"]
        ret = {"str": "return s;", "chr": "return c;", "int": "return r;"}[rt]
        if rt != "int":
            lines.append(ind + "if (r < 0)")
            lines.append(ind + "    %s = %s;" % ("s" if rt == "str" else "c", '"neg"' if rt == "str" else "'m'"))
        lines.append(ind + ret)
        lines.append("}")
        if self.threaded:
            stats["threaded"] += 1
        return "\n".join(lines) + "\n"

    def call(self, i, b):
        return HASH[self.rtype] % ("f_%d(%s, %s)" % (self.k, i, b))


class Program:
    """A legacy program: its sections (one function each) and its flags; render() writes the
    text for any subset of the sections (the reduction drops sections)."""

    def __init__(self, seed, n_sections, avoid=(), rounds=(1, 2)):
        rng = random.Random(seed)
        self.seed = seed
        self.avoid = sorted(avoid)
        self.sections = [Section(k, rng, avoid, rounds)
                         for k in range(rng.randint(max(1, n_sections - 3), n_sections))]
        self.std = rng.choice(["gnu89", "gnu99", "gnu11", "gnu11"])
        if any(s.family == "c11" for s in self.sections):
            self.std = "gnu11"  # <threads.h>
        self.cflags = ["-std=" + self.std]
        self.iterations = ITERATIONS
        # The program's own allocator (second round), from a generator of its own: the other
        # shapes of a seed stay the ones earlier campaigns drew.
        self.allocator = 2 in rounds and random.Random("allocator/%d" % seed).random() < 0.15
        if self.allocator and self.std == "gnu89":
            self.std = "gnu11"  # (_Alignas)
            self.cflags = ["-std=" + self.std]

    def describe(self, function):
        """The shape of the section in `function` (f_<k>), or None."""
        try:
            return self.sections[int(function.split("_")[1])].shape()
        except (IndexError, ValueError):
            return "helper function %s" % function

    def helpers(self, keep):
        need = set()
        for k in keep:
            need |= self.sections[k].helpers()
        return [h for h in HELPERS if h in need]

    def rewrite_for(self, keep):
        lock, unlock = [], []
        for h in self.helpers(keep):
            if h in WRAPPERS and WRAPPERS[h][0] not in lock:
                lock.append(WRAPPERS[h][0])
                unlock.append(WRAPPERS[h][1])
        # One option per wrapper: rcl-rewrite takes `--lock-fn=a,b` as one name, "a,b".
        out = ["--lock-fn=" + f for f in lock] + ["--unlock-fn=" + f for f in unlock]
        # What only rcl-cc's copy converts: rewritten as rcl-cc does.
        if any(self.sections[k].family in RESOLVED or self.sections[k].stmtexpr or
               self.sections[k].branch for k in keep):
            out += ["--resolve-copy", "--line-directives"]
        if self.asks_tid(keep):
            out.append("--librcl-thread-queries")
        return out

    def asks_tid(self, keep):
        return any(self.sections[k].caller_state in ("tid-callee", "name-callee") for k in keep)

    @property
    def link_args(self):
        """rcl-cc's gettid wraps (difftest.link_args), where a section asks its thread's id."""
        return TID_WRAP if self.asks_tid(self._keep) else []

    @property
    def rewrite_args(self):
        # The harness rewrites what render() wrote last (the reduction renders subsets).
        return self.rewrite_for(self._keep)

    def render(self, keep=None):
        keep = list(range(len(self.sections))) if keep is None else sorted(keep)
        self._keep = keep
        stats = collections.Counter()
        secs = [self.sections[k] for k in keep]
        opts = " ".join(self.rewrite_for(keep))
        out = ["/* legacy-gen.py seed %d%s, -std=%s%s */" % (
            self.seed, " --avoid " + ",".join(self.avoid) if self.avoid else "", self.std,
            ", rcl-rewrite " + opts if opts else ""),
               "#undef NDEBUG", "#include <assert.h>",
               "#include <pthread.h>", "#include <stdio.h>", "#include <stdlib.h>",
               "#include <string.h>", ""]
        if self.asks_tid(keep):
            # (syscall is declared by <unistd.h> only with _DEFAULT_SOURCE, which -std=c11 drops)
            out[-1:-1] = ["#include <sys/prctl.h>", "#include <sys/syscall.h>",
                          "#include <unistd.h>", "long syscall(long, ...);"]
        if any(s.family == "c11" for s in secs):
            out.insert(-1, "#include <threads.h>")
        if any(s.timed for s in secs):
            # (pthread_mutex_clocklock is a GNU extension; the deadlines: in 2100, and 2^40 s
            # after boot)
            out.insert(1, "#define _GNU_SOURCE")
            out.insert(-1, "#include <time.h>")
            out.insert(-1, "static const struct timespec far_realtime = {4102444800, 0},\n"
                           "                             far_monotonic = {1099511627776, 0};")
        for h in self.helpers(keep):
            out.append(HELPERS[h])
        if self.allocator:
            out.append(ALLOCATOR)
            stats["allocator"] += 1
        out.append("static unsigned long hash_str(const char *s)\n{\n    unsigned long h = 5381;\n"
                   "    while (*s)\n        h = h * 33 + (unsigned char)*s++;\n    return h;\n}\n")
        for s in secs:
            out.append(s.globals())
        for s in secs:
            out.append(s.function(stats))
        threaded = [s for s in secs if s.threaded]
        out.append("static pthread_barrier_t start;\n\n"
                   "static void *worker(void *arg)\n{\n    unsigned long *sum = arg;\n    int i;\n"
                   "    pthread_barrier_wait(&start);\n"
                   "    for (i = 0; i < %d; i++) {\n" % self.iterations
                   + "".join("        *sum += %s;\n" % s.call("i & 15", "(long)i") for s in threaded)
                   + ("        alloc_keep = malloc(16 + (i & 31));\n        free(alloc_keep);\n"
                      if self.allocator else "")
                   + "    }\n    return NULL;\n}\n")
        main = ["int main(void)", "{", "    unsigned long crc = 0, sums[2] = {0, 0};",
                "    pthread_t t[2];", "    int i;"]
        for s in secs:
            main += s.init_lines()
        main += ["    for (i = 0; i < 16; i++) {"]
        for s in secs:
            main.append("        crc = crc * 31 + %s;" % s.call("i", "(long)i * 3"))
        main += ["    }",
                 "    pthread_barrier_init(&start, NULL, 2);",
                 "    for (i = 0; i < 2; i++)",
                 "        if (pthread_create(&t[i], NULL, worker, &sums[i]) != 0)",
                 "            abort();",
                 "    for (i = 0; i < 2; i++)",
                 "        pthread_join(t[i], NULL);",
                 "    crc = crc * 31 + sums[0] + sums[1];",
                 '    printf("checksum = %016lx\\n", crc);']
        for s in secs:
            main.append('    printf("%s = %%lu\\n", %s);' % (s.counter(), s.counter()))
            if s.family in ("effects", "fastpath"):
                main.append('    printf("h_%d = %%lu\\n", h_%d);' % (s.k, s.k))
            if s.family == "pthread" and s.lock_form == "assigned-global":
                main.append('    printf("lock_err_%d = %%d\\n", lock_err_%d);' % (s.k, s.k))
        if any(s.family == "effects" for s in secs):
            main.append('    printf("fx = %lu %lu\\n", fx_before, fx_released);')
        main += ["    return 0;", "}", ""]
        out += main
        return "\n".join(out), stats


class LegacyGenerator:
    name = "legacy-diff"

    def add_arguments(self, ap):
        ap.add_argument("--print", type=int, metavar="SEED",
                        help="print the program of SEED (its first line names the rewriter "
                             "options it needs) and exit")
        ap.add_argument("--round", choices=["1", "2", "both"], default="both",
                        help="the shapes: of the first round (the rewriter's first shapes, as the "
                             "earlier campaigns drew them for each seed), of the second (checked "
                             "results in other spellings, stored unlocks, optional locks, wrappers "
                             "with effects, undeclared and checked wrappers, sections in macros "
                             "and in #if blocks, C11), or both (the default)")
        ap.add_argument("--avoid", default="",
                        help="comma-separated known faults not to write: 'register' (a written "
                             "or hoisted register variable loses the keyword), 'return-literal' "
                             "(no return after an unlock ends in a string or character literal), "
                             "'checked-unlock' (written as a (void) cast: refused with a false "
                             "reason); 'known' for all three")

    def handle(self, args):
        if args.print is None:
            return False
        text, _ = Program(args.print, args.sections, avoided(args), rounds(args)).render()
        sys.stdout.write(text)
        return True

    def program(self, seed, base, args):
        return Program(seed, args.sections, avoided(args), rounds(args))


KNOWN_FAULTS = ("register", "return-literal", "checked-unlock")


def rounds(args):
    return {"1": (1,), "2": (2,), "both": (1, 2)}[args.round]


def avoided(args):
    avoid = {a.strip() for a in args.avoid.split(",") if a.strip()}
    if "known" in avoid:
        avoid = (avoid - {"known"}) | set(KNOWN_FAULTS)
    unknown = avoid - set(KNOWN_FAULTS)
    if unknown:
        sys.exit("legacy-gen.py: --avoid: unknown %s" % ", ".join(sorted(unknown)))
    return avoid


def main():
    return difftest.main(LegacyGenerator(), __doc__.split("\n")[0],
                         default_modes="delegate,adaptive,local", shapes_label="shapes placed")


if __name__ == "__main__":
    sys.exit(main())
