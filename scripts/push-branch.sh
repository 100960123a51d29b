#!/usr/bin/env bash
# Pushes the commit a nightly step just made (HEAD) to $BRANCH of origin, rebasing onto the branch
# when it moved meanwhile, three tries. The token ($GITHUB_TOKEN) reaches git only for the two calls
# that need it: masked in the log, through GIT_CONFIG_* variables (not argv, which ps shows to every
# user, nor .git/config, which later steps could read). On success it writes committed=true to
# $GITHUB_OUTPUT; otherwise it prints an error annotation naming the job ($1) and exits 1.
# Used by the collect job (the night's results) and the file-comparisons job (confirm's evidence).
set -euo pipefail
job=${1:?usage: push-branch.sh JOB}
auth_b64=$(printf 'x-access-token:%s' "$GITHUB_TOKEN" | base64 -w0)
echo "::add-mask::$auth_b64"
authed() { GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0="http.$GITHUB_SERVER_URL/.extraheader" GIT_CONFIG_VALUE_0="AUTHORIZATION: basic $auth_b64" git "$@"; }
for attempt in 1 2 3; do
  authed fetch -q origin "$BRANCH"
  git rebase -q "origin/$BRANCH"
  if authed push -q origin "HEAD:$BRANCH"; then
    echo "committed=true" >> "$GITHUB_OUTPUT"
    exit 0
  fi
  sleep $((attempt * 10))
done
echo "::error title=$job::could not push to $BRANCH"
exit 1
