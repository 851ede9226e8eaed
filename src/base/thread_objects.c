/* The library's per-thread objects: the scratch a sweep or a move keeps
   between calls on one thread (candidate buffers, kept walks, cached
   shapes), so that no call allocates once they have grown.

   Each is made on its thread's first call and freed when the thread ends:
   OpenMP drops worker threads when a later team is smaller, and a user's
   own threads come and go, so their buffers must not leak. One tss key
   for all of them carries the destructor; the callers keep a thread-local
   pointer of their own for a lookup without a call. Not the global mutable
   state the library forbids: every object belongs to one thread. */
#include "base/skim_internal.h"

#include <stdlib.h>
#include <string.h>
#include <threads.h>

typedef struct thread_object {
    void *object;
    void (*destroy)(void *object);
} thread_object;

static _Thread_local thread_object objects[SKIM_THREAD_OBJECT_KINDS];
static tss_t objects_key;
static once_flag objects_key_once = ONCE_FLAG_INIT;
static bool objects_key_ok;

static void destroy_objects(void *opaque)
{
    thread_object *all = opaque;
    for (int kind = 0; kind < SKIM_THREAD_OBJECT_KINDS; ++kind)
        if (all[kind].object) {
            all[kind].destroy(all[kind].object);
            all[kind].object = NULL;
        }
}

static void make_objects_key(void)
{
    objects_key_ok = tss_create(&objects_key, destroy_objects) == thrd_success;
}

void *skim_thread_object(skim_thread_object_kind kind, size_t bytes, void (*init)(void *object),
                         void (*destroy)(void *object))
{
    thread_object *slot = &objects[kind];
    if (slot->object)
        return slot->object;
    call_once(&objects_key_once, make_objects_key);
    /* 64-byte aligned and zeroed: the objects hold SIMD setups. */
    const size_t size = (bytes + 63) / 64 * 64;
    void *object = aligned_alloc(64, size);
    if (!object)
        return NULL;
    memset(object, 0, size);
    if (init)
        init(object);
    slot->object = object;
    slot->destroy = destroy;
    if (objects_key_ok)
        tss_set(objects_key, objects);
    return object;
}
