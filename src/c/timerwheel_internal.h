/* timerwheel_internal.h: the C face's entry points for the drop-ins of the
 * same library (src/compat/), not exported.
 *
 * The drop-ins make every wheel they use themselves, of TW_CONFIG_DEFAULT,
 * and keep it for as long as they call it; their callers' timers are never
 * null (the originals dereference them too). So these skip what the public
 * entry points check on every call: the null wheel and timer, and the
 * configuration. Each does what its public counterpart does for a wheel of
 * TW_CONFIG_DEFAULT and non-null arguments, and nothing else.
 */
#ifndef TIMERWHEEL_INTERNAL_H
#define TIMERWHEEL_INTERNAL_H

#include <timerwheel.h>

#ifdef __cplusplus
extern "C" {
#endif

/* tw_schedule on a wheel of TW_CONFIG_DEFAULT; `w` and `timer` not null.
 * O(1). */
void tw_internal_schedule(tw_wheel* w, tw_timer* timer, uint64_t deadline);

/* tw_cancel on a wheel of TW_CONFIG_DEFAULT; `w` and `timer` not null.
 * O(1). */
bool tw_internal_cancel(tw_wheel* w, tw_timer* timer);

/* tw_take_expired on a wheel of TW_CONFIG_DEFAULT; `w` not null. O(1). */
tw_timer* tw_internal_take_expired(tw_wheel* w);

#ifdef __cplusplus
}
#endif

#endif /* TIMERWHEEL_INTERNAL_H */
