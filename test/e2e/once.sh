#!/bin/sh
# test/e2e/once.sh OUT JOB_SH SECONDS — lib.sh's once(): writes
# OUT/JOB-ATTEMPT.previous ("alive" or "dead": the process of the attempt
# before, from its .env file) and runs JOB_SH OUT SECONDS.
out=$1
prev=$out/$MIXDNN_JOB_ID-$((MIXDNN_ATTEMPT - 1))-0.env
if [ -f "$prev" ]; then
	pid=$(sed -n 's/^PID=//p' "$prev")
	if [ -r "/proc/$pid/stat" ] && ! sed 's/.*) //' "/proc/$pid/stat" | grep -q '^Z'; then
		echo alive
	else
		echo dead
	fi >"$out/$MIXDNN_JOB_ID-$MIXDNN_ATTEMPT.previous"
fi
exec sh "$2" "$out" "$3"
