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
for bad in -1 1e3 abc 4294967296; do
	err=$("$MIXDNN_LAUNCHER" --node n1 --min-uid "$bad" 2>&1)
	is "$?,$(grep -c "invalid --min-uid \"$bad\"" <<<"$err")" 2,1 "--min-uid $bad exits with 2 and says why"
done
"$MIXDNN_LAUNCHER" --node n1 --no-such-option >/dev/null 2>&1
is "$?" 2 "an unknown option exits with 2"

# Configuration errors end the launcher at once with status 2 and a reason.
reset_cluster
config_error() {	# config_error DESCRIPTION PATTERN LAUNCHER-ARGS...: exits 2 within 5 s, log matches
	local what=$1 pattern=$2 rc start
	shift 2
	start=$(date +%s)
	timeout 20 "$@" >"$T/cfg.log" 2>&1
	rc=$?
	is "$rc" 2 "$what: exits with 2"
	ok "$([ $(($(date +%s) - start)) -le 5 ]; echo $?)" "$what: within 5 s"
	ok "$(grep -q -- "$pattern" "$T/cfg.log"; echo $?)" "$what: says why" || diag "$(cat "$T/cfg.log")"
}
L=("$MIXDNN_LAUNCHER" --state-dir "$T/state")
config_error "an unregistered node" 'unknown node "nowhere"' env PGUSER=$E2E_LAUNCHER_ROLE "${L[@]}" --node nowhere
q "DO \$\$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'mxe2e_norights') THEN
	CREATE ROLE mxe2e_norights LOGIN; END IF; END \$\$" >/dev/null
config_error "a role without mixdnn_launcher" 'SQLSTATE 42501' env PGUSER=mxe2e_norights "${L[@]}" --node n1
config_error "a missing --output-dir" 'output-dir "/nonexistent/out" cannot be opened: /nonexistent' \
	env PGUSER=$E2E_LAUNCHER_ROLE "${L[@]}" --node n1 --output-dir /nonexistent/out
mkdir -p "$T/ro"
chmod 755 "$T/ro"
config_error "an --output-dir it cannot write" 'is not writable' \
	runuser -u nobody -- env PGUSER=$E2E_LAUNCHER_ROLE "$MIXDNN_LAUNCHER" --node n1 --allow-same-user \
	--state-dir "$T/nobody-state" --output-dir "$T/ro"
config_error "a launcher that is not root, without --allow-same-user" 'could read its credentials' \
	runuser -u nobody -- env PGUSER=$E2E_LAUNCHER_ROLE "$MIXDNN_LAUNCHER" --node n1 --state-dir "$T/nobody-state"
config_error "PGPASSWORD" 'PGPASSWORD is set' env PGPASSWORD=secret PGUSER=$E2E_LAUNCHER_ROLE "${L[@]}" --node n1
config_error "a password in --dsn" '--dsn holds a password' "${L[@]}" --node n1 --dsn "user=$E2E_LAUNCHER_ROLE password=secret"
config_error "a client key's passphrase in --dsn" '--dsn holds a password (sslpassword)' \
	"${L[@]}" --node n1 --dsn "user=$E2E_LAUNCHER_ROLE sslpassword=secret"
echo secret >"$T/pw"
chmod 644 "$T/pw"
config_error "a --password-file others can read" 'no one else can read' "${L[@]}" --node n1 --password-file "$T/pw"

# Directories another account could swap: it could plant a keeper's socket
# the launcher adopts (state) or send the files root creates elsewhere (output).
mkdir -p "$T/open" "$T/theirs"
chmod 777 "$T/open"
chown nobody "$T/theirs"
config_error "a --state-dir in a directory others can write" 'other accounts may write to '"$T"'/open (mode 0777)' \
	env PGUSER=$E2E_LAUNCHER_ROLE "$MIXDNN_LAUNCHER" --node n1 --state-dir "$T/open/state"
config_error "a --state-dir of another account" "belongs to uid $(id -u nobody)" \
	env PGUSER=$E2E_LAUNCHER_ROLE "$MIXDNN_LAUNCHER" --node n1 --state-dir "$T/theirs"
config_error "an --output-dir others can write, not sticky" 'other accounts may write to '"$T"'/open' \
	env PGUSER=$E2E_LAUNCHER_ROLE "${L[@]}" --node n1 --output-dir "$T/open"
mkdir -p "$T/sticky"
chmod 1777 "$T/sticky"
config_error "an --output-dir others can write, sticky" 'other accounts may write to '"$T"'/sticky (mode 1777)' \
	env PGUSER=$E2E_LAUNCHER_ROLE "${L[@]}" --node n1 --output-dir "$T/sticky"
printf 'a b\n' >"$T/open/usermap"
config_error "a --user-map in a directory others can write" 'user map "'"$T"'/open/usermap" is not safe' \
	env PGUSER=$E2E_LAUNCHER_ROLE "${L[@]}" --node n1 --user-map "$T/open/usermap"
printf 'a b\n' >"$T/usermap-rw"
chmod 666 "$T/usermap-rw"
config_error "a --user-map others can write" 'that no one else can write' \
	env PGUSER=$E2E_LAUNCHER_ROLE "${L[@]}" --node n1 --user-map "$T/usermap-rw"
# read in pieces, the tail of a long comment was a line "ROLE OS_USER" of its own: alice's jobs ran as bob
{ printf '# '; head -c 1021 /dev/zero | tr '\0' x; printf ' alice bob\n'; } >"$T/usermap-long"
config_error "a --user-map line over 1022 bytes" 'usermap-long" line 1: longer than 1022 bytes' \
	env PGUSER=$E2E_LAUNCHER_ROLE "${L[@]}" --node n1 --user-map "$T/usermap-long"
# the first line counted, and a line added to change alice's account did nothing
printf 'alice alice\n# alice moved\nalice bob\n' >"$T/usermap-twice"
config_error "a --user-map mapping a role twice" 'usermap-twice" line 3: role "alice" is mapped on an earlier line too' \
	env PGUSER=$E2E_LAUNCHER_ROLE "${L[@]}" --node n1 --user-map "$T/usermap-twice"
# an editor's byte-order mark made the first role "\xEF\xBB\xBFalice": alice's jobs ran as the account alice
printf '\xEF\xBB\xBFalice bob\n' >"$T/usermap-bom"
config_error "a --user-map that starts with a byte-order mark" 'usermap-bom" line 1: starts with a byte-order mark' \
	env PGUSER=$E2E_LAUNCHER_ROLE "${L[@]}" --node n1 --user-map "$T/usermap-bom"
mkdir -p "$T/open/out"
config_error "an --output-dir inside a directory others can write" 'other accounts may write to '"$T"'/open' \
	env PGUSER=$E2E_LAUNCHER_ROLE "${L[@]}" --node n1 --output-dir "$T/open/out"
ln -s /etc "$T/their-link"
chown -h nobody "$T/their-link"
config_error "an --output-dir through another account's link in a sticky directory" "symbolic link $T/their-link belongs to uid $(id -u nobody)" \
	env PGUSER=$E2E_LAUNCHER_ROLE "${L[@]}" --node n1 --output-dir "$T/their-link"
ln -s . "$T/sticky/dot"
config_error "a --state-dir that is a link to its sticky directory" 'other accounts may write to '"$T"'/sticky (mode 1777)' \
	env PGUSER=$E2E_LAUNCHER_ROLE "$MIXDNN_LAUNCHER" --node n1 --state-dir "$T/sticky/dot"
ln "$T/sticky/dot" "$T/sticky/dot2"
config_error "a path through a symbolic link with a second hard link" "symbolic link $T/sticky/dot2 has 2 hard links" \
	env PGUSER=$E2E_LAUNCHER_ROLE "$MIXDNN_LAUNCHER" --node n1 --state-dir "$T/sticky/dot2/state"
config_error "an empty --state-dir" 'an empty path' \
	env PGUSER=$E2E_LAUNCHER_ROLE "$MIXDNN_LAUNCHER" --node n1 --state-dir ""
ln -s "$T/open" "$T/link"
config_error "a --state-dir reached through a symbolic link" 'other accounts may write to '"$T"'/open' \
	env PGUSER=$E2E_LAUNCHER_ROLE "$MIXDNN_LAUNCHER" --node n1 --state-dir "$T/link/state"
# The default state directory of a launcher that is not root is in /tmp,
# where another account can create it first.
D=/tmp/mixdnn-launcher-$(id -u nobody)
if [ ! -e "$D" ]; then
	mkdir -m 777 "$D"
	chown daemon "$D"
	config_error "a default state directory another account created first" "$D belongs to uid $(id -u daemon)" \
		runuser -u nobody -- env PGUSER=$E2E_LAUNCHER_ROLE "$MIXDNN_LAUNCHER" --node n1 --allow-same-user
	rm -rf "$D"
else
	skip 3 "$D exists already"
fi
PGHOST=/nonexistent runuser -u nobody -- "$MIXDNN_LAUNCHER" --node n1 --allow-same-user >"$T/own-default.log" 2>&1 &
pid=$!
wait_until 5 "grep -q 'retrying in' '$T/own-default.log'"
ok $? "a default state directory of its own: it starts" || diag "$(cat "$T/own-default.log")"
kill -TERM "$pid"
wait "$pid"
[ -e "$D" ] && [ "$(stat -c %U:%a "$D")" = nobody:700 ]
ok $? "and it is the launcher's own, mode 0700"
rm -rf "$D"

# A transient error (the server is not there yet) keeps the retry loop.
PGHOST=/nonexistent PGUSER=$E2E_LAUNCHER_ROLE "${L[@]}" --node n1 >"$T/launcher-retry.log" 2>&1 &
pid=$!
wait_until 5 "grep -q 'retrying in' '$T/launcher-retry.log'"
ok $? "a server it cannot reach: it logs the error and retries"
alive "$pid"
ok $? "and keeps running"
kill -TERM "$pid"
wait "$pid"
is "$?" 0 "and stops on SIGTERM with 0"
done_testing
