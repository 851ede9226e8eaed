/* Meshes owned by skim (loaded or generated): a view and a destructor. */
#include "base/skim_internal.h"

#include <stdlib.h>
#include <string.h>

skim_mesh skim_mesh_data_view(const skim_mesh_data *data)
{
    skim_mesh mesh = { 0 };
    if (!data)
        return mesh;
    mesh.positions = data->positions;
    mesh.vertex_count = data->vertex_count;
    mesh.indices = data->indices;
    mesh.triangle_count = data->triangle_count;
    mesh.materials = data->materials;
    return mesh;
}

void skim_mesh_data_free(skim_mesh_data *data)
{
    if (!data)
        return;
    free(data->positions);
    free(data->indices);
    free(data->materials);
    if (data->material_names)
        for (uint32_t i = 0; i < data->material_count; ++i)
            free(data->material_names[i]);
    free(data->material_names);
    memset(data, 0, sizeof *data);
}
