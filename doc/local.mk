# doc/local.mk: documentation.
