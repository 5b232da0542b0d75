# tools/compare/local.mk: dumper-compare (issue 6).
