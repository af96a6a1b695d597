#!/usr/bin/env python3
"""The hand-written Python reference of WebRecord's benchmark.

    python3 Scripts/reference_import.py RESPONSE.json STORE.sqlite

Imports an App.net stream response (`{"data": [post, ...]}`, the shape of
Schemas/AppNet.json) into STORE.sqlite the way a developer writes it without a
framework: `json.load` of the whole file; one table per entity, keyed by the
entity's natural key; a to-one stored as the destination's key; then one
`INSERT ... ON CONFLICT ... DO UPDATE` per record, each post with its user, in
one transaction, in WAL mode. Running it again on the same response updates
every row in place.

The records and their keys:

    User        its "id"
    Counts      its user's id (the response nests them in the user, with no id)
    CoverImage  its user's id (likewise; WebRecord's "id" of it stays null)
    Post        its "id"; "user" is the user's id
    Source      its post's id

Dates are kept as the response's text ("2012-11-21T02:33:42Z").

It prints one line, `RESULT seconds=S records=N`: S is the time from reading
the file to the commit, N the rows the store holds afterwards. The code is
kept plain on purpose (it is the reference, not tuned).
"""

import json
import sqlite3
import sys
import time

TABLES = """
CREATE TABLE IF NOT EXISTS User (
    id TEXT PRIMARY KEY,
    name TEXT,
    avatarImagePath TEXT,
    coverImagePath TEXT
);
CREATE TABLE IF NOT EXISTS Counts (
    user TEXT PRIMARY KEY,
    followers INTEGER,
    following INTEGER,
    posts INTEGER,
    stars INTEGER
);
CREATE TABLE IF NOT EXISTS CoverImage (
    user TEXT PRIMARY KEY,
    url TEXT,
    width INTEGER,
    height INTEGER
);
CREATE TABLE IF NOT EXISTS Post (
    id TEXT PRIMARY KEY,
    date TEXT,
    text TEXT,
    thread_id TEXT,
    user TEXT
);
CREATE TABLE IF NOT EXISTS Source (
    post TEXT PRIMARY KEY,
    clientID TEXT,
    link TEXT,
    name TEXT
);
"""

UPSERT_USER = """
INSERT INTO User (id, name, avatarImagePath, coverImagePath) VALUES (?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET
    name = excluded.name,
    avatarImagePath = excluded.avatarImagePath,
    coverImagePath = excluded.coverImagePath
"""

UPSERT_COUNTS = """
INSERT INTO Counts (user, followers, following, posts, stars) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (user) DO UPDATE SET
    followers = excluded.followers,
    following = excluded.following,
    posts = excluded.posts,
    stars = excluded.stars
"""

UPSERT_COVER_IMAGE = """
INSERT INTO CoverImage (user, url, width, height) VALUES (?, ?, ?, ?)
ON CONFLICT (user) DO UPDATE SET
    url = excluded.url,
    width = excluded.width,
    height = excluded.height
"""

UPSERT_POST = """
INSERT INTO Post (id, date, text, thread_id, user) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET
    date = excluded.date,
    text = excluded.text,
    thread_id = excluded.thread_id,
    user = excluded.user
"""

UPSERT_SOURCE = """
INSERT INTO Source (post, clientID, link, name) VALUES (?, ?, ?, ?)
ON CONFLICT (post) DO UPDATE SET
    clientID = excluded.clientID,
    link = excluded.link,
    name = excluded.name
"""


def save_user(db, user):
    avatar = user.get("avatar_image") or {}
    cover = user.get("cover_image") or {}
    counts = user.get("counts") or {}
    db.execute(UPSERT_USER, (user["id"], user.get("name"), avatar.get("url"), cover.get("url")))
    if counts:
        db.execute(
            UPSERT_COUNTS,
            (
                user["id"],
                counts.get("followers", 0),
                counts.get("following", 0),
                counts.get("posts", 0),
                counts.get("stars", 0),
            ),
        )
    if cover:
        db.execute(
            UPSERT_COVER_IMAGE,
            (user["id"], cover.get("url"), cover.get("width", 0), cover.get("height", 0)),
        )


def save_post(db, post):
    user = post.get("user")
    if user:
        save_user(db, user)
    db.execute(
        UPSERT_POST,
        (
            post["id"],
            post.get("created_at"),
            post.get("text"),
            post.get("thread_id"),
            user["id"] if user else None,
        ),
    )
    source = post.get("source")
    if source:
        db.execute(
            UPSERT_SOURCE,
            (post["id"], source.get("client_id"), source.get("link"), source.get("name")),
        )


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: reference_import.py RESPONSE.json STORE.sqlite")
    response_path, store_path = sys.argv[1], sys.argv[2]

    db = sqlite3.connect(store_path)
    db.execute("PRAGMA journal_mode = WAL")
    db.executescript(TABLES)

    start = time.perf_counter()
    with open(response_path, encoding="utf-8") as file:
        response = json.load(file)
    with db:  # one transaction, committed at the end
        for post in response["data"]:
            save_post(db, post)
    seconds = time.perf_counter() - start

    records = sum(
        db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
        for table in ("User", "Counts", "CoverImage", "Post", "Source")
    )
    db.close()
    print(f"RESULT seconds={seconds:.6f} records={records}")


if __name__ == "__main__":
    main()
