#!/usr/bin/env python3
"""WebRecord's benchmark peer: dlt (data load tool), merge on the primary key into PostgreSQL.

    python3 Scripts/peers/dlt_postgres_import.py RESPONSE.json DATABASE_URL [WORKDIR]

Imports an App.net stream response (`{"data": [post, ...]}`) with dlt
(https://dlthub.com) into a PostgreSQL database, the plain, untuned use of the
library as its documentation shows it, and the same pipeline as
dlt_import.py's into SQLite (dlt_merge.py): `json.load` of the whole file, the
records of each entity gathered as dictionaries (appnet_rows.py), one
`dlt.resource` per entity with `write_disposition="merge"` and the entity's
natural key as `primary_key`, and one `pipeline.run`, here into dlt's
`postgres` destination (psycopg2; `pip install "dlt[postgres]"`), with dlt's
default settings (its parallel load jobs included). dlt extracts the rows to
files, normalizes them, copies them into a staging schema, then, in one
transaction, deletes the rows whose keys it loads and inserts the new ones.

DATABASE_URL is a libpq connection URL, as `webrecord populate --db` takes it:
`postgresql://USER[:PASSWORD]@HOST[:PORT]/DBNAME`, or with the host in the
query, as a Unix socket's directory is given: `postgresql://USER@/DBNAME?host=/run/postgresql`.
Without a password in it, `PGPASSWORD` is used, else none (a server that trusts
the connection asks for none).

What it writes, in the schema `appnet` of that database, with dlt's default
naming convention (snake_case):

    user         id, name, avatar_image_path, cover_image_path  (key: id)
    counts       user, followers, following, posts, stars       (key: user)
    cover_image  user, url, width, height                       (key: user)
    post         id, date, text, thread_id, user                (key: id)
    source       post, client_id, link, name                    (key: post)

that is, the records of Scripts/reference_import.py, each table with two
columns of dlt's own (`_dlt_load_id`, `_dlt_id`, the latter with a unique
index), beside dlt's tables `_dlt_loads`, `_dlt_version` and
`_dlt_pipeline_state`, and the staging schema `appnet_staging`. The key
columns are `NOT NULL` but have no index: the merge keeps one row per key
itself. `date` is `timestamp with time zone`. dlt keeps its working files (the
pipeline's state, the load packages) in WORKDIR, or in a temporary folder
removed afterwards.

It prints one line, `RESULT seconds=S records=N`: S is the time from reading
the file to the end of the load, N the rows the five tables hold afterwards.
"""

import os
import sys
import tempfile
import urllib.parse

from dlt_merge import load, table_names  # turns dlt's telemetry off before dlt is imported

import dlt

DATASET = "appnet"


def credentials(url):
    """dlt's PostgreSQL credentials for a libpq connection URL.

    dlt reads a URL of its own shape and needs a host and a password: the host is
    taken from the URL's host or its `host` parameter, a socket directory
    percent-encoded (libpq reads `%2Frun%2Fpostgresql` as that directory), and
    the password from the URL or `PGPASSWORD`, else empty.
    """
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres"):
        sys.exit(f"dlt_postgres_import.py: not a postgresql:// URL: {url}")
    query = dict(urllib.parse.parse_qsl(parts.query))
    userinfo, _, hostport = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    host, port = hostport, ""
    if ":" in hostport and not hostport.endswith("]"):
        host, _, port = hostport.rpartition(":")
    unquote = urllib.parse.unquote
    host = query.pop("host", None) or unquote(host) or os.environ.get("PGHOST", "localhost")
    return {
        "database": query.pop("dbname", None) or unquote(parts.path.lstrip("/")),
        "username": query.pop("user", None) or unquote(user),
        "password": query.pop("password", None) or unquote(password) or os.environ.get("PGPASSWORD", ""),
        "host": urllib.parse.quote(host, safe="") if host.startswith("/") else host,
        "port": int(query.pop("port", None) or port or 5432),
        "query": query,
    }


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: dlt_postgres_import.py RESPONSE.json DATABASE_URL [WORKDIR]")
    response_path, url = sys.argv[1], sys.argv[2]

    with tempfile.TemporaryDirectory(prefix="dlt-postgres-") as temporary:
        pipeline = dlt.pipeline(
            pipeline_name="webrecord_peer",
            destination=dlt.destinations.postgres(credentials(url)),
            dataset_name=DATASET,
            pipelines_dir=sys.argv[3] if len(sys.argv) == 4 else temporary,
        )
        seconds = load(pipeline, response_path)

        with pipeline.sql_client() as client:
            records = sum(
                client.execute_sql(f"SELECT COUNT(*) FROM {client.make_qualified_table_name(table)}")[0][0]
                for table in table_names(pipeline)
            )
    print(f"RESULT seconds={seconds:.6f} records={records}")


if __name__ == "__main__":
    main()
