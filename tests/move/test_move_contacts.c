/* The contacts of a move (skim_move_contacts, skim_move_batch_contacts):
   they agree with what the move did (the wall it slid along, the floor
   gravity or the snap put it on, the tread a step climbed onto), the
   result is bitwise skim_move's, the batch is bitwise the single call for
   any thread count, and the buffer is cut at its capacity with the whole
   count reported. */
#include "move_test_util.h"

#include <omp.h>

/* A room of four parts, each a quad of two triangles with its own
   material: the floor z = 0 (triangles 0, 1; material 1), a wall x = 40
   facing -x (2, 3; material 2), a riser y = 40 facing -y for x < 0, 10
   high (4, 5; material 3) and its tread z = 10 behind it (6, 7;
   material 4). */
static skim_world *room;

static void setup(void)
{
    static const float p[] = {
        -100, -100, 0,   100, -100, 0,   100, 100, 0,   -100, 100, 0,  /* floor */
        40, -100, 0,     40, 100, 0,     40, 100, 100,  40, -100, 100, /* wall */
        -100, 40, 0,     0, 40, 0,       0, 40, 10,     -100, 40, 10,  /* riser */
        -100, 40, 10,    0, 40, 10,      0, 100, 10,    -100, 100, 10, /* tread */
    };
    static const uint32_t quads[4][4] = { { 0, 1, 2, 3 }, { 4, 7, 6, 5 }, { 8, 9, 10, 11 },
                                          { 12, 13, 14, 15 } };
    uint32_t indices[24];
    for (int q = 0; q < 4; ++q) {
        const uint32_t *v = quads[q];
        const uint32_t tri[6] = { v[0], v[1], v[2], v[0], v[2], v[3] };
        memcpy(indices + 6 * q, tri, sizeof tri);
    }
    static const uint16_t materials[8] = { 1, 1, 2, 2, 3, 3, 4, 4 };
    skim_mesh mesh = { p, 16, indices, 8, materials };
    cr_assert_eq(skim_world_create(&mesh, NULL, &room), SKIM_OK, "%s", skim_last_error_message());
}

static void teardown(void)
{
    skim_world_destroy(room);
}

TestSuite(move_contacts, .init = setup, .fini = teardown, .timeout = 60);

enum { CAPACITY = 32 };
static const float R = 8.0f;

typedef struct contacts {
    skim_move_result result;
    skim_contact c[CAPACITY];
    uint32_t count;
} contacts;

/* The move with its contacts; checks the result against skim_move's and
   that the contacts' classes are the touched bits. */
static contacts move_with_contacts(const skim_world *world, skim_ellipsoid shape, skim_vec3 p,
                                   skim_vec3 d, const skim_move_def *def)
{
    contacts out;
    memset(&out, 0xA5, sizeof out);
    cr_assert_eq(skim_move_contacts(world, &shape, p, d, def, &out.result, out.c, CAPACITY,
                                    &out.count),
                 SKIM_OK, "%s", skim_last_error_message());
    skim_move_result plain = move_or_fail(world, shape, p, d, def);
    cr_assert(memcmp(&plain, &out.result, sizeof plain) == 0,
              "skim_move_contacts' result differs from skim_move's");
    cr_assert_leq(out.count, CAPACITY);
    uint32_t touched = 0;
    for (uint32_t i = 0; i < out.count; ++i) {
        touched |= out.c[i].touched;
        cr_expect_eq(out.c[i].body, SKIM_STATIC);
        cr_expect(out.c[i].pass <= SKIM_MOVE_PASS_SNAP);
        const skim_vec3 n = out.c[i].normal;
        expect_near(n.x * n.x + n.y * n.y + n.z * n.z, 1.0, 1e-5);
    }
    cr_expect_eq(touched, out.result.touched, "the contacts' classes %u, the move's touched bits %u",
                 touched, out.result.touched);
    return out;
}

/* The first contact of pass on one of the triangles [first, first + 2), or NULL. */
static const skim_contact *find(const contacts *m, uint8_t pass, uint32_t first)
{
    for (uint32_t i = 0; i < m->count; ++i)
        if (m->c[i].pass == pass && m->c[i].triangle - first < 2)
            return &m->c[i];
    return NULL;
}

static uint32_t count_pass(const contacts *m, uint8_t pass)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->count; ++i)
        n += m->c[i].pass == pass;
    return n;
}

Test(move_contacts, a_move_into_a_wall_reports_the_wall_in_the_slide)
{
    skim_move_def def = skim_move_def_default();
    contacts m = move_with_contacts(room, sphere(R), (skim_vec3){ 20, -50, 1.5f * R },
                                    (skim_vec3){ 20, 5, 0 }, &def);
    cr_assert(m.result.touched & SKIM_TOUCH_WALL);
    const skim_contact *wall = find(&m, SKIM_MOVE_PASS_SLIDE, 2);
    cr_assert_not_null(wall, "no wall contact in the slide pass (%u contacts)", m.count);
    cr_expect_eq(wall->touched, SKIM_TOUCH_WALL);
    cr_expect_eq(wall->material, 2);
    expect_near(wall->normal.x, -1.0, 1e-4);
    expect_near(wall->point.x, 40.0, 1e-3);
    expect_near(wall->point.z, 1.5 * R, 1e-3);
    /* Met where the center stopped, one radius (and the skin) short of the wall. */
    expect_near(m.result.position.x, 40.0 - R * 1.01, 0.01);
    cr_expect_eq(m.count, 1, "only the wall: %u contacts", m.count);
}

Test(move_contacts, a_fall_onto_the_floor_reports_it_in_the_gravity_pass)
{
    skim_move_def def = skim_move_def_default();
    def.gravity = (skim_vec3){ 0, 0, -3 };
    contacts m = move_with_contacts(room, sphere(R), (skim_vec3){ 0, -50, R + 1 },
                                    (skim_vec3){ 3, 0, 0 }, &def);
    cr_assert(m.result.touched & SKIM_TOUCH_FLOOR);
    const skim_contact *floor = find(&m, SKIM_MOVE_PASS_GRAVITY, 0);
    cr_assert_not_null(floor, "no floor contact in the gravity pass");
    cr_expect_eq(floor->touched, SKIM_TOUCH_FLOOR);
    cr_expect_eq(floor->triangle, m.result.floor_triangle);
    cr_expect_eq(floor->material, 1);
    expect_near(floor->normal.z, 1.0, 1e-4);
    expect_near(floor->point.z, 0.0, 1e-3);
    expect_near(floor->point.x, 3.0, 1e-3);
    cr_expect_eq(count_pass(&m, SKIM_MOVE_PASS_SLIDE), 0, "the slide met nothing");
}

Test(move_contacts, a_walk_off_a_ledge_reports_the_floor_in_the_snap)
{
    skim_move_def def = skim_move_def_default();
    def.snap_distance = 4;
    contacts m = move_with_contacts(room, sphere(R), (skim_vec3){ 0, -50, R * 1.01f + 2 },
                                    (skim_vec3){ 3, 0, 0 }, &def);
    cr_assert(m.result.touched & SKIM_TOUCH_FLOOR);
    const skim_contact *floor = find(&m, SKIM_MOVE_PASS_SNAP, 0);
    cr_assert_not_null(floor, "no floor contact in the snap");
    cr_expect_eq(floor->triangle, m.result.floor_triangle);
    expect_near(floor->normal.z, 1.0, 1e-4);
    cr_expect_eq(m.count, 1);
}

Test(move_contacts, a_snap_that_finds_no_floor_reports_nothing)
{
    skim_move_def def = skim_move_def_default();
    def.snap_distance = 4;
    contacts m = move_with_contacts(room, sphere(R), (skim_vec3){ 0, -50, R + 20 },
                                    (skim_vec3){ 3, 0, 0 }, &def);
    cr_expect_eq(m.result.touched, 0u);
    cr_expect_eq(m.count, 0, "%u contacts of a snap that did not land", m.count);
}

Test(move_contacts, a_climbed_step_reports_the_tread_in_the_step_pass)
{
    skim_move_def def = skim_move_def_default();
    def.step_height = 12;
    def.snap_distance = 12;
    const skim_vec3 start = { -50, 20, R * 1.01f };
    contacts m = move_with_contacts(room, sphere(R), start, (skim_vec3){ 0, 20, 0 }, &def);
    expect_near(m.result.position.z, 10 + R * 1.01, 0.01);
    const skim_contact *tread = find(&m, SKIM_MOVE_PASS_STEP, 6);
    cr_assert_not_null(tread, "no tread contact in the step pass");
    cr_expect(tread->touched & SKIM_TOUCH_FLOOR);
    cr_expect_eq(tread->material, 4);
    expect_near(tread->point.z, 10.0, 1e-3);
    /* The step's path replaced the slide's: the riser it was blocked by
       is not the move's. */
    cr_expect_eq(count_pass(&m, SKIM_MOVE_PASS_SLIDE), 0);
}

Test(move_contacts, a_step_that_fails_leaves_the_slide_contacts_only)
{
    skim_move_def def = skim_move_def_default();
    def.step_height = 12;
    contacts m = move_with_contacts(room, sphere(R), (skim_vec3){ 20, -50, R * 1.01f },
                                    (skim_vec3){ 20, 0, 0 }, &def);
    cr_assert(m.result.touched & SKIM_TOUCH_WALL);
    cr_expect_not_null(find(&m, SKIM_MOVE_PASS_SLIDE, 2));
    cr_expect_eq(count_pass(&m, SKIM_MOVE_PASS_STEP), 0);
}

Test(move_contacts, a_touching_start_reports_what_it_touches)
{
    /* A hair inside the floor and the wall in their corner, pushed into both. */
    skim_move_def def = skim_move_def_default();
    def.gravity = (skim_vec3){ 0, 0, -1 };
    contacts m = move_with_contacts(room, sphere(R), (skim_vec3){ 40 - R * 0.999f, 0, R * 0.999f },
                                    (skim_vec3){ 2, 0, 0 }, &def);
    const skim_contact *wall = find(&m, SKIM_MOVE_PASS_SLIDE, 2);
    cr_assert_not_null(wall, "the wall it touches at the start");
    expect_near(wall->point.x, 40.0, 1e-3);
    /* The start's resolution finds the floor it rests on too. */
    const skim_contact *floor = find(&m, SKIM_MOVE_PASS_SLIDE, 0);
    cr_assert_not_null(floor, "the floor it touches at the start");
    cr_expect_eq(floor->touched, SKIM_TOUCH_FLOOR);
    expect_near(floor->point.z, 0.0, 1e-3);
}

Test(move_contacts, a_short_buffer_gets_the_first_contacts_and_the_whole_count)
{
    skim_move_def def = skim_move_def_default();
    def.gravity = (skim_vec3){ 0, 0, -3 };
    const skim_ellipsoid shape = sphere(R);
    const skim_vec3 p = { 30, -50, R + 1 }, d = { 20, 5, 0 };
    contacts full = move_with_contacts(room, shape, p, d, &def);
    cr_assert_geq(full.count, 2, "the wall and the floor: %u contacts", full.count);

    skim_move_result result;
    uint32_t count = 77;
    cr_assert_eq(skim_move_contacts(room, &shape, p, d, &def, &result, NULL, 0, &count), SKIM_OK);
    cr_expect_eq(count, full.count, "counting only");
    cr_expect(memcmp(&result, &full.result, sizeof result) == 0);

    skim_contact one[2];
    memset(one, 0x5A, sizeof one);
    cr_assert_eq(skim_move_contacts(room, &shape, p, d, &def, &result, one, 1, &count), SKIM_OK);
    cr_expect_eq(count, full.count, "the whole count, past the capacity");
    cr_expect(memcmp(&one[0], &full.c[0], sizeof one[0]) == 0, "the first contact");
    unsigned char untouched[sizeof one[1]];
    memset(untouched, 0x5A, sizeof untouched);
    cr_expect(memcmp(&one[1], untouched, sizeof untouched) == 0, "wrote past the capacity");
}

Test(move_contacts, bad_buffers_are_refused_with_a_message)
{
    const skim_ellipsoid shape = sphere(R);
    skim_move_result result;
    uint32_t count = 5;
    cr_expect_eq(skim_move_contacts(room, &shape, (skim_vec3){ 0, 0, 20 }, (skim_vec3){ 1, 0, 0 },
                                    NULL, &result, NULL, 4, &count),
                 SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(skim_last_error_message(), "contacts") != NULL, "%s", skim_last_error_message());
    cr_expect_eq(count, 0u);
    cr_expect_eq(skim_move_contacts(room, &shape, (skim_vec3){ 0, 0, 20 }, (skim_vec3){ 1, 0, 0 },
                                    NULL, &result, NULL, 0, NULL),
                 SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(skim_last_error_message(), "count") != NULL, "%s", skim_last_error_message());
}

/* ---- on the default scene: many movers ---- */

enum { MOVERS = 2000, PER_MOVER = 6 };

typedef struct crowd {
    skim_ellipsoid shapes[MOVERS];
    skim_vec3 positions[MOVERS], displacements[MOVERS];
} crowd;

static void make_crowd(crowd *c)
{
    uint64_t rng = 0x5EED;
    for (int i = 0; i < MOVERS; ++i) {
        c->shapes[i] = i % 5 == 4 ? (skim_ellipsoid){ { 15, 15, 28 }, { 0, 0, 0, 1 } } : sphere(RADIUS);
        c->positions[i] = (skim_vec3){ -2000.0f + 4000.0f * (float)rng_uniform(&rng),
                                       -2000.0f + 4000.0f * (float)rng_uniform(&rng),
                                       16.5f + 40.0f * (float)rng_uniform(&rng) };
        const float heading = 6.2831853f * (float)rng_uniform(&rng);
        const float speed = 60.0f * (float)rng_uniform(&rng);
        c->displacements[i] = (skim_vec3){ speed * cosf(heading), speed * sinf(heading),
                                           -30.0f * (float)rng_uniform(&rng) };
    }
}

/* Hash of what the batch gave: results, counts and the contacts kept. */
static uint64_t batch_contacts_hash(const skim_move_result *results, const uint32_t *counts,
                                    const skim_contact *contacts)
{
    uint64_t hash = 1469598103934665603ull;
    for (int i = 0; i < MOVERS; ++i) {
        hash = hash_bytes(hash, &results[i].position, sizeof results[i].position);
        hash = hash_bytes(hash, &results[i].touched, sizeof results[i].touched);
        hash = hash_bytes(hash, &counts[i], sizeof counts[i]);
        const uint32_t kept = counts[i] < PER_MOVER ? counts[i] : PER_MOVER;
        hash = hash_bytes(hash, contacts + (size_t)i * PER_MOVER, kept * sizeof *contacts);
    }
    return hash;
}

/* The batch's contacts pinned: a change to which contacts a move reports,
   or where, changes it, and the commit that does so says why. */
#define PINNED_CONTACTS_HASH 0x2b52c653dc963d47ull

Test(move_contacts, the_batch_is_the_single_call_for_any_thread_count, .timeout = 120)
{
    scene s;
    scene_default(&s);
    crowd *c = malloc(sizeof *c);
    cr_assert_not_null(c);
    make_crowd(c);
    skim_move_def def = walker_def();
    skim_move_result *results = malloc(MOVERS * sizeof *results), plain[1];
    uint32_t *counts = malloc(MOVERS * sizeof *counts);
    skim_contact *buffer = malloc((size_t)MOVERS * PER_MOVER * sizeof *buffer);
    skim_move_result *batch_plain = malloc(MOVERS * sizeof *batch_plain);
    cr_assert(results && counts && buffer && batch_plain);
    cr_assert_eq(skim_move_batch(s.world, MOVERS, c->shapes, c->positions, c->displacements, &def,
                                 batch_plain), SKIM_OK);
    uint64_t first = 0;
    uint32_t cut = 0, met = 0;
    for (int threads = 1; threads <= 4; threads *= 2) {
        def.threads = threads;
        memset(buffer, 0, (size_t)MOVERS * PER_MOVER * sizeof *buffer);
        cr_assert_eq(skim_move_batch_contacts(s.world, MOVERS, c->shapes, c->positions,
                                              c->displacements, &def, results, buffer, PER_MOVER,
                                              counts),
                     SKIM_OK, "%s", skim_last_error_message());
        cr_expect(memcmp(results, batch_plain, MOVERS * sizeof *results) == 0,
                  "%d threads: results differ from skim_move_batch's", threads);
        const uint64_t hash = batch_contacts_hash(results, counts, buffer);
        if (threads == 1) {
            first = hash;
            /* Each mover as the single call reports it. */
            for (int i = 0; i < MOVERS; ++i) {
                skim_contact one[PER_MOVER];
                uint32_t count;
                cr_assert_eq(skim_move_contacts(s.world, &c->shapes[i], c->positions[i],
                                                c->displacements[i], &def, plain, one, PER_MOVER,
                                                &count), SKIM_OK);
                cr_assert(memcmp(plain, &results[i], sizeof *plain) == 0, "mover %d's result", i);
                skim_move_result moved;
                cr_assert_eq(skim_move(s.world, &c->shapes[i], c->positions[i], c->displacements[i], &def,
                                       &moved), SKIM_OK);
                cr_assert(memcmp(&moved, plain, sizeof moved) == 0, "mover %d: not skim_move's result", i);
                cr_assert_eq(count, counts[i], "mover %d's count", i);
                const uint32_t kept = count < PER_MOVER ? count : PER_MOVER;
                cr_assert(memcmp(one, buffer + (size_t)i * PER_MOVER, kept * sizeof *one) == 0,
                          "mover %d's contacts", i);
                cut += count > PER_MOVER;
                met += count > 0;
            }
        }
        cr_expect_eq(hash, first, "%d threads: hash %016llx, 1 thread %016llx", threads,
                     (unsigned long long)hash, (unsigned long long)first);
    }
    /* The workload reaches what it tests: most movers meet something. */
    cr_expect_gt(met, MOVERS / 2, "%u of %d movers met something", met, MOVERS);
    cr_log_info("%u movers met something, %u more than %d", met, cut, PER_MOVER);
    cr_expect_eq(first, PINNED_CONTACTS_HASH, "contacts hash %016llx", (unsigned long long)first);
    free(batch_plain);
    free(buffer);
    free(counts);
    free(results);
    free(c);
    scene_free(&s);
}
