/* The OBJ parser's name to material id lookup: an open-addressing hash
   table over the ids, so a file with many o/g/usemtl names is read in
   time linear in its size (a scan of every name per face was quadratic). */
#include "io/mesh_internal.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a: short keys, no adversary to defeat beyond keeping chains short
   on ordinary names; the table is at most half full. */
static uint64_t name_hash(const char *name)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (const unsigned char *s = (const unsigned char *)name; *s; ++s)
        h = (h ^ *s) * 0x100000001b3u;
    return h;
}

void skim_obj_names_free(skim_obj_names *names)
{
    free(names->slots);
    *names = (skim_obj_names){ 0 };
}

/* Slots hold id + 1 (0 = empty). */
static bool rehash(skim_obj_names *names, char *const *list, uint32_t count, size_t slot_count)
{
    uint32_t *slots = calloc(slot_count, sizeof *slots);
    if (!slots)
        return false;
    for (uint32_t id = 0; id < count; ++id) {
        size_t at = (size_t)name_hash(list[id]) & (slot_count - 1);
        while (slots[at])
            at = (at + 1) & (slot_count - 1);
        slots[at] = id + 1;
    }
    free(names->slots);
    names->slots = slots;
    names->slot_count = slot_count;
    return true;
}

bool skim_obj_names_find(const skim_obj_names *names, char *const *list, const char *name, uint32_t *id)
{
    if (!names->slot_count)
        return false;
    for (size_t at = (size_t)name_hash(name) & (names->slot_count - 1); names->slots[at];
         at = (at + 1) & (names->slot_count - 1))
        if (strcmp(list[names->slots[at] - 1], name) == 0) {
            *id = names->slots[at] - 1;
            return true;
        }
    return false;
}

bool skim_obj_names_added(skim_obj_names *names, char *const *list, uint32_t count)
{
    if (2 * (size_t)count > names->slot_count)
        return rehash(names, list, count, names->slot_count ? 2 * names->slot_count : 64);
    const uint32_t id = count - 1;
    size_t at = (size_t)name_hash(list[id]) & (names->slot_count - 1);
    while (names->slots[at])
        at = (at + 1) & (names->slot_count - 1);
    names->slots[at] = id + 1;
    return true;
}
