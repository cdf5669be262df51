# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A program on a real terminal: tmux runs it, shows its screen, types keys.

    with Terminal(workdir, "name") as term:
        term.start(["perf", "report", "-i", "perf.data"], env)
        screen = term.wait_for(lambda s: "Samples:" in s, 30, "the browser")
        term.keys("q")
        rc = term.wait_exit(20)
        term.restored()   # stty settings after == before

Each Terminal has its own tmux server (a socket of its own, no config
file), a pane of COLS x ROWS, and the program's environment exactly as
given.  The program runs under a shell that saves `stty -g` before and
after it and its exit code, so a test can tell that the program gave the
terminal back as it found it.  Every wait is bounded; the server is killed
on exit.  Every screen a wait matched is appended to NAME.screens in
workdir; `seen` holds every screen looked at, to tell what flashed by.

Everything the program writes to the terminal is kept (tmux pipe-pane,
tty-NAME/output), from its first byte: `output()`.  perf's TUI catches
SIGSEGV and SIGFPE, puts the terminal back, prints the signal and a
backtrace, and exits 0; so the exit code says nothing, and the screen is
gone with the pane.  `crash()` reads the output for it, and leaving the
`with` block raises E2EError when it finds one: every check that drives a
program here fails on a crash, whatever it asserted.
"""

import os
import re
import shlex
import subprocess
import time

from e2elib import E2EError

COLS, ROWS = 120, 30
# What perf's TUI prints when it catches a signal (ui__signal_backtrace():
# psignal() and a backtrace), and what a shell says of a program killed
CRASH_RE = re.compile(
    r"^.*(?:Segmentation fault|Floating point exception|Bus error|"
    r"Illegal instruction|Aborted|-+ backtrace -+).*$", re.M)
# A box's corners, as tmux shows them: the terminal's line drawing
# characters (the VT100 set, l k m j) or their Unicode forms.
TOP_LEFT, TOP_RIGHT, BOTTOM_LEFT = "l\u250c", "k\u2510", "m\u2514"
# the terminal's control sequences: CSI, charset choices, SO and SI
CONTROL_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|"
                        r"\x1b[=>78]|[\x0e\x0f]")


def box_text(screen, title):
    """The text inside the box whose top border has TITLE on SCREEN, its
    lines joined by spaces; what lies beside the box (another box it
    covers in part) left out.  None when no such box is shown."""
    lines = screen.splitlines()
    for top, line in enumerate(lines):
        at = line.find(title)
        left = max(line.rfind(c, 0, at) for c in TOP_LEFT)
        right = max(line.find(c, at) for c in TOP_RIGHT)
        if at >= 0 and 0 <= left < right:
            break
    else:
        return None
    inside = []
    for line in lines[top + 1:]:
        if line[left:left + 1] in BOTTOM_LEFT:
            break
        inside.append(line[left + 1:right].strip())
    return " ".join(inside)


class Terminal:
    def __init__(self, workdir, name, cols=COLS, rows=ROWS):
        self.dir = os.path.join(workdir, "tty-" + name)
        os.makedirs(self.dir, exist_ok=True)
        for f in ("rc", "before", "after", "go", "output"):
            try:
                os.unlink(os.path.join(self.dir, f))
            except FileNotFoundError:
                pass
        self.socket = "symprov-e2e-%d-%s" % (os.getpid(), name)
        self.cols, self.rows = cols, rows
        self.log = os.path.join(workdir, name + ".screens")
        self.started = False
        self.seen = []

    def tmux(self, *args, check=True, timeout=10):
        res = subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null"] +
                             list(args), capture_output=True, text=True,
                             errors="replace", timeout=timeout)
        if check and res.returncode != 0:
            raise E2EError("tmux %s: %s" % (args[0], res.stderr.strip()))
        return res

    def start(self, argv, env):
        """Run argv on the terminal with exactly env (TERM: tmux's)."""
        d = shlex.quote(self.dir)
        # the program starts once its output is piped to a file
        script = ("while [ ! -e %s/go ]; do sleep 0.01; done; "
                  "stty -g > %s/before; %s; echo $? > %s/rc.tmp; "
                  "stty -g > %s/after; mv %s/rc.tmp %s/rc" % (
                      d, d, " ".join(shlex.quote(a) for a in argv), d, d, d,
                      d))
        env = dict(env)
        env.pop("TMUX", None)
        # the server gets this environment, and the pane from it
        subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null",
                        "new-session", "-d", "-x", str(self.cols), "-y",
                        str(self.rows), "sh", "-c", script], env=env,
                       check=True, timeout=10)
        self.started = True
        self.tmux("pipe-pane", "-O", "cat >> %s/output" % d)
        open(os.path.join(self.dir, "go"), "w").close()

    def screen(self):
        """What the terminal shows now ("" once the program is gone)."""
        res = self.tmux("capture-pane", "-p", check=False)
        screen = res.stdout if res.returncode == 0 else ""
        if screen and (not self.seen or self.seen[-1] != screen):
            self.seen.append(screen)
        return screen

    def note(self, what, screen):
        with open(self.log, "a") as f:
            f.write("==== %s\n%s\n" % (what, screen.rstrip("\n")))

    def wait_for(self, pred, timeout, what):
        """The first screen pred() accepts; E2EError after timeout s."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if pred(screen):
                self.note(what, screen)
                return screen
            if self.exited():
                break
            time.sleep(0.05)
        self.note("NOT SEEN: " + what, screen)
        raise E2EError("%s not on the screen after %ss; last screen:\n%s" % (
            what, timeout, screen.rstrip()))

    def keys(self, *keys):
        self.tmux("send-keys", *keys)

    def literal(self, text):
        self.tmux("send-keys", "-l", text)

    def ever(self, text):
        """A screen seen so far showed text."""
        return any(text in s for s in self.seen)

    def written(self, text):
        """The program wrote text to the terminal, whether or not a screen
        looked at showed it (a line shown for less than a poll).  The
        terminal library writes only what changed on a line: a message
        is there from where it differs from the line before it."""
        return text in CONTROL_RE.sub("", self.output())

    def exited(self):
        return os.path.exists(os.path.join(self.dir, "rc"))

    def wait_exit(self, timeout):
        """The program's exit code; E2EError if it runs past timeout s."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.exited():
                with open(os.path.join(self.dir, "rc")) as f:
                    return int(f.read().strip() or -1)
            time.sleep(0.1)
        self.note("STILL RUNNING", self.screen())
        raise E2EError("still running %ss after it was asked to end" %
                       timeout)

    def restored(self):
        """The terminal's settings after the program are those before."""
        with open(os.path.join(self.dir, "before")) as a, \
                open(os.path.join(self.dir, "after")) as b:
            return a.read() == b.read()

    def output(self):
        """Everything the program wrote to the terminal so far."""
        try:
            with open(os.path.join(self.dir, "output"), "rb") as f:
                return f.read().decode(errors="replace")
        except FileNotFoundError:
            return ""

    def crash(self):
        """The line of the output that says the program crashed, or None;
        once it has ended, read after tmux has passed all of it on."""
        if self.started and self.exited():
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and self.tmux(
                    "has-session", check=False).returncode == 0:
                time.sleep(0.05)
        m = CRASH_RE.search(self.output())
        return m.group(0).strip() if m else None

    def close(self):
        if self.started:
            crash = self.crash()
            self.tmux("kill-server", check=False)
            self.started = False
            if crash:
                raise E2EError("the program crashed on its terminal: %s "
                               "(%s/output)" % (crash, self.dir))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        # a crash is raised over what else failed: it explains it
        self.close()
