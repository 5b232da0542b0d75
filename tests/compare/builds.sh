# SPDX-License-Identifier: MIT
# tests/compare/builds.sh: the three builds the end-to-end scripts of
# dumper-compare run, sourced after tests/e2e/lib.sh.
#
# compare_builds sets NONE_DIR, UNEXEC_DIR and PDUMPER_DIR: this build
# for its own mode, a sibling build of the same source tree for the
# others (build/test-pdumper -> build/test-none, ...: scripts/test-all
# builds every mode before it tests any), else a build configured and
# made once per build directory under tests/tmp/compare-builds/, which
# the later scripts reuse (tools/compare/builds.sh).  TOOL is this
# build's dumper-compare.

TOOL=$BUILDDIR/tools/dumper-compare

compare_builds () {
  for _mode in none unexec pdumper; do
    _dir=`sh "$SRCDIR/tools/compare/builds.sh" "$SRCDIR" "$BUILDDIR" $_mode \
           "$BUILDDIR/tests/tmp/compare-builds/$_mode"` || return $?
    case $_mode in
      none) NONE_DIR=$_dir ;;
      unexec) UNEXEC_DIR=$_dir ;;
      pdumper) PDUMPER_DIR=$_dir ;;
    esac
  done
}

# check_builds: a test case that the three builds are ready; the script
# ends when they are not: skipped in a cross build without builds of the
# other modes for its target (tools/compare/builds.sh exits 2), failed
# otherwise.
check_builds () {
  begin "the none, unexec and pdumper builds are ready"
  compare_builds 2> "$T/builds.log"
  _st=$?
  if [ $_st -eq 0 ]; then
    echo "    none: $NONE_DIR; unexec: $UNEXEC_DIR; pdumper: $PDUMPER_DIR"
    pass
  elif [ $_st -eq 2 ]; then
    skip "`tail -1 "$T/builds.log"`"
    finish
  else
    sed 's/^/    | /' "$T/builds.log"
    fail "cannot build the modes"
    finish
  fi
}
