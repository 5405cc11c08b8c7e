#ifndef CXCB_SHIM_H
#define CXCB_SHIM_H
#include <sys/ipc.h>
#include <sys/shm.h>
#include <xcb/xcb.h>
#include <xcb/shm.h>
#include <xcb/xfixes.h>
#include <xcb/damage.h>
#include <xcb/randr.h>

/* IPC_PRIVATE is a cast macro. */
static inline key_t CXCB_ipc_private(void) { return IPC_PRIVATE; }
/* Extension ids are declared as incomplete types; Swift cannot take their address. */
static inline xcb_extension_t *CXCB_shm_id(void) { return &xcb_shm_id; }
static inline xcb_extension_t *CXCB_damage_id(void) { return &xcb_damage_id; }
static inline xcb_extension_t *CXCB_xfixes_id(void) { return &xcb_xfixes_id; }
static inline xcb_extension_t *CXCB_randr_id(void) { return &xcb_randr_id; }
#endif
