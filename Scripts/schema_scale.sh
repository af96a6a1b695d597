#!/bin/bash
# Times schema loading and the first population against SQLite's own table creation, for
# generated schemas of N entities (Docs/Performance.md, "Schemas of thousands of entities").
#
# usage: Scripts/schema_scale.sh WEBRECORD_BINARY N...
#   e.g. Scripts/schema_scale.sh .build/release/webrecord 8000 16000
set -euo pipefail
webrecord=$(realpath "$1")
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
echo '{"data": [{"id": "a", "a0": "x", "n0": 1}]}' >response.json
for n in "$@"; do
  # Every fourth entity a root keyed by id, with a to-one to the previous root and its inverse;
  # the other three its sub-entities.
  python3 - "$n" "schema$n.json" <<'PY'
import json, sys
n, entities, roots = int(sys.argv[1]), {}, []
for i in range(n):
    name = f"E{i}"
    if i % 4 == 0:
        entity = {"primaryKey": "id", "keyPathForResponseObject": "data", "relationships": {},
                  "attributes": {"id": {"type": "string"}, f"a{i}": {"type": "string"}, f"n{i}": {"type": "integer"}}}
        if roots:
            entity["relationships"][f"prev{i}"] = {"destination": roots[-1], "inverse": f"next{i}"}
            entities[roots[-1]]["relationships"][f"next{i}"] = {"destination": name, "toMany": True, "inverse": f"prev{i}"}
        roots.append(name)
        entities[name] = entity
    else:
        entities[name] = {"parent": roots[-1], "attributes": {f"b{i}": {"type": "string"}}}
json.dump({"version": 1, "entities": entities}, open(sys.argv[2], "w"))
PY
  echo "== $n entities"
  /usr/bin/time -f "lint: %U s user, %S s system, %e s wall" "$webrecord" lint --quiet "schema$n.json"
  /usr/bin/time -f "first populate: %U s user, %S s system, %e s wall" \
    "$webrecord" populate --schema "schema$n.json" --db "store$n.sqlite" --entity E0 response.json >/dev/null
  { echo "BEGIN;"; sqlite3 "store$n.sqlite" .schema; echo "COMMIT;"; } >"create$n.sql"
  /usr/bin/time -f "sqlite3, the same CREATE statements: %U s user, %S s system, %e s wall" \
    sqlite3 "sqlite$n.sqlite" <"create$n.sql"
done
