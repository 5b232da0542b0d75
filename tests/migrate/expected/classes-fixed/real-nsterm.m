/* SPDX-License-Identifier: MIT */
/* real-nsterm.m -- issue 18, class 7 (realistic): an Objective-C
   terminal file as a GUI port has it.  Not compiled in CI (no
   Objective-C compiler there); dumper-migrate must read it.  */

#import <Foundation/Foundation.h>
#include <stdbool.h>
#include <dumper/dumper.h>

@interface R3View : NSObject
{
  bool r3_dirty;
}
- (void) r3_redisplay;
@end

@implementation R3View
- (void) r3_redisplay
{
  r3_dirty = false;
}
@end

void
r3_ns_init (void)
{
  /* dumper-migrate: review initialized-test */
  if (initialized)
    return;
  dumper_mark_initialized ();
}
