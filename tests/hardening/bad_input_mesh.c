/* The bad-input table's runners for meshes and for the functions without
   arguments (bad_input.h). */
#include "bad_input.h"

/* ================= meshes ================= */
static const char valid_obj[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";

static void expect_empty_mesh(const row *r, const skim_mesh_data *m)
{
    cr_expect(!m->positions && !m->indices && !m->materials && !m->material_names && m->vertex_count == 0 &&
                  m->triangle_count == 0 && m->material_count == 0, "%s(%s = %s): *out not left empty on failure",
              function_names[r->fn], r->argument, kind_names[r->kind]);
}

skim_status bad_input_run_mesh(const row *r)
{
    mesh_args a = { 0 };
    apply(r, &a);
    skim_status status = SKIM_OK;
    GUARDED(skim_mesh_data) out;
    memset(&out, CANARY, sizeof out);
    switch (r->fn) {
    case F_mesh_data_view: {
        skim_mesh view = skim_mesh_data_view(NULL);
        cr_expect(!view.positions && !view.indices && !view.materials && view.vertex_count == 0 &&
                      view.triangle_count == 0, "view of NULL is not empty");
        return SKIM_OK;
    }
    case F_mesh_data_free: {
        skim_mesh_data_free(NULL);
        skim_mesh_data zeroed = { 0 };
        skim_mesh_data_free(&zeroed);
        cr_assert_eq(skim_scene_default(&zeroed), SKIM_OK);
        skim_mesh_data_free(&zeroed);
        skim_mesh_data_free(&zeroed); /* freeing twice: the first left it empty */
        return SKIM_OK;
    }
    case F_scene_default:
        status = skim_scene_default(a.null_out ? NULL : &out.value);
        expect_status(r, status);
        if (!a.null_out) {
            CHECK_CANARY(out, "the mesh data");
            if (status == SKIM_OK)
                skim_mesh_data_free(&out.value);
        }
        return status;
    case F_scene_default_body: {
        const char *name = NULL;
        status = skim_scene_default_body(a.body, a.null_out ? NULL : &out.value, a.null_name ? NULL : &name);
        expect_status(r, status);
        if (!a.null_out) {
            CHECK_CANARY(out, "the mesh data");
            if (status == SKIM_OK)
                skim_mesh_data_free(&out.value);
        }
        cr_expect(status != SKIM_OK || a.null_name || name, "no name given");
        return status;
    }
    case F_scene_default_body_transform: {
        GUARDED(skim_transform) at;
        memset(&at, CANARY, sizeof at);
        status = skim_scene_default_body_transform(a.body, (double)a.seconds, a.null_out ? NULL : &at.value);
        expect_status(r, status);
        CHECK_CANARY(at, "the transform");
        return status;
    }
    case F_mesh_load_obj: {
        scratch_dir d;
        scratch_make(&d);
        char buffer[128];
        const char *path;
        if (a.path == P_VALID) {
            scratch_write(&d, "valid.obj", valid_obj, sizeof valid_obj - 1);
            scratch_file(&d, "valid.obj", buffer, sizeof buffer);
            path = buffer;
        } else {
            path = bad_input_make_path(&d, a.path, buffer, sizeof buffer);
        }
        status = skim_mesh_load_obj(path, a.null_out ? NULL : &out.value);
        expect_status(r, status);
        if (!a.null_out) {
            CHECK_CANARY(out, "the mesh data");
            if (status != SKIM_OK)
                expect_empty_mesh(r, &out.value);
            else
                skim_mesh_data_free(&out.value);
        }
        scratch_remove(&d);
        return status;
    }
    case F_mesh_parse_obj: {
        /* Exactly sized heap copies: ASan catches a read past the length. */
        size_t n = sizeof valid_obj - 1;
        char *text = malloc(n);
        memcpy(text, valid_obj, n);
        size_t length = a.zero_length ? 0 : a.length ? a.length : n;
        const char *name = a.null_name ? NULL : a.alias_name ? text : "hardening.obj";
        status = skim_mesh_parse_obj(a.null_text ? NULL : text, length, name, a.null_out ? NULL : &out.value);
        expect_status(r, status);
        if (!a.null_out) {
            CHECK_CANARY(out, "the mesh data");
            if (status != SKIM_OK)
                expect_empty_mesh(r, &out.value);
            else {
                cr_expect_eq(out.value.triangle_count, 1u);
                skim_mesh_data_free(&out.value);
            }
        }
        if (status != SKIM_OK && a.null_name && !a.null_text && !a.null_out)
            cr_expect(strncmp(skim_last_error_message(), "<memory>:", 9) == 0, "message '%s'",
                      skim_last_error_message());
        cr_expect(memcmp(text, valid_obj, n) == 0, "skim_mesh_parse_obj changed its text");
        free(text);
        return status;
    }
    default:
        cr_assert_fail("no mesh runner for %s", function_names[r->fn]);
    }
    return status;
}

/* ================= no-argument functions ================= */
skim_status bad_input_run_basics(const row *r)
{
    switch (r->fn) {
    case F_status_string:
        cr_expect_not_null(skim_status_string((skim_status)r->value));
        cr_expect_gt(strlen(skim_status_string((skim_status)r->value)), 0u);
        break;
    case F_last_error_message:
        cr_expect_not_null(skim_last_error_message());
        break;
    case F_isa_name: cr_expect_not_null(skim_isa_name()); break;
    case F_isa_available: cr_expect_not_null(skim_isa_available()); break;
    case F_version: cr_expect_str_eq(skim_version(), SKIM_VERSION_STRING); break;
    case F_isa_status: {
        skim_status status = skim_isa_status();
        cr_expect(status == SKIM_OK || status == SKIM_ERROR_INVALID_ARGUMENT);
        cr_expect_eq(status == SKIM_OK, strcmp(skim_isa_name(), "invalid") != 0);
        break;
    }
    case F_world_def_default: {
        skim_mesh mesh = small_mesh();
        skim_world_def def = skim_world_def_default();
        skim_world *world = NULL;
        cr_expect_eq(skim_world_create(&mesh, &def, &world), SKIM_OK, "the default world def is rejected");
        skim_world_destroy(world);
        break;
    }
    case F_query_default: {
        skim_query q = skim_query_default();
        cr_expect_eq(q.material_mask, UINT64_MAX);
        cr_expect_not(q.cull_back_faces);
        break;
    }
    case F_move_def_default:
    case F_crowd_def_default:
    case F_agent_def_default: {
        skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
        skim_move_def def = skim_move_def_default();
        skim_move_result out;
        skim_ellipsoid shape = sphere_of(1);
        cr_expect_eq(skim_move(world, &shape, (skim_vec3){ 0, 0, 2 }, (skim_vec3){ 1, 0, 0 }, &def, &out), SKIM_OK);
        skim_crowd_def cdef = skim_crowd_def_default();
        skim_crowd *crowd = NULL;
        cr_expect_eq(skim_crowd_create(&cdef, &crowd), SKIM_OK);
        skim_agent_def agent = skim_agent_def_default();
        uint32_t id;
        cr_expect_eq(skim_crowd_add(crowd, &agent, &id), SKIM_OK, "the default agent is rejected");
        cr_expect_eq(skim_crowd_step(world, crowd, 0.02f), SKIM_OK);
        skim_crowd_destroy(crowd);
        skim_world_destroy(world);
        break;
    }
    case F_spawn_def_default: {
        skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
        skim_ellipsoid shape = sphere_of(1);
        uint32_t count;
        cr_expect_eq(skim_find_spawn_places(world, &shape, NULL, NULL, 0, &count), SKIM_OK,
                     "the default spawn def is rejected");
        skim_spawn_def def = skim_spawn_def_default();
        cr_expect_eq(skim_find_spawn_places(world, &shape, &def, NULL, 0, &count), SKIM_OK);
        skim_world_destroy(world);
        break;
    }
    default:
        cr_assert_fail("no runner");
    }
    return SKIM_OK;
}
