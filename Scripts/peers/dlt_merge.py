"""The load WebRecord's dlt peers share, whatever their destination.

Scripts/peers/dlt_import.py (SQLite) and Scripts/peers/dlt_postgres_import.py
(PostgreSQL) run the same pipeline on an App.net stream response: `json.load`
of the whole file, the records of each entity gathered as dictionaries
(appnet_rows.py), one `dlt.resource` per entity with
`write_disposition="merge"` and the entity's natural key as `primary_key`, and
one `pipeline.run`. Only the destination differs.

dlt sends anonymous usage telemetry over the network by default; importing
this module turns it off (unless the environment says otherwise), so that the
time is the import's alone (`dlt telemetry disable` does the same for every
pipeline of the user).
"""

import json
import os
import time

os.environ.setdefault("RUNTIME__DLTHUB_TELEMETRY", "false")

import dlt  # noqa: E402 (after the setting above)

from appnet_rows import KEYS, rows_of  # noqa: E402


def load(pipeline, response_path):
    """Loads the response's records into `pipeline`'s destination; returns the seconds it took,
    from reading the file to the end of the load."""
    start = time.perf_counter()
    with open(response_path, encoding="utf-8") as file:
        response = json.load(file)
    resources = [
        dlt.resource(rows, name=table, write_disposition="merge", primary_key=KEYS[table])
        for table, rows in rows_of(response).items()
    ]
    pipeline.run(resources)
    return time.perf_counter() - start


def table_names(pipeline):
    """The five tables under the names dlt gives them (its naming convention: snake_case)."""
    naming = pipeline.default_schema.naming
    return [naming.normalize_table_identifier(table) for table in KEYS]
