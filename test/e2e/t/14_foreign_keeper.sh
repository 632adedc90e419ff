#!/usr/bin/env bash
# A socket in the state directory behind which no keeper of this launcher
# listens (another account's process) is not adopted: whoever serves it
# could report exit codes and cgroups of its choosing (docs/launcher.md,
# "What no other account can change").
. "$(dirname "$0")/../lib.sh"

reset_cluster
start_launcher n1
wait_until 10 "ls -d '$T/state-n1'/*/ >/dev/null 2>&1"
ok $? "the launcher made its installation's state directory"
inst_dir=$(ls -d "$T/state-n1"/*/ | head -1)
stop_launcher n1

# nobody listens on a socket named as a keeper's and answers as a keeper would
mkdir -m 700 "$T/fake"
chown nobody "$T/fake"
runuser -u nobody -- python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(1)
s.settimeout(30)
c, _ = s.accept()
try:
    c.sendall(b"H 1 /tmp\nX 0 forged\n")
    c.recv(1)
except OSError:
    pass
' "$T/fake/j999-a1.sock" &
fake=$!
wait_until 5 "[ -S '$T/fake/j999-a1.sock' ]"
ok $? "another account listens on a socket named j999-a1.sock"
mv "$T/fake/j999-a1.sock" "$inst_dir/j999-a1.sock"
start_launcher n1
wait_until 10 "grep -q 'j999-a1.sock is not this launcher' '$T/launcher-n1.log'"
ok $? "the launcher started again does not adopt it" || diag "$(cat "$T/launcher-n1.log")"
grep -q 'job 999 attempt 1: adopted' "$T/launcher-n1.log"
ok $((! $?)) "no part is adopted from it"
[ ! -e "$inst_dir/j999-a1.sock" ]
ok $? "and the socket is removed"
kill "$fake" 2>/dev/null
wait "$fake" 2>/dev/null
done_testing
