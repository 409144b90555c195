/* line_endings.c: whitespace and line endings that a byte-exact copy must keep.
 *
 * A UTF-8 byte order mark, CRLF line ends throughout, tabs, form feeds and vertical
 * tabs between tokens, trailing blanks, backslash-CRLF line splices inside a #define
 * and inside a string, blank lines holding only blanks, and no newline at the end of
 * the file.
 */
#include <stdio.h>
#include <string.h>   

#define ADD(a, b) \
	((a) + \
	 (b))

static int	spaced	=	3;		
static intvertical= 4;
   	  
static const char *spliced = "first \
second";

int main(void)
{
	int x = ADD(spaced, vertical);
	int y = x *2;
	printf("sum %d %d\n", x, y);
	printf("splice [%s] %zu\n", spliced, strlen(spliced));
	printf("crlf in string [%s]\n", "a\r\nb");
	return 0;
}