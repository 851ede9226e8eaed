/* Kernel-set dispatch: the one piece of global mutable state the library
   has, chosen once (SKIM_ISA, else the best set the CPU offers) and never
   changed afterwards. */
#include "../skim_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

static const skim_kernel_set reference_set = {
    .name = "reference", .width = 1, .sweep = skim_reference_sweep_candidates,
};

/* Every set this build knows, best last. */
static const skim_kernel_set *const known_sets[] = {
    &reference_set,
};
enum { known_set_count = sizeof known_sets / sizeof known_sets[0] };

static bool cpu_can_run(const skim_kernel_set *set)
{
    (void)set;
    return true;
}

static once_flag choose_once = ONCE_FLAG_INIT;
static const skim_kernel_set *chosen_set;
static char available_names[128];
static char isa_error[256];

static void choose_kernel_set(void)
{
    for (int i = 0; i < known_set_count; ++i) {
        if (!cpu_can_run(known_sets[i]))
            continue;
        if (available_names[0])
            strncat(available_names, " ", sizeof available_names - strlen(available_names) - 1);
        strncat(available_names, known_sets[i]->name,
                sizeof available_names - strlen(available_names) - 1);
    }
    const char *forced = getenv("SKIM_ISA");
    if (forced && forced[0]) {
        chosen_set = skim_kernel_set_by_name(forced);
        if (!chosen_set)
            snprintf(isa_error, sizeof isa_error,
                     "SKIM_ISA=%s is not a kernel set this CPU can run; available: %s", forced,
                     available_names);
        return;
    }
    for (int i = known_set_count - 1; i >= 0; --i)
        if (cpu_can_run(known_sets[i])) {
            chosen_set = known_sets[i];
            return;
        }
}

const skim_kernel_set *skim_kernel_set_by_name(const char *name)
{
    for (int i = 0; i < known_set_count; ++i)
        if (strcmp(known_sets[i]->name, name) == 0)
            return cpu_can_run(known_sets[i]) ? known_sets[i] : NULL;
    return NULL;
}

const skim_kernel_set *skim_kernels(void)
{
    call_once(&choose_once, choose_kernel_set);
    if (!chosen_set)
        skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s", isa_error);
    return chosen_set;
}

const char *skim_isa_name(void)
{
    const skim_kernel_set *set = skim_kernels();
    return set ? set->name : "invalid";
}

const char *skim_isa_available(void)
{
    call_once(&choose_once, choose_kernel_set);
    return available_names;
}

skim_status skim_isa_status(void)
{
    return skim_kernels() ? SKIM_OK : SKIM_ERROR_INVALID_ARGUMENT;
}
