#!/usr/bin/env bash
# 58_restored_job_ids, with old job a's keeper one of a launcher before
# launch tokens (its socket named by job and attempt alone, made so by
# renaming it while no launcher runs, as in 59_keeper_without_token). Such
# a keeper knows no launch; the restored copy's new job a has the same id,
# attempt and node. Before, lx_find() took the old keeper for any launch
# of them: the claim of the new job a started nothing, the next
# reconciliation bound the old keeper (being stopped: the database listed
# no running part of it) to the new launch's token, and its exit 143 was
# counted against the new job, whose command never ran. A part claimed
# just now has no keeper yet: a token-less one is another launch's, is
# stopped and its exit, which names no launch, is not reported.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../ops.sh"
RESTORED_TOKENLESS=1
. "$E2E_DIR/restored.sh"
