#!/usr/bin/env python3
"""SQLite's own share of a WebRecord import, under the store's layout and alternatives to it.

    python3 Scripts/layout_floor.py STORE.sqlite [REPEAT]

STORE.sqlite is an App.net store that `webrecord populate` made (Schemas/AppNet.json). Each
variant creates its tables in a fresh file, with the writer's settings (WAL, synchronous=NORMAL,
foreign_keys=ON, temp_store=MEMORY), and copies every row of STORE.sqlite into them in `_id`
order (the order the population inserted them), in one transaction, with `INSERT ... SELECT`:
the B-tree, index, foreign-key and commit work of the import, with no JSON, no Swift and no
binding. It prints the median and best of REPEAT runs (default 5) of each variant, then the
copy of each table in the store's layout.

The variants:

    current layout                         Docs/StorageLayout.md
    owner and integer keys as the rowid    a Counts or Source row takes its owner's _id, and a
                                           CoverImage's integer id is its _id: no unique index
                                           on Counts.user, Source.post or CoverImage.id
    natural keys, WITHOUT ROWID (no _id)   the hand-written reference's layout: each table keyed
                                           by its natural key, to-ones holding the destination's key
    current, foreign-key indexes after     the two foreign-key indexes built after the rows
    current, 64 MB page cache              PRAGMA cache_size = -65536 (the default is 2 MB)
    current, no foreign-key checks         PRAGMA foreign_keys = OFF
"""
import os
import sqlite3
import statistics
import sys
import time


CURRENT = """
CREATE TABLE "Post" ("_id" INTEGER PRIMARY KEY, "_entity" TEXT NOT NULL, "id" TEXT, "date" TEXT, "text" TEXT, "thread_id" TEXT, "user" INTEGER REFERENCES "User"("_id") ON DELETE SET NULL);
CREATE UNIQUE INDEX "_pk_Post" ON "Post"("id");
CREATE INDEX "_index_Post_user" ON "Post"("user");
CREATE TABLE "User" ("_id" INTEGER PRIMARY KEY, "_entity" TEXT NOT NULL, "id" TEXT, "name" TEXT, "avatarImagePath" TEXT, "coverImagePath" TEXT);
CREATE UNIQUE INDEX "_pk_User" ON "User"("id");
CREATE TABLE "Counts" ("_id" INTEGER PRIMARY KEY, "_entity" TEXT NOT NULL, "followers" INTEGER, "following" INTEGER, "posts" INTEGER, "stars" INTEGER, "user" INTEGER REFERENCES "User"("_id") ON DELETE SET NULL);
CREATE UNIQUE INDEX "_pk_Counts" ON "Counts"("user");
CREATE TABLE "Source" ("_id" INTEGER PRIMARY KEY, "_entity" TEXT NOT NULL, "clientID" TEXT, "link" TEXT, "name" TEXT, "post" INTEGER REFERENCES "Post"("_id") ON DELETE SET NULL);
CREATE UNIQUE INDEX "_pk_Source" ON "Source"("post");
CREATE TABLE "CoverImage" ("_id" INTEGER PRIMARY KEY, "_entity" TEXT NOT NULL, "id" INTEGER, "url" TEXT, "width" INTEGER, "height" INTEGER, "user" INTEGER REFERENCES "User"("_id") ON DELETE SET NULL);
CREATE UNIQUE INDEX "_pk_CoverImage" ON "CoverImage"("id");
CREATE INDEX "_index_CoverImage_user" ON "CoverImage"("user");
"""

# Owner-identified rows take their owner's _id, and an integer key is the rowid: no unique index
# on Counts.user, Source.post or CoverImage.id.
ROWID_KEYS = CURRENT.replace('CREATE UNIQUE INDEX "_pk_Counts" ON "Counts"("user");', "") \
    .replace('CREATE UNIQUE INDEX "_pk_Source" ON "Source"("post");', "") \
    .replace('CREATE UNIQUE INDEX "_pk_CoverImage" ON "CoverImage"("id");', "")

# No _id at all: the natural key is the primary key of a WITHOUT ROWID table, and to-ones hold
# the destination's key (the hand-written reference's layout).
NATURAL = """
CREATE TABLE "Post" ("id" TEXT PRIMARY KEY, "_entity" TEXT NOT NULL, "date" TEXT, "text" TEXT, "thread_id" TEXT, "user" TEXT REFERENCES "User"("id") ON DELETE SET NULL) WITHOUT ROWID;
CREATE INDEX "_index_Post_user" ON "Post"("user");
CREATE TABLE "User" ("id" TEXT PRIMARY KEY, "_entity" TEXT NOT NULL, "name" TEXT, "avatarImagePath" TEXT, "coverImagePath" TEXT) WITHOUT ROWID;
CREATE TABLE "Counts" ("user" TEXT PRIMARY KEY REFERENCES "User"("id") ON DELETE SET NULL, "_entity" TEXT NOT NULL, "followers" INTEGER, "following" INTEGER, "posts" INTEGER, "stars" INTEGER) WITHOUT ROWID;
CREATE TABLE "Source" ("post" TEXT PRIMARY KEY REFERENCES "Post"("id") ON DELETE SET NULL, "_entity" TEXT NOT NULL, "clientID" TEXT, "link" TEXT, "name" TEXT) WITHOUT ROWID;
CREATE TABLE "CoverImage" ("id" INTEGER PRIMARY KEY, "_entity" TEXT NOT NULL, "url" TEXT, "width" INTEGER, "height" INTEGER, "user" TEXT REFERENCES "User"("id") ON DELETE SET NULL);
CREATE INDEX "_index_CoverImage_user" ON "CoverImage"("user");
"""

COPY_CURRENT = [
    'INSERT INTO "User" SELECT * FROM src."User" ORDER BY "_id"',
    'INSERT INTO "Counts" SELECT * FROM src."Counts" ORDER BY "_id"',
    'INSERT INTO "CoverImage" SELECT * FROM src."CoverImage" ORDER BY "_id"',
    'INSERT INTO "Post" SELECT * FROM src."Post" ORDER BY "_id"',
    'INSERT INTO "Source" SELECT * FROM src."Source" ORDER BY "_id"',
]
COPY_ROWID_KEYS = [
    COPY_CURRENT[0],
    'INSERT INTO "Counts" SELECT "user", "_entity", "followers", "following", "posts", "stars", "user" FROM src."Counts" ORDER BY "_id"',
    'INSERT INTO "CoverImage" SELECT "id", "_entity", "id", "url", "width", "height", "user" FROM src."CoverImage" ORDER BY "_id"',
    COPY_CURRENT[3],
    'INSERT INTO "Source" SELECT "post", "_entity", "clientID", "link", "name", "post" FROM src."Source" ORDER BY "_id"',
]
COPY_NATURAL = [
    'INSERT INTO "User" SELECT "id", "_entity", "name", "avatarImagePath", "coverImagePath" FROM src."User" ORDER BY "_id"',
    'INSERT INTO "Counts" SELECT u."id", c."_entity", "followers", "following", "posts", "stars" FROM src."Counts" c JOIN src."User" u ON u."_id" = c."user" ORDER BY c."_id"',
    'INSERT INTO "CoverImage" SELECT c."id", c."_entity", "url", "width", "height", u."id" FROM src."CoverImage" c JOIN src."User" u ON u."_id" = c."user" ORDER BY c."_id"',
    'INSERT INTO "Post" SELECT p."id", p."_entity", "date", "text", "thread_id", u."id" FROM src."Post" p JOIN src."User" u ON u."_id" = p."user" ORDER BY p."_id"',
    'INSERT INTO "Source" SELECT p."id", s."_entity", "clientID", "link", s."name" FROM src."Source" s JOIN src."Post" p ON p."_id" = s."post" ORDER BY s."_id"',
]


def remove(path):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)


def fresh_store(path, ddl, pragmas=()):
    """A new file with the writer's settings and `ddl`'s tables, the source attached and read once
    (so that the copy does not time the first read of its file)."""
    remove(path)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    for pragma in ("PRAGMA synchronous = NORMAL", "PRAGMA foreign_keys = ON", "PRAGMA temp_store = MEMORY") + tuple(pragmas):
        db.execute(pragma)
    db.executescript(ddl)
    db.execute("ATTACH ? AS src", (SRC,))
    for table in ("Post", "User", "Counts", "Source", "CoverImage"):
        db.execute(f'SELECT count(*), sum(length("_entity")) FROM src."{table}"').fetchall()
    return db


def run(name, ddl, copies, pragmas=(), late_indexes=None):
    path = SRC + ".layout-floor.sqlite"
    times = []
    for _ in range(REPEAT):
        db = fresh_store(path, ddl, pragmas)
        start = time.perf_counter()
        db.execute("BEGIN")
        for sql in copies:
            db.execute(sql)
        if late_indexes:
            for statement in late_indexes.strip().split(";"):
                if statement.strip():
                    db.execute(statement)
        db.execute("COMMIT")
        times.append(time.perf_counter() - start)
        db.close()
    remove(path)
    rows = sum(sqlite3.connect(SRC).execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]
               for t in ("Post", "User", "Counts", "Source", "CoverImage"))
    print(f"{name:48s} rows={rows} median={statistics.median(times):.4f}s best={min(times):.4f}s")


def per_table(repeat):
    """Each table's copy, and the commit, in the store's layout."""
    path = SRC + ".layout-floor.sqlite"
    times = {}
    for _ in range(repeat):
        db = fresh_store(path, CURRENT)
        db.execute("BEGIN")
        for sql in COPY_CURRENT:
            start = time.perf_counter()
            db.execute(sql)
            times.setdefault(sql.split('"')[1], []).append(time.perf_counter() - start)
        start = time.perf_counter()
        db.execute("COMMIT")
        times.setdefault("COMMIT", []).append(time.perf_counter() - start)
        db.close()
    remove(path)
    for name, values in times.items():
        print(f"  {name:12s} median={statistics.median(values):.4f}s")


if __name__ == "__main__":
    SRC = sys.argv[1]
    REPEAT = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    LATE = '\nCREATE INDEX "_index_Post_user" ON "Post"("user");\nCREATE INDEX "_index_CoverImage_user" ON "CoverImage"("user");\n'
    run("current layout", CURRENT, COPY_CURRENT)
    run("owner and integer keys as the rowid", ROWID_KEYS, COPY_ROWID_KEYS)
    run("natural keys, WITHOUT ROWID (no _id)", NATURAL, COPY_NATURAL)
    run("current, foreign-key indexes built after", CURRENT.replace('CREATE INDEX "_index_Post_user" ON "Post"("user");', "")
        .replace('CREATE INDEX "_index_CoverImage_user" ON "CoverImage"("user");', ""), COPY_CURRENT, late_indexes=LATE)
    run("current, 64 MB page cache", CURRENT, COPY_CURRENT, pragmas=("PRAGMA cache_size = -65536",))
    run("current, no foreign-key checks", CURRENT, COPY_CURRENT, pragmas=("PRAGMA foreign_keys = OFF",))
    print("each table in the store's layout:")
    per_table(REPEAT)
