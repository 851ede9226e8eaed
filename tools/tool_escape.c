/* Text from the command line (file names, captions) written into JSON
   strings and SVG (XML) text: quoted so that any name gives a valid
   document. */
#include "tool.h"

void tool_print_json_string(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)text; *c; ++c) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(out, "\\u%04x", *c);
        else
            fputc(*c, out);
    }
    fputc('"', out);
}

void tool_print_xml_text(FILE *out, const char *text)
{
    for (const char *c = text; *c; ++c) {
        switch (*c) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        default: fputc(*c, out);
        }
    }
}
