/* Per-agent settings: an agent's own step height, slope limit, snap
   distance and world material mask (each replacing the crowd's only when
   its SKIM_AGENT_SET_* bit is set, so a zeroed definition means the
   crowd's), and its agent layers.

   The crowd keeps a table of the distinct settings its agents asked for
   (entry 0: none, the crowd's own), and each agent the index of its entry;
   a step with more than one entry moves each agent with the definition made
   from its entry (skim_move_batch_indexed). Entries are kept once made:
   agents of a kind come and go, and the table stays as small as the
   number of kinds. */
#include "crowd/crowd_internal.h"
#include "move/move_internal.h"

#include <math.h>
#include <stdlib.h>

#define KNOWN_OVERRIDES \
    (SKIM_AGENT_SET_STEP_HEIGHT | SKIM_AGENT_SET_SLOPE | SKIM_AGENT_SET_SNAP | SKIM_AGENT_SET_MATERIALS)

skim_status crowd_check_agent_settings(const skim_agent_def *a)
{
    const char *what = "skim_crowd_add";
    if (a->overrides & ~(uint32_t)KNOWN_OVERRIDES)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: unknown overrides 0x%x", what, a->overrides);
    if ((a->overrides & SKIM_AGENT_SET_STEP_HEIGHT) && !(a->step_height >= 0.0f && a->step_height <= SKIM_CROWD_LIMIT))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: step_height must be in [0, %g] (got %g)", what,
                         SKIM_CROWD_LIMIT, (double)a->step_height);
    if ((a->overrides & SKIM_AGENT_SET_SLOPE) && !(a->max_slope_degrees > 0.0f && a->max_slope_degrees < 90.0f))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: max_slope_degrees must be in (0, 90) (got %g)", what,
                         (double)a->max_slope_degrees);
    if ((a->overrides & SKIM_AGENT_SET_SNAP) && !(a->snap_distance >= 0.0f && a->snap_distance <= SKIM_CROWD_LIMIT))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: snap_distance must be in [0, %g] (got %g)", what,
                         SKIM_CROWD_LIMIT, (double)a->snap_distance);
    return SKIM_OK;
}

/* Only the values its bits name count: two definitions that differ in an
   unused field are the same setting. */
static crowd_setting setting_of(const skim_agent_def *a)
{
    crowd_setting s = { a->overrides, 0.0f, 0.0f, 0.0f, 0 };
    if (a->overrides & SKIM_AGENT_SET_STEP_HEIGHT)
        s.step_height = a->step_height;
    if (a->overrides & SKIM_AGENT_SET_SLOPE)
        s.max_slope_degrees = a->max_slope_degrees;
    if (a->overrides & SKIM_AGENT_SET_SNAP)
        s.snap_distance = a->snap_distance;
    if (a->overrides & SKIM_AGENT_SET_MATERIALS)
        s.material_mask = a->material_mask;
    return s;
}

static bool same_setting(const crowd_setting *a, const crowd_setting *b)
{
    return a->overrides == b->overrides && a->step_height == b->step_height &&
           a->max_slope_degrees == b->max_slope_degrees && a->snap_distance == b->snap_distance &&
           a->material_mask == b->material_mask;
}

bool crowd_take_settings(skim_crowd *c, uint32_t slot, const skim_agent_def *a)
{
    crowd_setting s = setting_of(a);
    uint32_t k = 0;
    while (k < c->setting_count && !same_setting(&c->settings[k], &s))
        ++k;
    if (k == c->setting_count) {
        if (k == c->setting_capacity) {
            uint32_t grown = 2 * c->setting_capacity;
            crowd_setting *table = realloc(c->settings, grown * sizeof *table);
            skim_move_def *defs = realloc(c->setting_defs, 2 * (size_t)grown * sizeof *defs);
            if (table)
                c->settings = table;
            if (defs)
                c->setting_defs = defs;
            if (!table || !defs)
                return false;
            c->setting_capacity = grown;
        }
        c->settings[c->setting_count++] = s;
    }
    c->setting[slot] = k;
    c->layers[slot] = a->layers ? a->layers : 1u;
    c->collides_with[slot] = a->collides_with ? a->collides_with : UINT32_MAX;
    c->layered += c->layers[slot] != 1u || c->collides_with[slot] != UINT32_MAX;
    c->support[slot] = UINT32_MAX;
    return true;
}

void crowd_drop_settings(skim_crowd *c, uint32_t slot)
{
    c->layered -= c->layers[slot] != 1u || c->collides_with[slot] != UINT32_MAX;
}

/* The crowd's move definition with setting s applied. */
static skim_move_def apply(const skim_move_def *crowd, const crowd_setting *s)
{
    skim_move_def d = *crowd;
    if (s->overrides & SKIM_AGENT_SET_STEP_HEIGHT)
        d.step_height = s->step_height;
    if (s->overrides & SKIM_AGENT_SET_SLOPE)
        d.max_slope_degrees = s->max_slope_degrees;
    if (s->overrides & SKIM_AGENT_SET_SNAP)
        d.snap_distance = s->snap_distance;
    if (s->overrides & SKIM_AGENT_SET_MATERIALS)
        d.query.material_mask = s->material_mask;
    return d;
}

void crowd_setting_defs(skim_crowd *c, const skim_move_def *on_floor, const skim_move_def *in_air)
{
    for (uint32_t k = 0; k < c->setting_count; ++k) {
        c->setting_defs[2 * k] = apply(on_floor, &c->settings[k]);
        c->setting_defs[2 * k + 1] = apply(in_air, &c->settings[k]);
        /* Airborne agents neither step nor snap, whatever their own
           settings (crowd_step.c). */
        c->setting_defs[2 * k + 1].step_height = 0.0f;
        c->setting_defs[2 * k + 1].snap_distance = 0.0f;
    }
}

float crowd_world_reach(const skim_crowd *c, uint32_t slot)
{
    const crowd_setting *s = &c->settings[c->setting[slot]];
    float step = s->overrides & SKIM_AGENT_SET_STEP_HEIGHT ? s->step_height : c->def.move.step_height;
    float snap = s->overrides & SKIM_AGENT_SET_SNAP ? s->snap_distance : c->def.move.snap_distance;
    return step + snap;
}
