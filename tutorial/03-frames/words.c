/* words.c: a generator that hands out pointers into its own frame.
 *
 * words_next() hands out the words of a text one by one. Its consumer finds
 * doubled words ("the the"), so it compares each word with the one before:
 * the generator fills two buffers in turn, and the word it handed out last
 * stays as it is while it makes the next one. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct words_frame {
  int state;         /* where to go on: 0 from the start, 1 after the yield, 2 the end */
  const char *text;  /* the parameter */
  char buf[2][16];   /* the locals: two buffers for words, */
  char *w;           /*   a pointer to the one being filled, */
  int n;             /*   and how many chars it holds */
};

/* Make an instance of words: a frame with its argument in it. Runs nothing. */
static struct words_frame *words_new(const char *text) {
  struct words_frame *f = calloc(1, sizeof *f);  /* zeroed: state 0 */
  if (f == NULL) {
    perror("calloc");
    exit(1);
  }
  f->text = text;
  return f;
}

/* Point *out at the next word of the text and return true, or return false
   at the end. The word stays valid until the next call but one. */
static bool words_next(struct words_frame *f, const char **out) {
  switch (f->state) {
  case 0:
    f->w = f->buf[0];
    for (;;) {
      while (*f->text == ' ')
        f->text++;
      if (*f->text == '\0')
        break;
      for (f->n = 0; *f->text != ' ' && *f->text != '\0'; f->text++)
        if (f->n < 15)   /* longer words are cut short */
          f->w[f->n++] = *f->text;
      f->w[f->n] = '\0';
      f->state = 1;      /* "yield w": remember where we are, */
      *out = f->w;       /* hand over a pointer into the frame, */
      return true;       /* and return. */
  case 1:                /* The next call jumps back in here. */
      f->w = f->w == f->buf[0] ? f->buf[1] : f->buf[0];  /* the other buffer */
    }
  }
  f->state = 2;          /* the end: no case 2, so every later call comes here */
  return false;
}

int main(void) {
  struct words_frame *f = words_new("Paris in the the spring and and more");
  const char *word, *prev = "";
  while (words_next(f, &word)) {
    printf("%s%s\n", word, strcmp(word, prev) == 0 ? "  <- doubled" : "");
    prev = word;         /* a pointer into f: valid while f is suspended */
  }
  free(f);
  return 0;
}
