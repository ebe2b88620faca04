# Running berth on a terminal from a test: script(1) gives the command a pseudo-terminal.
command -v script >/dev/null || skip "script (util-linux) is not installed: no pseudo-terminal"
command -v python3 >/dev/null || skip "python3 is not installed (widest needs it)"
# A terminal that has colours, whatever the test runner's (git colours nothing without TERM).
export TERM=xterm

# on_tty COMMAND-LINE: run a shell command line on a pseudo-terminal (COLUMNS and the rest of the
# environment as exported); its output, with the terminal's CRs removed.
on_tty() {
  script -qec "$1" /dev/null </dev/null | tr -d '\r'
}

# plain: the input without SGR colour sequences.
plain() { sed 's/\x1b\[[0-9;]*m//g'; }

# widest: the display width of the widest input line (East Asian wide characters count two).
widest() {
  python3 -c '
import sys, unicodedata
w = 0
for line in sys.stdin.read().split("\n"):
    w = max(w, sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line))
print(w)'
}
