# lit configuration shared by every suite: runtime/, rewriter/, profiler/, cli/, bench/,
# python/ (the unit tests of the shared Python modules), setup/ (what scripts/setup.sh must
# install), e2e/.
import os
import shutil

import lit.formats

config.name = "rcl"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".c", ".test", ".cpp"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py.in", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.rcl_obj_root, "test")

# Keep the environment small and deterministic; pass through what tools need.
for var in ("HOME", "TMPDIR", "LD_LIBRARY_PATH", "TSAN_OPTIONS", "ASAN_OPTIONS", "UBSAN_OPTIONS"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
# A test that wants a runtime setting sets it itself; never inherit the user's.
for var in list(config.environment):
    if var.startswith("RCL_"):
        del config.environment[var]
# The suites exercise the delegated path unless a RUN line names another mode: the default mode
# (adaptive) decides by measurements, and a test must not depend on what it measured. The
# default itself is tested with `env -u RCL_MODE` (runtime/default_mode.c, rcl_info.test).
config.environment["RCL_MODE"] = "delegate"

# LLVM's test utilities (FileCheck, not, count) come from the LLVM 19 tools directory.
llvm_bin = os.path.dirname(config.filecheck)
config.environment["PATH"] = os.pathsep.join([llvm_bin, os.environ.get("PATH", "/usr/bin:/bin")])

obj = config.rcl_obj_root
src = config.rcl_src_root
san = " " + config.sanitize_flags if config.sanitize_flags else ""  # CMakeLists.txt: RCL_SANITIZE
cflags = "-std=gnu11 -g -O1 -Wall -Wextra -Werror -pthread -I%s/runtime/include%s" % (src, san)
runtime_libs = "%s/runtime/librcl.a %s -pthread%s" % (obj, config.hwloc_libs or "-lhwloc", san)

config.substitutions.append(("%cc", "%s %s" % (config.cc, cflags)))
config.substitutions.append(("%c_compiler", config.cc))  # the bare compiler, no project flags
config.substitutions.append(("%cxx_compiler", config.cxx))
config.substitutions.append(("%rcl_cflags", cflags))
config.substitutions.append(("%rcl_libs", runtime_libs))
# Tests of the runtime's internal interface include runtime/src/internal.h.
config.substitutions.append(("%rcl_internal", "-D_GNU_SOURCE -I%s/runtime/src" % src))
config.substitutions.append(("%rcl_src", src))
config.substitutions.append(("%rcl_obj", obj))
config.substitutions.append(("%rcl-info", os.path.join(obj, "runtime", "rcl-info")))
config.substitutions.append(("%rcl-rewrite", os.path.join(obj, "rewriter", "rcl-rewrite")))
config.substitutions.append(("%rcl-cc", os.path.join(obj, "rewriter", "rcl-cc")))
config.substitutions.append(("%rcl-cxx", os.path.join(obj, "rewriter", "rcl-c++")))
config.substitutions.append(("%rcl-prof", os.path.join(obj, "profiler", "rcl-prof")))
config.substitutions.append(("%librcl-prof", os.path.join(obj, "profiler", "librcl-prof.so")))
# The workflow command; a pattern, so it never eats the %rcl-* and %rcl_* names above.
config.substitutions.append((r"%rcl(?![-\w])", os.path.join(obj, "cli", "rcl")))
config.substitutions.append(("FileCheck", config.filecheck))
# Shared by the suites: succeed iff a command exits with the given status. Python is the one
# interpreter the tools run with (CMakeLists.txt: Debian's /usr/bin/python3).
config.substitutions.append(
    ("%expect_status", "%s %s" % (config.python,
                                  os.path.join(config.test_source_root, "Inputs", "expect_status.py"))))
config.substitutions.append(("%python", config.python))

if config.sanitize:
    config.available_features.add(config.sanitize + "-sanitizer")
    config.available_features.add("sanitizer")
if config.build_tools:
    config.available_features.add("tools")
if shutil.which("csmith") and os.path.exists("/usr/include/csmith/csmith.h"):
    config.available_features.add("csmith")
# Programs some tests compare rcl-cc with or run it under (the compatibility suite: GCC as the
# real compiler, ccache before or behind rcl-cc; gdb on a converted program; rcl build on a
# Meson project).
for program in ("gcc", "ccache", "gdb", "meson"):
    if shutil.which(program):
        config.available_features.add(program)
if shutil.which("dpkg-query"):  # a Debian system: setup/ checks setup.sh's packages
    config.available_features.add("dpkg")
if (os.cpu_count() or 1) >= 2:
    config.available_features.add("multicore")


def membarrier_expedited():
    """Whether membarrier(2) offers MEMBARRIER_CMD_PRIVATE_EXPEDITED here (the runtime's posts
    then go without a fence: runtime/src/server.c)."""
    import ctypes
    nr = {"x86_64": 324, "aarch64": 283}.get(os.uname().machine)
    if nr is None:
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        mask = libc.syscall(nr, 0, 0, 0)  # MEMBARRIER_CMD_QUERY
    except (OSError, AttributeError):
        return False
    return mask > 0 and bool(mask & 8)  # MEMBARRIER_CMD_PRIVATE_EXPEDITED


if membarrier_expedited():
    config.available_features.add("membarrier")

# rcl-cc's links route the program's gettid and syscall through librcl (-Wl,--wrap) where
# sections can run as their callers (python/rcltools/driver.py, thread_query_wrap).
if os.uname().machine in ("x86_64", "aarch64"):
    config.available_features.add("thread-id-wrap")
