#!/usr/bin/python3
"""Drops files on an X window as a file manager does, by the XDND protocol (freedesktop.org's
XDND, version 5): the window test's way to drop a program on piney's window under Xvfb, where
no file manager runs.

    tools/xdnd-drop.py WINDOW_ID FILE...     (DISPLAY names the X server)

The source is a small unmapped window of our own that owns the XdndSelection and offers the
files as text/uri-list: it sends XdndEnter and XdndPosition, serves the target's selection
request, sends XdndDrop once the target has accepted (XdndStatus), and waits for XdndFinished.
Exits 0 when the target accepted the drop and finished, 1 otherwise (with a line saying why).
Needs python3-xlib (Debian's package, for /usr/bin/python3).
"""

import os
import select
import sys
import time
import urllib.parse

from Xlib import X, display
from Xlib.protocol import event

TIMEOUT_S = 20


def main():
    if len(sys.argv) < 3:
        print("usage: xdnd-drop.py WINDOW_ID FILE...", file=sys.stderr)
        return 2
    wid = int(sys.argv[1], 0)
    files = [os.path.abspath(f) for f in sys.argv[2:]]
    uris = "".join("file://" + urllib.parse.quote(f) + "\r\n" for f in files).encode()

    d = display.Display()
    atom = d.intern_atom
    uri_list = atom("text/uri-list")
    selection = atom("XdndSelection")
    root = d.screen().root
    source = root.create_window(0, 0, 1, 1, 0, X.CopyFromParent)
    source.set_selection_owner(selection, X.CurrentTime)
    target = d.create_resource_object("window", wid)

    def send(kind, data):
        msg = event.ClientMessage(window=target, client_type=atom(kind), data=(32, data + [0] * (5 - len(data))))
        target.send_event(msg, event_mask=0)
        d.flush()

    # Version 5, three types or fewer (no XdndTypeList), the first one ours.
    send("XdndEnter", [source.id, 5 << 24, uri_list])
    send("XdndPosition", [source.id, 0, (10 << 16) | 10, X.CurrentTime, atom("XdndActionCopy")])

    served = accepted = dropped = False
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        if not d.pending_events():
            select.select([d.fileno()], [], [], 0.1)
            if not d.pending_events():
                continue
        ev = d.next_event()
        if ev.type == X.SelectionRequest and ev.selection == selection:
            prop = ev.property if ev.property != X.NONE else ev.target
            if ev.target == uri_list:
                ev.requestor.change_property(prop, uri_list, 8, uris)
            else:
                prop = X.NONE
            reply = event.SelectionNotify(
                time=ev.time, requestor=ev.requestor, selection=ev.selection, target=ev.target, property=prop
            )
            ev.requestor.send_event(reply, event_mask=0)
            d.flush()
            served = served or ev.target == uri_list
        elif ev.type == X.ClientMessage and ev.client_type == atom("XdndStatus"):
            # data[1] bit 0: the target accepts the drop.
            accepted = bool(ev.data[1][1] & 1)
            if not accepted:
                print("xdnd-drop: the window refused the files", file=sys.stderr)
                return 1
        elif ev.type == X.ClientMessage and ev.client_type == atom("XdndFinished"):
            return 0
        if accepted and served and not dropped:
            send("XdndDrop", [source.id, 0, X.CurrentTime])
            dropped = True
    print(
        "xdnd-drop: no %s within %d s" % ("XdndFinished" if dropped else "acceptance", TIMEOUT_S),
        file=sys.stderr,
    )
    return 1


if __name__ == "__main__":
    sys.exit(main())
