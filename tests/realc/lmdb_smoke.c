/* lmdb_smoke.c: LMDB, built from coroc's output of mdb.c and midl.c, does real
 * work (tests/test_realc.py). In the directory argv[1]: an environment is
 * made, 2,000 records are put in one write transaction and committed; the
 * environment is closed and opened again, and a read transaction gets every
 * record back by key and walks them in order with a cursor; a second write
 * transaction deletes some and one that is aborted changes nothing.
 * Prints each check, then OK.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lmdb.h"

#define N 2000

static void ok(int rc, const char *what) {
  if (rc != MDB_SUCCESS) {
    fprintf(stderr, "%s: %s\n", what, mdb_strerror(rc));
    exit(1);
  }
}

static MDB_env *open_env(const char *dir) {
  MDB_env *env;
  ok(mdb_env_create(&env), "mdb_env_create");
  ok(mdb_env_set_mapsize(env, 64u << 20), "mdb_env_set_mapsize");
  ok(mdb_env_open(env, dir, MDB_NOSYNC, 0644), "mdb_env_open");
  return env;
}

static void key_of(int i, char *buf, size_t size) { snprintf(buf, size, "key-%05d", i); }
static void value_of(int i, char *buf, size_t size) {
  snprintf(buf, size, "value %d squared is %ld", i, (long)i * i);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: lmdb_smoke DIR\n");
    return 2;
  }
  int major, minor, patch;
  printf("%s\n", mdb_version(&major, &minor, &patch));
  ASSERT(MDB_VERSION_FULL, MDB_VERINT(major, minor, patch));

  MDB_env *env = open_env(argv[1]);
  MDB_txn *txn;
  MDB_dbi dbi;
  char kbuf[32], vbuf[64];
  ok(mdb_txn_begin(env, NULL, 0, &txn), "begin write");
  ok(mdb_dbi_open(txn, NULL, 0, &dbi), "mdb_dbi_open");
  for (int i = N - 1; i >= 0; i--) {   /* backwards: the B-tree must sort them */
    key_of(i, kbuf, sizeof kbuf);
    value_of(i, vbuf, sizeof vbuf);
    MDB_val k = {strlen(kbuf), kbuf}, v = {strlen(vbuf) + 1, vbuf};
    ok(mdb_put(txn, dbi, &k, &v, MDB_NOOVERWRITE), "mdb_put");
  }
  MDB_val k = {9, "key-00042"}, v = {3, "new"};
  ASSERT(MDB_KEYEXIST, mdb_put(txn, dbi, &k, &v, MDB_NOOVERWRITE));
  ok(mdb_txn_commit(txn), "commit");
  mdb_env_close(env);

  env = open_env(argv[1]);
  MDB_stat st;
  ok(mdb_env_stat(env, &st), "mdb_env_stat");
  ASSERT(N, st.ms_entries);
  ok(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn), "begin read");
  ok(mdb_dbi_open(txn, NULL, 0, &dbi), "mdb_dbi_open");
  int bad = 0;
  for (int i = 0; i < N; i++) {
    key_of(i, kbuf, sizeof kbuf);
    value_of(i, vbuf, sizeof vbuf);
    MDB_val key = {strlen(kbuf), kbuf}, data;
    ok(mdb_get(txn, dbi, &key, &data), "mdb_get");
    bad += data.mv_size != strlen(vbuf) + 1 || memcmp(data.mv_data, vbuf, data.mv_size) != 0;
  }
  ASSERT(0, bad);
  MDB_cursor *cur;
  ok(mdb_cursor_open(txn, dbi, &cur), "mdb_cursor_open");
  MDB_val key, data;
  int n = 0;
  while (mdb_cursor_get(cur, &key, &data, n == 0 ? MDB_FIRST : MDB_NEXT) == MDB_SUCCESS) {
    key_of(n, kbuf, sizeof kbuf);
    bad += key.mv_size != strlen(kbuf) || memcmp(key.mv_data, kbuf, key.mv_size) != 0;
    n++;
  }
  ASSERT(N, n);
  ASSERT(0, bad);
  key = (MDB_val){9, "key-01500"};
  ok(mdb_cursor_get(cur, &key, &data, MDB_SET_RANGE), "MDB_SET_RANGE");
  ASSERT(0, strcmp(data.mv_data, "value 1500 squared is 2250000"));
  mdb_cursor_close(cur);
  mdb_txn_abort(txn);

  /* delete every third record */
  ok(mdb_txn_begin(env, NULL, 0, &txn), "begin write");
  int deleted = 0;
  for (int i = 0; i < N; i += 3) {
    key_of(i, kbuf, sizeof kbuf);
    MDB_val dk = {strlen(kbuf), kbuf};
    ok(mdb_del(txn, dbi, &dk, NULL), "mdb_del");
    deleted++;
  }
  ok(mdb_txn_commit(txn), "commit");
  /* an aborted transaction leaves no trace */
  ok(mdb_txn_begin(env, NULL, 0, &txn), "begin write");
  MDB_val dk = {9, "key-00001"};
  ok(mdb_del(txn, dbi, &dk, NULL), "mdb_del");
  mdb_txn_abort(txn);
  ok(mdb_env_stat(env, &st), "mdb_env_stat");
  ASSERT(N - (N + 2) / 3, st.ms_entries);
  ASSERT(N - deleted, st.ms_entries);
  ok(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn), "begin read");
  key = (MDB_val){9, "key-00003"};
  ASSERT(MDB_NOTFOUND, mdb_get(txn, dbi, &key, &data));
  key = (MDB_val){9, "key-00001"};
  ok(mdb_get(txn, dbi, &key, &data), "mdb_get");
  ASSERT(0, strcmp(data.mv_data, "value 1 squared is 1"));
  mdb_txn_abort(txn);
  mdb_env_close(env);
  CHECK_DONE();
  return 0;
}
