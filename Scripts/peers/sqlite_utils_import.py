#!/usr/bin/env python3
"""WebRecord's benchmark peer: sqlite-utils `upsert_all`.

    python3 Scripts/peers/sqlite_utils_import.py RESPONSE.json STORE.sqlite

Imports an App.net stream response (`{"data": [post, ...]}`) with sqlite-utils
(https://sqlite-utils.datasette.io), the plain, untuned use of the library as
its documentation shows it: `json.load` of the whole file, the records of each
entity gathered as dictionaries (appnet_rows.py), then one `table.upsert_all(rows, pk=...)` per
table, which creates the table from the rows on the first run and inserts or
updates by the primary key. The store is in WAL mode (`db.enable_wal()`), as
the hand-written reference's is; sqlite-utils commits each batch of rows it
writes, as it does by default.

It writes the same tables, columns, keys and values as
Scripts/reference_import.py:

    User        id, name, avatarImagePath, coverImagePath   (key: id)
    Counts      user, followers, following, posts, stars    (key: the user's id)
    CoverImage  user, url, width, height                     (key: the user's id)
    Post        id, date, text, thread_id, user              (key: id)
    Source      post, clientID, link, name                   (key: the post's id)

Each user is upserted with each of its posts, as in the reference. It prints
one line, `RESULT seconds=S records=N`: S is the time from reading the file to
the last commit, N the rows the five tables hold afterwards.
"""

import json
import sys
import time

import sqlite_utils

from appnet_rows import KEYS, rows_of


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: sqlite_utils_import.py RESPONSE.json STORE.sqlite")
    response_path, store_path = sys.argv[1], sys.argv[2]

    db = sqlite_utils.Database(store_path)
    db.enable_wal()

    start = time.perf_counter()
    with open(response_path, encoding="utf-8") as file:
        response = json.load(file)
    for table, rows in rows_of(response).items():
        db[table].upsert_all(rows, pk=KEYS[table])
    seconds = time.perf_counter() - start

    records = sum(db[table].count for table in KEYS)
    db.close()
    print(f"RESULT seconds={seconds:.6f} records={records}")


if __name__ == "__main__":
    main()
