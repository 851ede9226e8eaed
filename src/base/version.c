/* skim_version(): the library's version, as built. */
#include <skim/skim.h>

const char *skim_version(void)
{
    return SKIM_VERSION_STRING;
}
