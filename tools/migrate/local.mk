# tools/migrate/local.mk: dumper-migrate (issue 7).
