/* front/lines.h: the input's own #line directives (lines.c): what the
 * scanner (lexer.l), the reader (source.c) and the writers (writer.c,
 * directives.c, html.c) ask of them.
 */
#ifndef COROC_LINES_H
#define COROC_LINES_H

#include "coroc.h"

/* Is this directive `#line N` or `# N`? */
bool is_line_directive(const char *directive);
/* Could the text hold a `#line N` or `# N` directive? (false: none can be there) */
bool may_have_line_directives(const char *text, size_t len);
/* What the preprocessor reads of src (*len bytes): its text, each of its own
   #line directives given a name that coroc_line_name reads back. */
char *text_for_preprocessor(Source *src, size_t *len);
/* Is `name`, from a linemarker or a message of the preprocessor, the one
   text_for_preprocessor gives a #line directive of the input? Then line
   `number` of it is the line after the directive's last, `physical`, in the
   file. */
bool coroc_line_name(const char *name, int *physical, int *number);
/* `#line MACRO` ending on line `physical`: the number it gives (its name has
   number 0). The scanner tells it from the first linemarker after it (`seen`);
   seen 0 only asks. 0: not known. */
int line_macro_number(int physical, int seen);
/* Forget the numbers of the last input's `#line MACRO` directives. */
void line_macros_forget(void);
/* The number the compiler gives line `physical` of the input, after the
   input's own #line directives; *quoted is set to the file name the last of
   them gave, as written in quotes, or NULL while the name is the input's. */
int logical_line(Source *src, int physical, const char **quoted);

#endif
