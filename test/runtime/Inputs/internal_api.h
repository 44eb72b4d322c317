/* The runtime's internal asynchronous interface (runtime/src/internal.h), for tests that need a
 * deterministic order of requests within one server pass. Hidden symbols of librcl.a. */
#ifndef RCL_TEST_INTERNAL_API_H
#define RCL_TEST_INTERNAL_API_H

#include <rcl/rcl.h>
#include <stdbool.h>

struct rcl_mailbox;
struct rcl_server;
extern struct rcl_mailbox *rcl__mailbox_open(int server);
extern void rcl__mailbox_post(struct rcl_mailbox *mb, pthread_mutex_t *lock, rcl_cs_fn fn,
                              void *ctx);
extern bool rcl__mailbox_answered(struct rcl_mailbox *mb);
extern void rcl__mailbox_close(struct rcl_mailbox *mb);
extern struct rcl_server *rcl__server(int index);
extern unsigned rcl__server_slots(struct rcl_server *s);

#endif
