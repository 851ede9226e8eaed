/* The bad-input table's runner for moving bodies (bad_input.h):
   skim_world_add_body, skim_world_set_body_transform, skim_world_remove_body,
   skim_world_get_body_transform. A refused add leaves *out_id SKIM_STATIC
   and no body; a refused set leaves the body where it was. */
#include "bad_input.h"

skim_status bad_input_run_bodies(const row *r)
{
    body_args a = { .transform = { { 1, 2, 3 }, { 0, 0, 0, 1 } } };
    apply(r, &a);
    const body_args before = a;
    skim_world *world = small_world(SKIM_ACCELERATOR_BVH), *shape = small_world(SKIM_ACCELERATOR_BVH);
    skim_world *other = small_world(SKIM_ACCELERATOR_BVH);
    uint32_t first = SKIM_STATIC, extra = SKIM_STATIC;
    const skim_transform origin = { { 0, 0, 0 }, { 0, 0, 0, 1 } };
    if (r->fn != F_world_add_body || a.shape_has_bodies || a.world_is_shape) {
        /* The body the other calls name (id 0), or the one that makes the
           shape a world with bodies, or the world a body's shape. */
        skim_world *holder = a.world_is_shape ? other : a.shape_has_bodies ? shape : world;
        skim_world *held = a.world_is_shape ? world : other;
        cr_assert_eq(skim_world_add_body(holder, held, origin, &first), SKIM_OK, "%s", skim_last_error_message());
    }
    if (a.removed)
        cr_assert_eq(skim_world_remove_body(world, 0), SKIM_OK);
    skim_world *target = a.null_world ? NULL : world;
    skim_status status = SKIM_OK;
    switch (r->fn) {
    case F_world_add_body: {
        GUARDED(uint32_t) out;
        memset(&out, CANARY, sizeof out);
        out.value = 12345;
        status = skim_world_add_body(target, a.null_shape ? NULL : a.shape_is_world ? world : shape,
                                     a.transform, a.null_out ? NULL : &out.value);
        if (!a.null_out) {
            cr_expect(canary_intact(out.canary, CANARY_BYTES), "skim_world_add_body wrote past out_id");
            if (status != SKIM_OK)
                cr_expect_eq(out.value, SKIM_STATIC, "out_id not SKIM_STATIC on failure");
            extra = out.value;
        }
        break;
    }
    case F_world_set_body_transform: {
        status = skim_world_set_body_transform(target, a.id, a.transform);
        skim_transform now;
        if (!a.removed && a.id == 0 && status != SKIM_OK) {
            cr_assert_eq(skim_world_get_body_transform(world, 0, &now, NULL), SKIM_OK);
            cr_expect_eq(now.position.x, 0.0f, "a refused set moved the body");
        }
        break;
    }
    case F_world_remove_body: status = skim_world_remove_body(target, a.id); break;
    case F_world_get_body_transform: {
        GUARDED(skim_transform) now;
        GUARDED(skim_transform) was;
        memset(&now, CANARY, sizeof now);
        memset(&was, CANARY, sizeof was);
        status = skim_world_get_body_transform(target, a.id, a.null_now ? NULL : &now.value,
                                               a.null_before ? NULL : &was.value);
        cr_expect(canary_intact(now.canary, CANARY_BYTES) && canary_intact(was.canary, CANARY_BYTES),
                  "skim_world_get_body_transform wrote past its outputs");
        break;
    }
    default: cr_assert_fail("no bodies runner for %s", function_names[r->fn]);
    }
    expect_status(r, status);
    cr_expect(memcmp(&before, &a, sizeof a) == 0, "%s changed its inputs", function_names[r->fn]);
    (void)extra;
    /* Every world before the shapes of its bodies (a shape must outlive
       its bodies): other holds world's body, or world and shape hold
       other's (and world may hold shape's). */
    skim_world *order[3] = { world, shape, other };
    if (a.world_is_shape)
        order[0] = other, order[1] = world, order[2] = shape;
    for (int k = 0; k < 3; ++k)
        skim_world_destroy(order[k]);
    return status;
}
