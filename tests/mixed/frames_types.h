/* frames_types.h: a type that frames.coc's frames use, from a header of its
   own: the header that coroc writes includes it as frames.coc does. */
#ifndef FRAMES_TYPES_H
#define FRAMES_TYPES_H

struct reading {
  int id;
  double value;
};

#endif
