"""rcltools: the modules the RCL toolkit's Python programs share.

The programs (cli/rcl.in, rewriter/rcl-cc.in, rewriter/rcl-c++.in, profiler/rcl-prof.in,
bench/evaluate.py, bench/apps/memcached.py) parse their options and call these; each piece of logic that more
than one of them needs is written once here:

  elf        what a program's ELF headers say (debug info, load segments, interpreter)
  machine    the description of this machine written next to every result (one JSON shape)
  profile    profile.json (docs/profile-json.md): reading it, and which locks it selects
  rawdump    the raw dump librcl-prof.so writes (the layout of profiler/src/prof.h)
  fmt        how times and rates are printed
  measure    what rcl compare compares: a number per run, its spread, the ratio to the first
  paths      finding programs (PATH, like a shell) and a tool's siblings (beside itself)
  ui         talking to the user: Failure, messages, progress, files written whole or not at all
  compare    rcl compare: variants run side by side, interleaved; table, CSV, JSON, plot
  buildfacts a build's facts directory: rcl-cc's log of compiled units, what rcl build reads
  driver     what the compiler wrappers rcl-cc and rcl-c++ share: a command line's inputs,
             whether it links, librcl's link flags, whether a link's objects need librcl

Standard library only: every tool runs with Debian's python3 and nothing else.
"""
