# Sourced by the scripts that need scratch space: `workdir NAME` sets $work to $WORK when the
# caller gave one (then it is the caller's and kept), else to a fresh /tmp/ferrosuite-NAME.XXXXXX
# that is removed when the script exits with status 0 and kept, its path printed on stderr, when
# the script fails (to look at what went wrong). Without this, every run of the test suite left
# about 80 MB under /tmp.
workdir() {
  if [ -n "${WORK:-}" ]; then
    work=$WORK
    mkdir -p "$work"
    return
  fi
  work=$(mktemp -d "/tmp/ferrosuite-$1.XXXXXX")
  # shellcheck disable=SC2154 # rc is assigned inside the trap
  trap 'rc=$?; if [ "$rc" = 0 ]; then rm -rf "$work"; else echo "work files kept in $work" >&2; fi; exit "$rc"' EXIT
}
