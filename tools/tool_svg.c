/* The top-down picture of a crowd run: the level's triangles seen from
   above (z up), floors shaded by height and walls dark, painted low to high
   so the upper surfaces cover the lower; then every agent's trail, and a
   disc where it ended, ringed by what became of it, with a legend. */
#include "tool.h"
#include "tool_goals.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct drawn {
    float top;       /* highest z: painting order */
    uint32_t index;
} drawn;

static int by_top(const void *a, const void *b)
{
    const drawn *x = a, *y = b;
    if (x->top != y->top)
        return x->top < y->top ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* The rings around agents' final discs, by MARK_*: colours apart for
   colour-blind eyes too (ColorBrewer's PuOr / RdYlGn ends), stuck dashed. */
static const struct {
    const char *colour, *dash, *label;
} mark_style[4] = {
    { "#111", "", "walking" },
    { "#1a9850", "", "arrived at a goal" },
    { "#d73027", " stroke-dasharray=\"8 5\"", "stuck: gave up on a goal or could not move" },
    { "#7b3294", "", "squeezed by a moving body" },
};
#define LEGEND_BAND 90.0f

/* Moving bodies: filled in one colour apart from the level's greys and
   the agents' rings. */
#define BODY_FILL "#e08214"
#define BODY_STROKE "#8c4a00"

/* Rings by mark, then the legend in the band below the level (with the
   moving bodies' swatch when there are any). */
static void write_marks(FILE *out, const tool_trails *trails, float min_x, float max_y, float width, float legend_y,
                        uint32_t bodies)
{
    uint32_t count[4] = { 0 };
    const skim_vec3 *last = trails->points + (size_t)(trails->samples - 1) * trails->agents;
    for (uint32_t a = 0; a < trails->agents; ++a)
        count[trails->marks[a] < 4 ? trails->marks[a] : 0]++;
    /* Arrived agents are the many: thin rings; the stuck and squeezed
       are what a reader looks for: wide rings, drawn over the rest. */
    fprintf(out, "<g fill=\"none\">\n");
    for (uint8_t m = MARK_ARRIVED; m <= MARK_SQUEEZED; ++m)
        for (uint32_t a = 0; a < trails->agents; ++a)
            if (trails->marks[a] == m)
                fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" stroke=\"%s\" stroke-width=\"%s\"%s/>\n",
                        last[a].x - min_x, max_y - last[a].y, trails->radius[a] + (m == MARK_ARRIVED ? 3.0f : 9.0f),
                        mark_style[m].colour, m == MARK_ARRIVED ? "3" : "7", mark_style[m].dash);
    double font = fmin(36.0, (double)width / 78.0), x = 40.0;
    fprintf(out, "</g>\n<g font-family=\"sans-serif\" font-size=\"%.1f\" fill=\"#222\">\n", font);
    for (int m = 1; m <= 4; ++m) {
        int k = m % 4; /* walking last */
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"#bbb\" stroke=\"%s\" stroke-width=\"%s\"%s/>\n",
                x + font * 0.5, legend_y + LEGEND_BAND * 0.5, font * 0.45, mark_style[k].colour, k ? "5" : "0.8",
                mark_style[k].dash);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">%s (%u)</text>\n", x + font * 1.4,
                legend_y + LEGEND_BAND * 0.5 + font * 0.35, mark_style[k].label, count[k]);
        x += font * (1.4 + 0.55 * (double)(strlen(mark_style[k].label) + 8)) + font;
    }
    if (bodies) {
        fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" stroke=\"%s\"/>\n", x,
                legend_y + LEGEND_BAND * 0.5 - font * 0.45, font * 0.9, font * 0.9, BODY_FILL, BODY_STROKE);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">moving body, where it ended (%u)</text>\n", x + font * 1.4,
                legend_y + LEGEND_BAND * 0.5 + font * 0.35, bodies);
    }
    fprintf(out, "</g>\n");
}

/* A colour per agent: hues spread by the golden angle. */
static void agent_colour(uint32_t i, char out[32])
{
    double hue = fmod((double)i * 137.50776405, 360.0);
    snprintf(out, 32, "hsl(%.0f,75%%,42%%)", hue);
}

/* The bodies' triangles seen from above where they stand. */
static void write_bodies(FILE *out, const tool_svg_bodies *bodies, float min_x, float max_y)
{
    fprintf(out, "<g fill=\"%s\" fill-opacity=\"0.8\" stroke=\"%s\" stroke-width=\"2\" stroke-linejoin=\"round\">\n",
            BODY_FILL, BODY_STROKE);
    for (uint32_t b = 0; b < bodies->count; ++b) {
        const skim_mesh_data *mesh = bodies->mesh[b];
        const skim_quat q = bodies->at[b].rotation;
        const skim_vec3 p = bodies->at[b].position;
        for (uint32_t t = 0; t < mesh->triangle_count; ++t) {
            fprintf(out, "<path d=\"");
            for (int v = 0; v < 3; ++v) {
                const float *a = mesh->positions + 3 * (size_t)mesh->indices[3 * (size_t)t + v];
                /* q a q*, written out for a unit quaternion. */
                float tx = 2.0f * (q.y * a[2] - q.z * a[1]), ty = 2.0f * (q.z * a[0] - q.x * a[2]),
                      tz = 2.0f * (q.x * a[1] - q.y * a[0]);
                float x = a[0] + q.w * tx + (q.y * tz - q.z * ty) + p.x;
                float y = a[1] + q.w * ty + (q.z * tx - q.x * tz) + p.y;
                fprintf(out, "%s%.1f %.1f", v ? "L" : "M", x - min_x, max_y - y);
            }
            fprintf(out, "Z\"/>\n");
        }
    }
    fprintf(out, "</g>\n");
}

bool tool_write_svg(const char *path, const tool_scene *scene, const tool_trails *trails,
                    const tool_svg_bodies *bodies, const char *caption)
{
    skim_world_stats bounds;
    if (skim_world_get_stats(scene->world, &bounds) != SKIM_OK)
        return false;
    const skim_mesh_data *mesh = &scene->mesh;
    FILE *out = fopen(path, "w");
    if (!out)
        return false;
    const float margin = 40.0f;
    const float min_x = bounds.bounds_min.x - margin, max_y = bounds.bounds_max.y + margin;
    const float width = bounds.bounds_max.x - bounds.bounds_min.x + 2 * margin;
    const float legend = trails->marks && trails->samples ? LEGEND_BAND : 0.0f;
    const float height = bounds.bounds_max.y - bounds.bounds_min.y + 2 * margin + 80.0f + legend;
    const float z0 = bounds.bounds_min.z, z_span = fmaxf(bounds.bounds_max.z - z0, 1.0f);
    const double pixels = 2000.0;
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 -80 %.1f %.1f\">\n",
            pixels, pixels * height / width, width, height);
    fprintf(out, "<rect x=\"0\" y=\"-80\" width=\"%.1f\" height=\"%.1f\" fill=\"#ffffff\"/>\n", width, height);
    /* The caption spans at most the width of the picture. */
    double font = fmin(40.0, 1.6 * (double)width / (double)(strlen(caption) + 1));
    fprintf(out, "<text x=\"%.1f\" y=\"-30\" font-family=\"sans-serif\" font-size=\"%.1f\" fill=\"#222\">",
            margin, font);
    tool_print_xml_text(out, caption);
    fprintf(out, "</text>\n");

    /* The level. */
    drawn *order = malloc(((size_t)mesh->triangle_count + 1) * sizeof *order);
    if (!order) {
        fclose(out);
        return false;
    }
    for (uint32_t t = 0; t < mesh->triangle_count; ++t) {
        const uint32_t *i = mesh->indices + 3 * (size_t)t;
        order[t].top = fmaxf(mesh->positions[3 * i[0] + 2],
                             fmaxf(mesh->positions[3 * i[1] + 2], mesh->positions[3 * i[2] + 2]));
        order[t].index = t;
    }
    qsort(order, mesh->triangle_count, sizeof *order, by_top);
    if (!mesh->triangle_count) /* a baked world: its bounds only */
        fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#eee\" stroke=\"#333\"/>\n",
                margin, margin, width - 2 * margin, height - 80.0f - 2 * margin);
    fprintf(out, "<g stroke-linejoin=\"round\">\n");
    for (uint32_t k = 0; k < mesh->triangle_count; ++k) {
        const uint32_t *i = mesh->indices + 3 * (size_t)order[k].index;
        const float *a = mesh->positions + 3 * (size_t)i[0], *b = mesh->positions + 3 * (size_t)i[1],
                    *c = mesh->positions + 3 * (size_t)i[2];
        const float v[9] = { a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2] };
        float e1[3] = { v[3] - v[0], v[4] - v[1], v[5] - v[2] }, e2[3] = { v[6] - v[0], v[7] - v[1], v[8] - v[2] };
        float n[3] = { e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0] };
        float length = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (!(length > 0.0f))
            continue;
        float up = fabsf(n[2]) / length;
        float level = (order[k].top - z0) / z_span; /* 0 low .. 1 high */
        int grey;
        if (up > 0.7f) /* floors and tops: lighter when low, darker when high */
            grey = 232 - (int)(120.0f * level);
        else /* walls and slopes: seen edge-on from above, drawn dark */
            grey = 70 - (int)(40.0f * level);
        fprintf(out, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"rgb(%d,%d,%d)\" stroke=\"rgb(%d,%d,%d)\" "
                     "stroke-width=\"%s\"/>\n",
                v[0] - min_x, max_y - v[1], v[3] - min_x, max_y - v[4], v[6] - min_x, max_y - v[7], grey, grey,
                grey + 8, grey, grey, grey + 8, up > 0.7f ? "0.5" : "2");
    }
    fprintf(out, "</g>\n");
    free(order);
    if (bodies && bodies->count)
        write_bodies(out, bodies, min_x, max_y);

    /* Trails, then where each agent ended. */
    char colour[32];
    fprintf(out, "<g fill=\"none\" stroke-width=\"3\" stroke-opacity=\"0.75\" stroke-linecap=\"round\">\n");
    for (uint32_t a = 0; a < trails->agents && trails->samples > 1; ++a) {
        agent_colour(a, colour);
        fprintf(out, "<polyline stroke=\"%s\" points=\"", colour);
        for (uint32_t s = 0; s < trails->samples; ++s) {
            const skim_vec3 *p = &trails->points[(size_t)s * trails->agents + a];
            fprintf(out, "%s%.0f,%.0f", s ? " " : "", p->x - min_x, max_y - p->y);
        }
        fprintf(out, "\"/>\n");
    }
    /* Discs at the agents' true size, translucent so the trails under a
       dense crowd still show. */
    fprintf(out, "</g>\n<g stroke=\"#111\" stroke-width=\"0.8\" fill-opacity=\"0.55\">\n");
    for (uint32_t a = 0; a < trails->agents && trails->samples > 0; ++a) {
        const skim_vec3 *p = &trails->points[(size_t)(trails->samples - 1) * trails->agents + a];
        agent_colour(a, colour);
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"/>\n", p->x - min_x, max_y - p->y,
                trails->radius[a], colour);
    }
    fprintf(out, "</g>\n");
    if (legend > 0.0f)
        write_marks(out, trails, min_x, max_y, width, height - 80.0f - legend, bodies ? bodies->count : 0);
    fprintf(out, "</svg>\n");
    bool ok = !ferror(out);
    return fclose(out) == 0 && ok;
}
