#!/usr/bin/env python3
"""WebRecord's benchmark peer: dlt (data load tool), merge on the primary key into SQLite.

    python3 Scripts/peers/dlt_import.py RESPONSE.json STORE.sqlite

Imports an App.net stream response (`{"data": [post, ...]}`) with dlt
(https://dlthub.com), the plain, untuned use of the library as its
documentation shows it: `json.load` of the whole file, the records of each
entity gathered as dictionaries (appnet_rows.py), one `dlt.resource` per
entity with `write_disposition="merge"` and the entity's natural key as
`primary_key` (dlt_merge.py, shared with dlt_postgres_import.py), and one
`pipeline.run` into dlt's SQLite destination, the
SQLAlchemy destination (`pip install "dlt[sqlalchemy]"`) with the credentials
`sqlite:///STORE.sqlite`. dlt extracts the rows to files, normalizes them, and
loads them with its `delete-insert` merge: into a staging dataset first, then,
in one transaction, deleting the rows whose keys it loads and inserting the
new ones (the last of the rows with the same key wins).

What it writes, in STORE.sqlite (the dataset `main`, the store file itself;
any other dataset name would be a second database file beside it), with dlt's
default naming convention (snake_case):

    user         id, name, avatar_image_path, cover_image_path  (key: id)
    counts       user, followers, following, posts, stars       (key: user)
    cover_image  user, url, width, height                       (key: user)
    post         id, date, text, thread_id, user                (key: id)
    source       post, client_id, link, name                    (key: post)

that is, the records of Scripts/reference_import.py, each table with two
columns of dlt's own (`_dlt_load_id`, `_dlt_id`), beside dlt's tables
`_dlt_loads`, `_dlt_version` and `_dlt_pipeline_state`, and the staging
dataset's file beside the store (`store__main_staging.sqlite` for
`store.sqlite`). `date` is a timestamp column (dlt detects the ISO 8601 text
and stores `2012-11-21 02:33:42.000000`, UTC). The tables have no PRIMARY KEY
constraint (the destination's `create_primary_keys` is off by default, and
turning it on makes the load fail on the users repeated across posts): the
merge keeps one row per key itself, and on a store that already holds the
records its delete of the rows being replaced scans the table for each. dlt keeps its working files (the pipeline's state,
the load packages) in a folder beside the store, STORE.dlt, rather than in
~/.dlt, so a store removed with its folder starts over.

It prints one line, `RESULT seconds=S records=N`: S is the time from reading
the file to the end of the load, N the rows the five tables hold afterwards.
"""

import os
import sqlite3
import sys

# One load job at a time: SQLite has one writer, and dlt's parallel load jobs of a merge into
# it fail now and then with "database is locked" (seen in the benchmark's runs). dlt's own
# setting for it, not a speed-up: with it the re-import took about the same time (34 s and 32 s).
os.environ.setdefault("LOAD__WORKERS", "1")

from dlt_merge import load, table_names  # noqa: E402 (after the setting above; turns telemetry off)

import dlt  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: dlt_import.py RESPONSE.json STORE.sqlite")
    response_path, store_path = sys.argv[1], os.path.abspath(sys.argv[2])

    pipeline = dlt.pipeline(
        pipeline_name="webrecord_peer",
        destination=dlt.destinations.sqlalchemy(f"sqlite:///{store_path}"),
        dataset_name="main",
        pipelines_dir=store_path + ".dlt",
    )
    seconds = load(pipeline, response_path)

    db = sqlite3.connect(store_path)
    records = sum(db.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0] for table in table_names(pipeline))
    db.close()
    print(f"RESULT seconds={seconds:.6f} records={records}")


if __name__ == "__main__":
    main()
