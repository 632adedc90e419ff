#!/usr/bin/env bash
# bin/mixdnn-launcher's command line.
. "$(dirname "$0")/../lib.sh"

out=$("$MIXDNN_LAUNCHER" --help 2>&1)
is "$?" 0 "--help exits with 0"
ok "$(grep -q -- '--node NAME' <<<"$out"; echo $?)" "--help shows the usage"
"$MIXDNN_LAUNCHER" >/dev/null 2>&1
is "$?" 2 "without --node it exits with 2"
err=$("$MIXDNN_LAUNCHER" --node n1 --poll-interval soon 2>&1)
is "$?" 2 "a bad --poll-interval exits with 2"
ok "$(grep -q 'invalid --poll-interval "soon"' <<<"$err"; echo $?)" "and says why"
"$MIXDNN_LAUNCHER" --node n1 --no-such-option >/dev/null 2>&1
is "$?" 2 "an unknown option exits with 2"

# An unregistered node: the launcher keeps retrying, logs why, and stops on SIGTERM.
reset_cluster
start_launcher nowhere
wait_until 5 "grep -q 'unknown node \"nowhere\"' '$T/launcher-nowhere.log'"
ok $? "a launcher for an unregistered node logs the error and retries"
stop_launcher nowhere
ok "$(grep -q 'stopped$' "$T/launcher-nowhere.log"; echo $?)" "and stops on SIGTERM"
done_testing
