# host/local.mk: the reference host (dlisp).

install-host:
uninstall-host:
