"""Checks of the manual pages (docs/man), for test/man.

    man_pages.py render PAGE...
        renders each page with groff (-ww: every warning) and with man-db (`man --warnings -l`,
        MANWIDTH=80); prints each warning and exits 1 if there was one. A page that is only
        `.so manN/other.N` must name a page of the same directory.
    man_pages.py options PAGE [--stop-at REGEX] -- COMMAND...
        runs COMMAND (a tool's --help), takes the options it lists (-x, --long-option) and the
        RCL_* variables it names, up to the first line that REGEX matches (where a wrapper's
        --help goes on with the real compiler's), and exits 1 naming each one the page does
        not mention.
"""
import os
import re
import subprocess
import sys


def render(pages):
    bad = 0
    for page in pages:
        with open(page) as f:
            text = f.read()
        m = re.fullmatch(r"\.so man[1-8]/(\S+)\n", text)
        if m:
            target = os.path.join(os.path.dirname(page), m.group(1))
            if not os.path.isfile(target):
                print("%s: .so names a missing page %s" % (page, m.group(1)))
                bad += 1
            continue
        env = dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8", MAN_KEEP_FORMATTING="0")
        warned = False
        for cmd in (["groff", "-man", "-Tutf8", "-ww", "-z", page],
                    ["man", "--warnings", "-E", "UTF-8", "-l", page]):
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env)
            if r.returncode != 0 or r.stderr.strip():
                print("%s: %s: status %d\n%s" % (page, cmd[0], r.returncode, r.stderr.strip()))
                warned = True
            elif cmd[0] == "man" and not r.stdout.strip():
                print("%s: man rendered nothing" % page)
                warned = True
        bad += warned
    print("%d pages, %d with warnings" % (len(pages), bad))
    return 1 if bad else 0


# An option where a --help lists it: at the start of a line (argparse, LLVM, rcl-info), after
# "-x, " (argparse's short and long form), or in a usage line's brackets.
OPTION = re.compile(r"(?:^\s*|, |\[|\(|\| )(--?[A-Za-z][A-Za-z0-9-]*)", re.M)
VARIABLE = re.compile(r"\bRCL_[A-Z][A-Z0-9_]*[A-Z0-9]\b")


def page_words(page):
    """The page's text with roff's escapes undone: \\- is -, font changes vanish."""
    with open(page) as f:
        text = f.read()
    text = re.sub(r"\\f[BIRP]|\\f\(..|\\&|\\c", "", text)
    return text.replace("\\-", "-")


def options(page, stop_at, command):
    out = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    help_text = out.stdout
    if stop_at:
        m = re.search(stop_at, help_text, re.M)
        if not m:
            print("%s: no line matches %s" % (" ".join(command), stop_at))
            return 1
        help_text = help_text[:m.start()]
    wanted = sorted(set(OPTION.findall(help_text)) | set(VARIABLE.findall(help_text)))
    if not wanted:
        print("%s: no option found in its output" % " ".join(command))
        return 1
    text = page_words(page)
    missing = [w for w in wanted if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(w),
                                                  text)]
    for w in missing:
        print("%s: %s is not in %s" % (" ".join(command), w, os.path.basename(page)))
    print("%d options, %d missing" % (len(wanted), len(missing)))
    return 1 if missing else 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "render":
        return render(argv[2:])
    if len(argv) >= 5 and argv[1] == "options":
        page, rest, stop_at = argv[2], argv[3:], None
        if rest[:1] == ["--stop-at"] and len(rest) >= 2:
            stop_at, rest = rest[1], rest[2:]
        if rest[:1] == ["--"] and len(rest) >= 2:
            return options(page, stop_at, rest[1:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
