#!/usr/bin/env bash
# A physical copy of the cluster that lost the last transactions (here a
# base backup restored after the primary ran two jobs: a point-in-time
# recovery to before them) keeps the installation id, so its next jobs
# take the ids, attempt and node of the launches it forgot. A launcher
# must tell them apart by the launch's token (docs/launcher.md, "Launch
# tokens"). Before, a launcher restarted with SIGUSR2 adopted the old
# job 1's keeper for the new job 1, whose command never ran, and later
# reported the old process's exit 143 against it; a launcher that stayed
# connected stopped the old job 2's part but retried its report (SQLSTATE
# P0002, no such job) without end, until a new job 2 could take it.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../ops.sh"
RESTORED_TOKENLESS=0
. "$E2E_DIR/restored.sh"
