# SPDX-License-Identifier: MIT
# ports/lua/local.mk: Lua 5.4 (Debian's lua5.4 source) with a saved heap.
#
# `make lua' builds ports/lua/dumper-lua in a pdumper or unexec build.
# Lua's code is not in our tree: scripts/lua-source fetches Debian's
# source package into ports/lua/upstream (git-ignored) the first time,
# and its files are compiled from there as they are, with Debian's own
# flags (debian/rules: `make linux-readline', -DLUA_COMPAT_5_3).  The
# ten library files whose functions are static, lauxlib.c and lua.c are
# compiled through the small wrappers here (lib-*.c, lua-main.c) that
# #include them and declare their C functions as code targets; the
# rest of the core is compiled directly.  No patch to Lua's files.

LUA_DIR = $(srcdir)/ports/lua/upstream/lua
LUA_SRC = $(LUA_DIR)/src
LUA_CORE = lapi lcode lctype ldebug ldo ldump lfunc lgc linit llex lmem \
	lobject lopcodes lparser lstring ltable ltm lundump lvm lzio
LUA_CORE_OBJS = $(LUA_CORE:%=ports/lua/core/%.o)
LUA_WRAP_SRCS = ports/lua/lib-aux.c ports/lua/lib-base.c ports/lua/lib-coro.c \
	ports/lua/lib-db.c ports/lua/lib-io.c ports/lua/lib-math.c \
	ports/lua/lib-load.c ports/lua/lib-os.c ports/lua/lib-str.c \
	ports/lua/lib-tab.c ports/lua/lib-utf8.c ports/lua/lua-main.c \
	ports/lua/lstate-port.c
LUA_PORT_SRCS = ports/lua/main.c ports/lua/alloc.c ports/lua/heap.c \
	ports/lua/prepare.c ports/lua/restore.c
LUA_WRAP_OBJS = $(LUA_WRAP_SRCS:.c=.o)
LUA_PORT_OBJS = $(LUA_PORT_SRCS:.c=.o)
LUA_OBJS = $(LUA_CORE_OBJS) $(LUA_WRAP_OBJS) $(LUA_PORT_OBJS)

# Debian's: `make linux-readline' with dpkg-buildflags' CFLAGS and
# CPPFLAGS.  luaconf.h includes lua5.4-deb-multiarch.h (Debian's patch
# 0002-lua-modules-paths), which debian/rules generates: so do we, in
# the build directory.
LUA_CPPFLAGS = -I. -Iinclude -I$(srcdir)/include -Iports/lua -I$(LUA_SRC) \
	-DLUA_COMPAT_5_3 -DLUA_USE_LINUX -DLUA_USE_READLINE -D_FORTIFY_SOURCE=2 \
	$(CPPFLAGS)
LUA_CFLAGS = -std=gnu99 -O2 -Wall -Wextra -fPIC -fstack-protector-strong \
	$(SAN_CFLAGS) $(CFLAGS)
LUA_LIBS = -lm -ldl -lreadline

# Lua's own files and the wrappers that include them: Lua's flags.
$(LUA_CORE_OBJS): ports/lua/core/%.o: $(LUA_SRC)/%.c ports/lua/lua5.4-deb-multiarch.h
	@$(MKDIR_P) $(@D)
	$(CC) $(LUA_CPPFLAGS) $(LUA_CFLAGS) -MMD -MP -c -o $@ $<
$(LUA_WRAP_OBJS): %.o: %.c ports/lua/lua5.4-deb-multiarch.h config.h $(GENERATED_HEADERS)
	@$(MKDIR_P) $(@D)
	$(CC) $(LUA_CPPFLAGS) $(LUA_CFLAGS) -MMD -MP -c -o $@ $<
# Ours: our warnings, Lua's headers.
$(LUA_PORT_OBJS): ALL_CPPFLAGS += -Iports/lua -I$(LUA_SRC) -DLUA_COMPAT_5_3 \
	-DLUA_USE_LINUX
$(LUA_PORT_OBJS): ports/lua/lua5.4-deb-multiarch.h config.h $(GENERATED_HEADERS)

ports/lua/lua5.4-deb-multiarch.h:
	@$(MKDIR_P) $(@D)
	multiarch=`$(CC) -print-multiarch 2>/dev/null`; \
	test -n "$$multiarch" || multiarch=`dpkg-architecture -qDEB_HOST_MULTIARCH`; \
	{ echo '#ifndef _LUA_DEB_MULTIARCH_'; echo '#define _LUA_DEB_MULTIARCH_'; \
	  echo "#define DEB_HOST_MULTIARCH \"$$multiarch\""; echo '#endif'; } > $@

# -Wl,-E: C modules loaded with require find the lua_* symbols in the
# executable (Lua's `make linux' does the same).
ports/lua/dumper-lua: $(LUA_OBJS) libdumper.a $(FINGERPRINT)
	$(CC) $(ALL_LDFLAGS) $(HOST_LDFLAGS) -Wl,-E -o $@ $(LUA_OBJS) \
	  libdumper.a $(LIB_DEPLIBS) $(LUA_LIBS)
	$(FINGERPRINT) -q $@

# The source first (a recursive make, so that the pattern rules above
# see Lua's files), then the program.
lua:
	@test -f $(LUA_SRC)/lua.h || sh $(srcdir)/scripts/lua-source
	@case "$(BACKEND)" in pdumper|unexec) ;; \
	  *) echo "make lua: needs a pdumper or unexec build (this one is $(BACKEND))" >&2; exit 1;; esac
	$(MAKE) ports/lua/dumper-lua

CLEANFILES += ports/lua/dumper-lua ports/lua/lua5.4-deb-multiarch.h
.PHONY: lua

# The port's tests (tests/lua/run.sh): in `make check' they skip unless
# dumper-lua was built; `make check-lua' builds it and runs them.
CHECK_SCRIPTS += tests/lua/run.sh
check-lua: lua
	@BUILDDIR=`pwd` SRCDIR=`cd $(srcdir) && pwd` BACKEND=$(BACKEND) \
	  WORD_SIZE=$(WORD_SIZE) ENABLE_SANITIZERS=$(ENABLE_SANITIZERS) \
	  $(SHELL) $(srcdir)/tests/run-tests $(srcdir)/tests/lua/run.sh
.PHONY: check-lua

# The port's start-up benchmark (bench/lua-start.sh, issue 31): stock
# lua5.4, the preload at every start and the image, side by side, for
# preloads of 0.1, 1 and 10 MB; pdumper builds.  Not part of `make
# bench' (it needs the Lua source and lua5.4).
bench-lua: lua
	@RUNS=$(BENCH_RUNS) $(SHELL) $(srcdir)/bench/lua-start.sh `pwd`
.PHONY: bench-lua
