/* sqlite_smoke.c: SQLite, built from coroc's output of sqlite3.c, does real work
 * (tests/test_realc.py). An in-memory database: a table is created, 1,000 rows
 * are inserted through a prepared statement in a transaction, then queried back
 * (count, sums, one row by key, an ordered range, a GROUP BY), updated and
 * deleted; and two of the extensions better-sqlite3 builds in, JSON and FTS5.
 * Every expected value is worked out from the rows inserted, never copied from
 * a run. Prints each check, then OK.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sqlite3.h"

static sqlite3 *db;

static void ok(int rc, const char *what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE) {
    fprintf(stderr, "%s: %s (%d)\n", what, sqlite3_errmsg(db), rc);
    exit(1);
  }
}

static void exec(const char *sql) {
  char *err = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
    fprintf(stderr, "%s: %s\n", sql, err);
    exit(1);
  }
}

/* The first column of the one row of sql, as an integer. */
static long long scalar(const char *sql) {
  sqlite3_stmt *st;
  ok(sqlite3_prepare_v2(db, sql, -1, &st, NULL), sql);
  if (sqlite3_step(st) != SQLITE_ROW) {
    fprintf(stderr, "%s: no row\n", sql);
    exit(1);
  }
  long long v = sqlite3_column_int64(st, 0);
  ok(sqlite3_finalize(st), sql);
  return v;
}

/* The first column of the one row of sql, as text, into buf. */
static const char *text(const char *sql, char *buf, size_t size) {
  sqlite3_stmt *st;
  ok(sqlite3_prepare_v2(db, sql, -1, &st, NULL), sql);
  if (sqlite3_step(st) != SQLITE_ROW) {
    fprintf(stderr, "%s: no row\n", sql);
    exit(1);
  }
  snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 0));
  ok(sqlite3_finalize(st), sql);
  return buf;
}

static void same_text(const char *expected, const char *actual, const char *what) {
  if (strcmp(expected, actual) != 0) {
    fprintf(stderr, "%s => \"%s\", expected \"%s\"\n", what, actual, expected);
    exit(1);
  }
  printf("%s => \"%s\"\n", what, actual);
}

int main(void) {
  char buf[256];
  printf("SQLite %s\n", sqlite3_libversion());
  ASSERT(SQLITE_VERSION_NUMBER, sqlite3_libversion_number());
  ok(sqlite3_open(":memory:", &db), "open");

  exec("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, qty INTEGER, price REAL)");
  exec("CREATE INDEX item_qty ON item (qty)");
  exec("BEGIN");
  sqlite3_stmt *ins;
  ok(sqlite3_prepare_v2(db, "INSERT INTO item (id, name, qty, price) VALUES (?1, ?2, ?3, ?4)", -1, &ins,
                        NULL), "prepare insert");
  for (int i = 1; i <= 1000; i++) {
    char name[32];
    snprintf(name, sizeof name, "item-%04d", i);
    ok(sqlite3_bind_int(ins, 1, i), "bind id");
    ok(sqlite3_bind_text(ins, 2, name, -1, SQLITE_TRANSIENT), "bind name");
    ok(sqlite3_bind_int(ins, 3, i % 7), "bind qty");
    ok(sqlite3_bind_double(ins, 4, i * 0.25), "bind price");
    ok(sqlite3_step(ins), "insert");
    ok(sqlite3_reset(ins), "reset");
  }
  ok(sqlite3_finalize(ins), "finalize insert");
  exec("COMMIT");

  ASSERT(1000, scalar("SELECT count(*) FROM item"));
  ASSERT(500500, scalar("SELECT sum(id) FROM item"));
  /* qty = i % 7: 142 full weeks (0+1+...+6 = 21 each) and i = 995..1000 (1..6) */
  ASSERT(142 * 21 + 21, scalar("SELECT sum(qty) FROM item"));
  ASSERT(143, scalar("SELECT count(*) FROM item WHERE qty = 3"));   /* 3, 10, ..., 997 */
  ASSERT(500500, scalar("SELECT CAST(sum(price) * 4 AS INTEGER) FROM item"));   /* price = id / 4 */
  same_text("item-0777", text("SELECT name FROM item WHERE id = 777", buf, sizeof buf), "name of 777");
  same_text("item-0010,item-0009,item-0008",
            text("SELECT group_concat(name, ',') FROM (SELECT name FROM item WHERE id BETWEEN 8 AND 10 "
                 "ORDER BY id DESC)", buf, sizeof buf), "ordered range");

  /* read row by row, checking each column */
  sqlite3_stmt *sel;
  ok(sqlite3_prepare_v2(db, "SELECT id, name, qty, price FROM item WHERE qty = ?1 ORDER BY id", -1, &sel, NULL),
     "prepare select");
  ok(sqlite3_bind_int(sel, 1, 5), "bind qty");
  int rows = 0, bad = 0;
  while (sqlite3_step(sel) == SQLITE_ROW) {
    int id = sqlite3_column_int(sel, 0);
    char name[32];
    snprintf(name, sizeof name, "item-%04d", id);
    bad += id % 7 != 5 || strcmp(name, (const char *)sqlite3_column_text(sel, 1)) != 0 ||
           sqlite3_column_int(sel, 2) != 5 || sqlite3_column_double(sel, 3) != id * 0.25 ||
           (rows > 0 && id != 5 + 7 * rows);
    rows++;
  }
  ok(sqlite3_finalize(sel), "finalize select");
  ASSERT(143, rows);   /* 5, 12, ..., 999 */
  ASSERT(0, bad);

  ASSERT(7, scalar("SELECT count(*) FROM (SELECT qty, count(*) FROM item GROUP BY qty)"));
  exec("UPDATE item SET qty = qty + 100 WHERE id % 2 = 0");
  ASSERT(500, scalar("SELECT count(*) FROM item WHERE qty >= 100"));
  exec("DELETE FROM item WHERE id > 900");
  ASSERT(900, scalar("SELECT count(*) FROM item"));
  ASSERT(100, sqlite3_changes(db));

  /* JSON */
  same_text("[2,3]", text("SELECT json_extract('{\"a\":{\"b\":[1,[2,3]]}}', '$.a.b[1]')", buf, sizeof buf),
            "json_extract");
  ASSERT(3, scalar("SELECT json_array_length(json_group_array(id)) FROM item WHERE id <= 3"));

  /* FTS5 */
  exec("CREATE VIRTUAL TABLE doc USING fts5(body)");
  exec("INSERT INTO doc (body) VALUES ('coroutines for C'), ('the quick brown fox'), ('C in, C out')");
  ASSERT(2, scalar("SELECT count(*) FROM doc WHERE doc MATCH 'c'"));
  same_text("the quick brown fox", text("SELECT body FROM doc WHERE doc MATCH 'fox'", buf, sizeof buf),
            "fts5 match");

  ok(sqlite3_close(db), "close");
  CHECK_DONE();
  return 0;
}
