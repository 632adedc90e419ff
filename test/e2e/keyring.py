#!/usr/bin/env python3
"""keyring.py - the e2e tests' look at Linux session keyrings (keyctl(2),
add_key(2) through ctypes; no keyutils package needed).

  keyring.py exec-with-key DESC SECRET CMD [ARG...]
      join a new session keyring, add a "user" key DESC holding SECRET to
      it, then exec CMD: CMD and its children possess the key
  keyring.py probe DESC
      print "key=found" if this process can find and read key DESC through
      its session keyring, "key=absent" if not, "key=unsupported" if the
      kernel or a sandbox has no keyrings
"""
import ctypes
import os
import platform
import sys

# (keyctl, add_key) system call numbers
NR = {"x86_64": (250, 248), "aarch64": (219, 217)}
KEYCTL_JOIN_SESSION_KEYRING = 1
KEYCTL_SEARCH = 10
KEYCTL_READ = 11
KEY_SPEC_SESSION_KEYRING = -3

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def calls():
    nr = NR.get(platform.machine())
    if nr is None:
        print("key=unsupported")
        sys.exit(0)
    return nr


def main():
    keyctl, add_key = calls()
    if sys.argv[1] == "exec-with-key":
        desc, secret, cmd = sys.argv[2], sys.argv[3].encode(), sys.argv[4:]
        if libc.syscall(keyctl, KEYCTL_JOIN_SESSION_KEYRING, None) < 0:
            sys.exit("keyring.py: cannot join a session keyring: %s" % os.strerror(ctypes.get_errno()))
        if libc.syscall(add_key, b"user", desc.encode(), secret, len(secret),
                        ctypes.c_long(KEY_SPEC_SESSION_KEYRING)) < 0:
            sys.exit("keyring.py: cannot add the key: %s" % os.strerror(ctypes.get_errno()))
        os.execvp(cmd[0], cmd)
    if sys.argv[1] == "probe":
        key = libc.syscall(keyctl, KEYCTL_SEARCH, ctypes.c_long(KEY_SPEC_SESSION_KEYRING),
                           b"user", sys.argv[2].encode(), ctypes.c_long(0))
        if key < 0:
            err = ctypes.get_errno()
            print("key=unsupported" if err in (38, 1) else "key=absent")  # ENOSYS, EPERM
            return
        buf = ctypes.create_string_buffer(256)
        n = libc.syscall(keyctl, KEYCTL_READ, ctypes.c_long(key), buf, ctypes.c_long(256))
        print("key=found" + (" read=" + buf.raw[:n].decode(errors="replace") if n > 0 else ""))
        return
    sys.exit(__doc__)


if __name__ == "__main__":
    main()
