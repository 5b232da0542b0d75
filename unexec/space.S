/* SPDX-License-Identifier: MIT */
/* unexec/space.S: the storage of the static heap arena (unexec/arena.c).

   Defined in assembly so that its section is NOBITS with every
   toolchain: GNU as makes a section named `.lbss' NOBITS by its name,
   but a C `section' attribute lets the compiler pick the type, and
   clang picks PROGBITS, which puts the whole arena (1 GiB by default)
   into libdumper.a and every executable.  `configure' checks the result
   with readelf.  `.lbss' (x86-64 large bss) is placed by the default
   linker script after `.bss', at the very end of the writable segment,
   so only the arena's used part needs saving.

   UNEXEC_ARENA_MIB sets the size (the unit tests use a small arena);
   by default it is the configured DUMPER_ARENA_MIB.  */

#include <config.h>

#ifndef UNEXEC_ARENA_MIB
# define UNEXEC_ARENA_MIB DUMPER_ARENA_MIB
#endif

	.section .lbss,"aw",@nobits
	.balign 4096
	.globl unexec_arena_space
	.hidden unexec_arena_space
	.type unexec_arena_space, @object
	.size unexec_arena_space, UNEXEC_ARENA_MIB * 1048576
unexec_arena_space:
	.zero UNEXEC_ARENA_MIB * 1048576

	.section .note.GNU-stack,"",@progbits
