# SPDX-License-Identifier: MIT
# tools/migrate/local.mk: dumper-migrate (issue 7).
#
# The tool is plain C11 on libc; its objects (all but main.o) are shared
# with the cmocka unit tests in tests/migrate/.  The Coccinelle semantic
# patches in tools/cocci/ are data; tests/migrate/cocci.sh runs them
# when configure found spatch.

MIGRATE_OBJS = common/atomic.o tools/common/xalloc.o tools/migrate/util.o tools/migrate/lex.o tools/migrate/cond.o \
	tools/migrate/scope.o tools/migrate/machinery.o tools/migrate/expr.o tools/migrate/project.o \
	tools/migrate/leftover.o tools/migrate/marker.o tools/migrate/rules.o tools/migrate/rule_guard.o \
	tools/migrate/rule_flags.o tools/migrate/rule_param.o \
	tools/migrate/edit.o tools/migrate/diff.o tools/migrate/report.o \
	tools/migrate/json.o tools/migrate/fix.o

BIN_PROGRAMS += tools/dumper-migrate
MAN1 += doc/man/dumper-migrate.1

tools/dumper-migrate: $(MIGRATE_OBJS) tools/migrate/main.o $(TOOL_CLI_OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $(MIGRATE_OBJS) tools/migrate/main.o $(TOOL_CLI_OBJS)

tools/migrate/main.o: config.h

MIGRATE_TESTS = tests/migrate/test_lex tests/migrate/test_rules \
	tests/migrate/test_diff
CHECK_PROGRAMS += $(MIGRATE_TESTS)
CHECK_SCRIPTS += tests/migrate/cli.sh tests/migrate/fixtures.sh \
	tests/migrate/compile.sh tests/migrate/cocci.sh \
	tests/migrate/classes.sh tests/migrate/property.sh \
	tests/migrate/meaning.sh

tests/migrate/%.o: ALL_CFLAGS += $(CMOCKA_CFLAGS) -I$(srcdir)/tools/migrate

$(MIGRATE_TESTS): %: %.o $(MIGRATE_OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(MIGRATE_OBJS) $(CMOCKA_LIBS)
