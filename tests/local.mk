# tests/local.mk: unit tests (cmocka) and end-to-end scripts.
