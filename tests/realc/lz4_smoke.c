/* lz4_smoke.c: lz4, built from coroc's output of lz4.c, lz4hc.c, lz4frame.c,
 * xxhash.c and lz4file.c, does real work (tests/test_realc.py). One input of
 * 1 MiB, text-like and partly random, goes round trip through each API: the
 * block format (fast and high compression), the frame format with its content
 * checksum, and a stream into the file argv[1], read back with the file API.
 * Each round trip must give back the input exactly, and the input (words
 * picked at random from twelve, and some noise) must shrink. Prints each
 * check, then OK.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LZ4F_STATIC_LINKING_ONLY
#include "check.h"
#include "lz4.h"
#include "lz4file.h"
#include "lz4frame.h"
#include "lz4hc.h"
#include "xxhash.h"

#define SIZE (1 << 20)

static const char *words[] = {"coroutine", "yield", "await", "stackless", "stackful", "frame",
                              "resume", "suspend", "generator", "task", "scheduler", "channel"};

static void make_input(char *buf) {
  unsigned long x = 12345;
  size_t n = 0;
  while (n < SIZE) {
    x = x * 6364136223846793005ul + 1442695040888963407ul;
    if ((x >> 60) == 0) {   /* now and then a stretch of noise */
      for (int i = 0; i < 64 && n < SIZE; i++) {
        x = x * 6364136223846793005ul + 1442695040888963407ul;
        buf[n++] = (char)(x >> 56);
      }
    } else {
      const char *w = words[(x >> 33) % (sizeof words / sizeof *words)];
      for (size_t i = 0; w[i] && n < SIZE; i++)
        buf[n++] = w[i];
      if (n < SIZE)
        buf[n++] = (x >> 40) % 9 ? ' ' : '\n';
    }
  }
}

/* a check inside a loop: silent unless it fails */
static void must(int cond, const char *what) {
  if (!cond) {
    fprintf(stderr, "%s failed\n", what);
    exit(1);
  }
}

static void same(const char *a, const char *b, size_t n, const char *what) {
  if (memcmp(a, b, n) != 0) {
    fprintf(stderr, "%s: the round trip changed the data\n", what);
    exit(1);
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: lz4_smoke FILE\n");
    return 2;
  }
  printf("lz4 %s\n", LZ4_versionString());
  ASSERT(LZ4_VERSION_NUMBER, LZ4_versionNumber());
  char *in = malloc(SIZE), *out = malloc(SIZE), *packed = malloc(LZ4F_compressFrameBound(SIZE, NULL) + SIZE);
  if (!in || !out || !packed)
    return 1;
  make_input(in);
  unsigned hash = XXH32(in, SIZE, 0);
  ASSERT(hash, XXH32(in, SIZE, 0));

  /* the block format */
  int n = LZ4_compress_default(in, packed, SIZE, LZ4_compressBound(SIZE));
  printf("LZ4_compress_default: %d bytes into %d\n", SIZE, n);
  ASSERT(1, n > 0 && n < SIZE * 3 / 4);
  ASSERT(SIZE, LZ4_decompress_safe(packed, out, n, SIZE));
  same(in, out, SIZE, "LZ4_compress_default");
  int hc = LZ4_compress_HC(in, packed, SIZE, LZ4_compressBound(SIZE), LZ4HC_CLEVEL_MAX);
  printf("LZ4_compress_HC: %d bytes into %d\n", SIZE, hc);
  ASSERT(1, hc > 0 && hc < n);   /* HC compresses better than the fast mode */
  memset(out, 0, SIZE);
  ASSERT(SIZE, LZ4_decompress_safe(packed, out, hc, SIZE));
  same(in, out, SIZE, "LZ4_compress_HC");
  ASSERT(-1, LZ4_decompress_safe(packed, out, hc, SIZE / 2) < 0 ? -1 : 0);   /* too small a buffer */

  /* the frame format, with a checksum of the content */
  LZ4F_preferences_t prefs = LZ4F_INIT_PREFERENCES;
  prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
  prefs.frameInfo.blockSizeID = LZ4F_max64KB;
  prefs.compressionLevel = 9;
  size_t fsize = LZ4F_compressFrame(packed, LZ4F_compressFrameBound(SIZE, &prefs), in, SIZE, &prefs);
  ASSERT(0, LZ4F_isError(fsize));
  LZ4F_dctx *dctx;
  ASSERT(0, LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)));
  size_t done = 0, used = 0;
  while (used < fsize) {   /* in pieces of at most 1000 bytes, as from a stream */
    size_t src = fsize - used < 1000 ? fsize - used : 1000, dst = SIZE - done;
    size_t r = LZ4F_decompress(dctx, out + done, &dst, packed + used, &src, NULL);
    must(!LZ4F_isError(r), "LZ4F_decompress");
    done += dst;
    used += src;
  }
  LZ4F_freeDecompressionContext(dctx);
  ASSERT(SIZE, done);
  same(in, out, SIZE, "LZ4F_compressFrame");
  packed[fsize / 2] ^= 0x40;   /* a damaged frame is caught (by the block or content checksum) */
  ASSERT(0, LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)));
  size_t dst = SIZE, src = fsize, r = LZ4F_decompress(dctx, out, &dst, packed, &src, NULL);
  LZ4F_freeDecompressionContext(dctx);
  ASSERT(1, LZ4F_isError(r) || XXH32(out, SIZE, 0) != hash);

  /* a stream: compressed in pieces into the file argv[1], read back in pieces
     by lz4file.c's LZ4F_read (its LZ4F_write is left out: this copy sizes its
     buffer by LZ4F_compressBound(0, prefs), too small for a whole block) */
  FILE *f = fopen(argv[1], "wb");
  LZ4F_cctx *cctx;
  ASSERT(0, f == NULL || LZ4F_isError(LZ4F_createCompressionContext(&cctx, LZ4F_VERSION)));
  size_t cap = LZ4F_compressBound(3000, &prefs), len = LZ4F_compressBegin(cctx, packed, cap, &prefs);
  ASSERT(0, LZ4F_isError(len));
  long written = (long)fwrite(packed, 1, len, f);
  for (size_t at = 0; at < SIZE; at += 3000) {
    len = LZ4F_compressUpdate(cctx, packed, cap, in + at, SIZE - at < 3000 ? SIZE - at : 3000, NULL);
    must(!LZ4F_isError(len), "LZ4F_compressUpdate");
    written += (long)fwrite(packed, 1, len, f);
  }
  len = LZ4F_compressEnd(cctx, packed, cap, NULL);
  ASSERT(0, LZ4F_isError(len));
  written += (long)fwrite(packed, 1, len, f);
  LZ4F_freeCompressionContext(cctx);
  ASSERT(0, fclose(f));
  ASSERT(1, written > 0 && written < SIZE * 3 / 4);
  f = fopen(argv[1], "rb");
  LZ4_readFile_t *rd;
  ASSERT(0, f == NULL || LZ4F_isError(LZ4F_readOpen(&rd, f)));
  memset(out, 0, SIZE);
  done = 0;
  for (;;) {
    size_t got = LZ4F_read(rd, out + done, SIZE - done < 5000 ? SIZE - done : 5000);
    must(!LZ4F_isError(got), "LZ4F_read");
    if (got == 0)
      break;
    done += got;
  }
  LZ4F_readClose(rd);
  fclose(f);
  ASSERT(SIZE, done);
  ASSERT(hash, XXH32(out, SIZE, 0));
  same(in, out, SIZE, "LZ4F_write");

  free(in);
  free(out);
  free(packed);
  CHECK_DONE();
  return 0;
}
