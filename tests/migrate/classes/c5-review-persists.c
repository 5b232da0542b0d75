/* SPDX-License-Identifier: MIT */
/* c5-review-persists.c -- issue 18, class 5 (minimal): an
   `initialized' test is reported only while the file does not see
   <dumper/gflags.h>; --fix deletes the legacy declaration and adds the
   include, and the review item must survive that.  */

#include <stdbool.h>

extern void c5_setup_faces (void);
extern bool c5_noninteractive;

/* Set once the editor is initialised.  */
extern bool initialized;

void
c5_frame_init (void)
{
  /* Set up the faces of a dumped editor.  */
  if (initialized && !c5_noninteractive)
    c5_setup_faces ();
}
