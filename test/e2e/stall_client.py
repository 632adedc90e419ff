#!/usr/bin/env python3
"""stall_client.py SOCKET USER DATABASE HOLD_S [error] - a client that stops reading.

Speaks the v3 protocol itself (trust authentication on the Unix socket
SOCKET), so that it can leave its socket's receive queue nearly full:
BEGIN, submits one job, SET client_min_messages = debug5, fills its socket
with NOTICEs to a few messages short of full, sends COMMIT and then reads
nothing for HOLD_S seconds. A backend that sends this client anything
while it holds the scheduler lock waits in ClientWrite with the lock held.
Prints "pid N" (its backend) and "committing" on stdout, then exits.

With "oncommit" (USER a plain user): its transaction makes PostgreSQL's
own commit work fail after the round (an ON COMMIT DELETE ROWS temporary
table that another one references: "unsupported ON COMMIT and foreign key
combination"), with the socket full. Such a transaction (it used temporary
tables) leaves its round to the background worker, so the error finds the
socket full with nothing of the scheduler's held.

With "error" (USER a superuser): fills its socket first, then sends one
statement that takes the scheduler lock and fails (a GPU type of speed 0:
the cluster tables' statement trigger takes the lock, the row's CHECK
fails), so the error report is what finds the socket full.
"""
import fcntl
import socket
import struct
import sys
import termios
import time

GAP = 6     # messages short of full when COMMIT is sent


def main():
    path, user, db, hold = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)

    def send(tag, body):
        s.sendall(tag + struct.pack("!I", len(body) + 4) + body)

    def recvn(n):
        b = b""
        while len(b) < n:
            c = s.recv(n - len(b))
            if not c:
                sys.exit("stall_client: the server closed the connection")
            b += c
        return b

    def message():
        h = recvn(5)
        return h[:1], recvn(struct.unpack("!I", h[1:])[0] - 4)

    def until_ready():
        pid = None
        while True:
            t, b = message()
            if t == b"E":
                sys.exit("stall_client: error %r" % b)
            if t == b"K":
                pid = struct.unpack("!I", b[:4])[0]
            if t == b"Z":
                return pid

    def query(q):
        send(b"Q", q.encode() + b"\0")
        return until_ready()

    def notices(n):
        send(b"Q", ("DO $$BEGIN FOR i IN 1..%d LOOP RAISE NOTICE 'x'; END LOOP; END$$" % n).encode() + b"\0")

    def unread():
        return struct.unpack("I", fcntl.ioctl(s, termios.FIONREAD, b"\0\0\0\0"))[0]

    def settle():
        # until the server has written all it will: the unread bytes stay
        # the same for a second (a busy machine writes slowly)
        last, same = -1, 0
        for _ in range(600):
            time.sleep(0.1)
            now = unread()
            same = same + 1 if now == last else 0
            last = now
            if same >= 10:
                return

    startup = b"user\0" + user.encode() + b"\0database\0" + db.encode() + b"\0\0"
    s.sendall(struct.pack("!II", len(startup) + 8, 196608) + startup)
    print("pid", until_ready(), flush=True)
    mode = sys.argv[5] if len(sys.argv) > 5 else "commit"
    query("BEGIN")
    if mode != "error":
        query("INSERT INTO mixdnn.jobs (name, gpus, duration) VALUES ('stall', 1, '1 min')")
    if mode == "commit":
        query("SET client_min_messages = debug5")
    if mode == "oncommit":
        query("CREATE TEMP TABLE stall_a (k int PRIMARY KEY) ON COMMIT DELETE ROWS")
        query("CREATE TEMP TABLE stall_b (k int REFERENCES stall_a)")
    # How many one-NOTICE messages the socket holds before the server must wait.
    notices(5000)
    settle()
    size = struct.unpack("!I", s.recv(5, socket.MSG_PEEK)[1:])[0] + 1
    room = unread() // size
    until_ready()
    if mode == "oncommit":
        notices(room - 1)
        settle()
        send(b"Q", b"COMMIT\0")
    elif mode == "error":
        # full, counting the DO's own last write: the error's write must wait
        notices(room - 1)
        settle()
        # the statement trigger takes the lock, then the row's CHECK fails
        send(b"Q", b"INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('stall', 0)\0")
    else:
        notices(room - 1 - GAP)
        settle()
        send(b"Q", b"COMMIT\0")
    print("committing", flush=True)
    time.sleep(hold)
    s.close()


if __name__ == "__main__":
    main()
