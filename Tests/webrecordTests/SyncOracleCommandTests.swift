import Foundation
import TestSupport
import Testing

/// `webrecord populate --paginate` against a loopback server (python3's `http.server`) that holds
/// a dataset of posts, each with a nested user and a list of nested tags, pages it in four
/// styles (a next URL with a total, a `Link` header, a page number, an offset with a total) and
/// changes it between runs. After each run every entity's records (`webrecord export`) are
/// compared with a model of what the documented semantics say the store must hold, and the
/// `--json` summary's counts with what that run changed:
///
/// - a record's attributes are the last values served, an absent `score` keeps the stored one
///   (DESIGN §3.9), a `null` user clears the to-one (§3.11), a tag list replaces the stored one
///   (`merge` `replace`, §3.11);
/// - posts the server no longer holds stay, unless `--delete-orphans` is given and paging
///   ended at the server's stated end (`noNextPage`, `emptyPage`; CLI.md, "Paging");
/// - each page is its own transaction and counts as its own response: a record the page names
///   is `inserted`, `updated` (its row or a list it gives changed) or `unchanged`; a user or
///   tag counts by its own values only (Population.md, "Unchanged rows"); orphans count as
///   `deleted` (CLI.md, "The summary").
///
/// A second set of runs has the server misbehave within one run: the list changes between two
/// pages, a page repeats or skips records, the last page is empty, a page's body is cut short
/// or malformed, or a page is an error envelope. Each must end as the docs say (`listMoved`,
/// `repeatedPage`, exit 1 naming the problem), keep the pages it saved and delete no orphan.
@Suite(.enabled(if: ChildProcess.hasPythonSQLite, "needs python3 with sqlite3"))
struct SyncOracleCommandTests {
    /// Runs the harness in a directory of its own; it prints a `MISMATCH` line per difference
    /// and exits 1 when there is any.
    func harness(_ mode: String, _ arguments: [String]) async throws -> ChildProcess.Result {
        let directory = try TemporaryDirectory()
        return try await ChildProcess.python(
            Self.script, [try CLI.executable().path, directory.url.path, mode] + arguments
        ).wait(timeout: 600)
    }

    func mismatches(_ result: ChildProcess.Result) -> [String] {
        result.stdout.split(separator: "\n").filter { $0.hasPrefix("MISMATCH") || $0.hasPrefix("  ") }.map(
            String.init)
    }

    @Test(arguments: ["1,2,3", "4,5,6"])
    func seededMutationSequencesLeaveTheStoreAsTheServerHoldsIt(seeds: String) async throws {
        let result = try await harness("oracle", [seeds, "12"])
        #expect(mismatches(result) == [], "\(result)")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasSuffix("problems: 0\n"), "\(result)")
    }

    @Test(arguments: [
        "delete_between_pages_with_total", "delete_between_pages_offset", "insert_between_pages_page",
        "insert_between_pages_next_total", "insert_between_pages_offset", "update_between_pages",
        "delete_between_pages_link", "repeated_page", "partly_repeated_page_link", "skipped_item_with_total",
        "empty_last_page_next", "cut_short_page1", "cut_short_page2", "malformed_page2", "error_envelope_page2",
    ])
    func aServerThatMisbehavesWithinARunGetsTheDocumentedEnd(scenario: String) async throws {
        let result = try await harness("scenario", [scenario])
        #expect(mismatches(result) == [], "\(result)")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasSuffix("problems: 0\n"), "\(result)")
    }

    /// The loopback server, the model of the store and the runs, in python3.
    static let script = #"""
        import json, os, random, sqlite3, subprocess, sys, threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from urllib.parse import urlparse, parse_qs

        EXE, WORK, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
        ARGS = sys.argv[4:]
        PAGE = 3
        SCHEMA = {
            "version": 1,
            "entities": {
                "Post": {
                    "primaryKey": "id", "keyPathForResponseObject": "data",
                    "attributes": {"id": {"type": "integer"}, "title": {"type": "string"},
                                   "score": {"type": "integer", "optional": True}},
                    "relationships": {"user": {"destination": "User", "inverse": "posts"},
                                      "tags": {"destination": "Tag", "toMany": True, "inverse": "posts"}},
                },
                "User": {
                    "primaryKey": "id",
                    "attributes": {"id": {"type": "string"}, "name": {"type": "string", "optional": True}},
                    "relationships": {"posts": {"destination": "Post", "toMany": True, "inverse": "user"}},
                },
                "Tag": {
                    "primaryKey": "id",
                    "attributes": {"id": {"type": "string"}, "label": {"type": "string", "optional": True}},
                    "relationships": {"posts": {"destination": "Post", "toMany": True, "inverse": "tags"}},
                },
            },
        }
        ENTITIES = ["Post", "User", "Tag"]
        schema_path = os.path.join(WORK, "oracle-schema.json")
        with open(schema_path, "w") as f:
            json.dump(SCHEMA, f)


        class Data:
            """The server's dataset: posts refer to users by id and hold tag ids; users and tags are
            served nested, with their current values."""

            def __init__(self):
                self.posts = {}  # id -> {"title", "score", "omit_score", "user": uid|None, "tags": [tid]}
                self.users = {}  # uid -> name
                self.tags = {}  # tid -> label
                self.hooks = []  # callables (path, query) run before a page is built
                self.body_hooks = []  # callables (path, query, body, data, length) -> (body, data, length)
                self.served = []  # the bodies served, in order
                self.requests = []

            def post_json(self, pid):
                p = self.posts[pid]
                o = {"id": pid, "title": p["title"]}
                if not p["omit_score"]:
                    o["score"] = p["score"]
                o["user"] = None if p["user"] is None else {"id": p["user"], "name": self.users[p["user"]]}
                o["tags"] = [{"id": t, "label": self.tags[t]} for t in p["tags"]]
                return o

            def listing(self):
                return [self.post_json(pid) for pid in sorted(self.posts)]


        D = Data()
        LOCK = threading.Lock()


        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_GET(self):
                with LOCK:
                    u = urlparse(self.path)
                    q = {k: v[0] for k, v in parse_qs(u.query).items()}
                    D.requests.append(self.path)
                    for hook in list(D.hooks):
                        hook(u.path, q)
                    items = D.listing()
                    headers = {}
                    raw = None
                    if u.path == "/page/posts":
                        n = int(q.get("page", "1"))
                        chunk = items[(n - 1) * PAGE:n * PAGE]
                        body = {"data": chunk}
                    elif u.path == "/next/posts":
                        off = int(q.get("offset", "0"))
                        chunk = items[off:off + PAGE]
                        nxt = f"/next/posts?offset={off + PAGE}" if off + PAGE < len(items) else None
                        body = {"data": chunk, "meta": {"next": nxt, "total": len(items)}}
                    elif u.path == "/offset/posts":
                        off, lim = int(q.get("offset", "0")), int(q.get("limit", "3"))
                        body = {"data": items[off:off + lim], "meta": {"total": len(items)}}
                    elif u.path == "/link/posts":
                        off = int(q.get("offset", "0"))
                        chunk = items[off:off + PAGE]
                        if off + PAGE < len(items):
                            headers["Link"] = f'</link/posts?offset={off + PAGE}>; rel="next"'
                        else:
                            headers["Link"] = '</link/posts>; rel="first"'
                        body = {"data": chunk}
                    elif u.path == "/whole/posts":
                        body = {"data": items}
                    else:
                        self.send_response(404)
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
                    data = json.dumps(body).encode()
                    length = len(data)
                    for hook in list(D.body_hooks):
                        body, data, length = hook(u.path, q, body, data, length)
                    D.served.append(body if length == len(data) and data == json.dumps(body).encode() else None)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(length))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)
                if length != len(data):
                    self.close_connection = True


        httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        BASE = f"http://127.0.0.1:{httpd.server_address[1]}"
        DB = os.path.join(WORK, "oracle.sqlite")
        KINDS = {
            "page": ("/page/posts?page=1", "page:page"),
            "next": ("/next/posts", "next-url:meta.next:meta.total"),
            "link": ("/link/posts", "link-header"),
            "offset": ("/offset/posts", "offset:offset:limit:3:meta.total"),
        }
        problems = []


        def problem(text):
            problems.append(text)
            print("MISMATCH " + text, flush=True)


        def populate(kind, orphans, extra=()):
            path, paginate = KINDS[kind]
            args = [EXE, "populate", "--schema", schema_path, "--db", DB, "--entity", "Post", "--json",
                    "--paginate", paginate] + (["--delete-orphans"] if orphans else []) + list(extra) + [BASE + path]
            r = subprocess.run(args, capture_output=True, text=True, timeout=120)
            return r, " ".join(a if a != EXE else "webrecord" for a in args)


        def export(entity):
            if not os.path.exists(DB):
                return []
            r = subprocess.run([EXE, "export", "--schema", schema_path, "--db", DB, "--entity", entity],
                               capture_output=True, text=True, timeout=120)
            if r.returncode != 0:
                problem(f"export {entity} exited {r.returncode}: {r.stderr.strip()}")
                return None
            return json.loads(r.stdout)


        def snapshot():
            """Every table of the store, as rows, for 'the store is exactly as it was'."""
            if not os.path.exists(DB):
                return None
            c = sqlite3.connect(DB)
            out = {}
            for (name,) in c.execute("select name from sqlite_master where type='table' order by name"):
                out[name] = sorted(map(repr, c.execute(f'select * from "{name}"').fetchall()))
            c.close()
            return out


        class Model:
            """What the store must hold, by the documented semantics, and the counts a run must report."""

            def __init__(self):
                self.posts, self.users, self.tags = {}, {}, {}

            def apply_page(self, records, counts):
                named_users, named_tags = {}, {}
                for r in records:
                    pid = r["id"]
                    old = self.posts.get(pid)
                    new = dict(old) if old else {"title": None, "score": None, "user": None, "tags": []}
                    new["title"] = r["title"]
                    if "score" in r:
                        new["score"] = r["score"]
                    new["user"] = None if r["user"] is None else r["user"]["id"]
                    if r["user"] is not None:
                        named_users[r["user"]["id"]] = r["user"]["name"]
                    new["tags"] = sorted({t["id"] for t in r["tags"]})
                    for t in r["tags"]:
                        named_tags[t["id"]] = t["label"]
                    kind = "inserted" if old is None else ("unchanged" if old == new else "updated")
                    counts["Post"][kind] += 1
                    self.posts[pid] = new
                for store, named, entity in ((self.users, named_users, "User"), (self.tags, named_tags, "Tag")):
                    for key, value in named.items():
                        kind = "inserted" if key not in store else ("unchanged" if store[key] == value else "updated")
                        counts[entity][kind] += 1
                        store[key] = value

            def exports(self):
                posts = [{"id": pid, "title": p["title"], "score": p["score"], "user": p["user"], "tags": p["tags"]}
                         for pid, p in sorted(self.posts.items())]
                users = [{"id": u, "name": n, "posts": sorted(pid for pid, p in self.posts.items() if p["user"] == u)}
                         for u, n in sorted(self.users.items())]
                tags = [{"id": t, "label": l, "posts": sorted(pid for pid, p in self.posts.items() if t in p["tags"])}
                        for t, l in sorted(self.tags.items())]
                return {"Post": posts, "User": users, "Tag": tags}


        def zero():
            return {e: {"inserted": 0, "updated": 0, "unchanged": 0, "deleted": 0} for e in ENTITIES}


        def check_store(model, label):
            want = model.exports()
            for e in ENTITIES:
                got = export(e)
                if got is None:
                    continue
                g = {json.dumps(x, sort_keys=True) for x in got}
                w = {json.dumps(x, sort_keys=True) for x in want[e]}
                if len(got) != len(g) or g != w:
                    problem(f"{label}: {e} store differs from the server: "
                            f"extra {sorted(g - w)} missing {sorted(w - g)}")


        def check_counts(summary, counts, records, label):
            for e in ENTITIES:
                for k in ("inserted", "updated", "unchanged", "deleted"):
                    got = summary.get("entities", {}).get(e, {}).get(k, 0)
                    if got != counts[e][k]:
                        problem(f"{label}: summary {e}.{k} is {got}, expected {counts[e][k]}")
            for k in ("inserted", "updated", "unchanged", "deleted"):
                total = sum(counts[e][k] for e in ENTITIES)
                if summary.get(k) != total:
                    problem(f"{label}: summary {k} is {summary.get(k)}, expected {total}")
            if summary.get("records") != records:
                problem(f"{label}: summary records is {summary.get('records')}, expected {records}")


        def synced_run(model, kind, orphans, label):
            """Runs populate on an unchanging server and checks the store and the summary against the model."""
            D.served = []
            r, cmd = populate(kind, orphans)
            if r.returncode != 0:
                problem(f"{label}: `{cmd}` exited {r.returncode}: {r.stderr.strip()}")
                return False
            summary = json.loads(r.stdout)
            counts, records, seen = zero(), 0, set()
            for body in D.served:
                model.apply_page(body["data"], counts)
                records += len(body["data"])
                seen |= {x["id"] for x in body["data"]}
            if orphans:
                for pid in [p for p in model.posts if p not in seen]:
                    del model.posts[pid]
                    counts["Post"]["deleted"] += 1
            check_counts(summary, counts, records, f"{label} ({cmd})")
            check_store(model, f"{label} ({cmd})")
            ends = [p.get("end") for p in summary.get("paging", [])]
            if ends not in (["noNextPage"], ["emptyPage"]):
                problem(f"{label}: paging ended {ends} on an unchanging server")
            return True


        def mutate(rng, log):
            ops = ["insert", "insert", "title", "score", "omit_score", "delete", "delete", "move_tag", "rename_user",
                   "reassign_user", "null_user", "empty_tags", "add_tag", "relabel_tag"]
            op = rng.choice(ops)
            pids = sorted(D.posts)
            if op != "insert" and not pids:
                op = "insert"
            if op == "insert":
                pid = max(list(D.posts) + [0]) + rng.randint(1, 3)
                uid = rng.choice(sorted(D.users) + ["u%d" % rng.randint(1, 9)])
                D.users.setdefault(uid, "name-" + uid)
                tags = sorted(set(rng.sample(["t1", "t2", "t3", "t4", "t5", "t6"], rng.randint(0, 3))))
                for t in tags:
                    D.tags.setdefault(t, "label-" + t)
                D.posts[pid] = {"title": f"post {pid}", "score": rng.randint(0, 9), "omit_score": False, "user": uid,
                                "tags": tags}
                log.append(f"insert post {pid} (user {uid}, tags {tags})")
                return
            pid = rng.choice(pids)
            p = D.posts[pid]
            if op == "title":
                p["title"] += "!"
            elif op == "score":
                p["score"] = rng.choice([None, rng.randint(0, 99)])
                p["omit_score"] = False
            elif op == "omit_score":
                p["score"] = rng.randint(100, 200)  # not served: the store keeps what it had
                p["omit_score"] = True
            elif op == "delete":
                del D.posts[pid]
            elif op == "move_tag":
                others = [q for q in pids if q != pid]
                if p["tags"] and others:
                    t = rng.choice(p["tags"])
                    p["tags"].remove(t)
                    q = D.posts[rng.choice(others)]
                    if t not in q["tags"]:
                        q["tags"].append(t)
            elif op == "rename_user":
                if p["user"] is not None:
                    D.users[p["user"]] += "~"
            elif op == "reassign_user":
                uid = "u%d" % rng.randint(1, 9)
                D.users.setdefault(uid, "name-" + uid)
                p["user"] = uid
            elif op == "null_user":
                p["user"] = None
            elif op == "empty_tags":
                p["tags"] = []
            elif op == "add_tag":
                t = "t%d" % rng.randint(1, 8)
                D.tags.setdefault(t, "label-" + t)
                if t not in p["tags"]:
                    p["tags"].append(t)
            elif op == "relabel_tag":
                if p["tags"]:
                    D.tags[rng.choice(p["tags"])] += "*"
            log.append(f"{op} post {pid}")


        def oracle(seed, steps):
            rng = random.Random(seed)
            model = Model()
            log = []
            for i in range(steps):
                for _ in range(rng.randint(1, 3)):
                    mutate(rng, log)
                kind = rng.choice(sorted(KINDS))
                orphans = rng.random() < 0.5
                before = len(problems)
                synced_run(model, kind, orphans, f"seed {seed} step {i}")
                if len(problems) > before:
                    print("  mutations so far: " + "; ".join(log), flush=True)
                    return
                # The same data again: every record unchanged.
                if rng.random() < 0.3:
                    synced_run(model, kind, orphans, f"seed {seed} step {i} again")


        def fresh(n, first=1):
            for f in (DB, DB + "-wal", DB + "-shm"):
                if os.path.exists(f):
                    os.remove(f)
            D.posts, D.hooks, D.body_hooks = {}, [], []
            D.users, D.tags = {"u1": "Ann", "u2": "Bob"}, {"t1": "one", "t2": "two"}
            for i in range(first, first + n):
                D.posts[i] = {"title": f"post {i}", "score": i, "omit_score": False, "user": "u1" if i % 2 else "u2",
                              "tags": ["t1"] if i % 3 else ["t1", "t2"]}
            model = Model()
            synced_run(model, "next", False, "seeding")
            return model




        def once(condition, action):
            """A hook that runs `action` the first time a request matches `condition`."""
            done = []

            def hook(path, q):
                if not done and condition(path, q):
                    done.append(1)
                    action()
            return hook


        def adversarial_run(model, kind, orphans, label, expect_status, expect_ends=None, message=None):
            """Runs populate once against a server that misbehaves, and checks the store holds the pages
            the run saved (no orphan deleted unless the run ended at the server's stated end), the exit
            status, how paging ended, and the summary counts."""
            D.served = []
            before = snapshot()
            r, cmd = populate(kind, orphans)
            label = f"{label} ({cmd})"
            if r.returncode != expect_status:
                problem(f"{label}: exited {r.returncode}, expected {expect_status}: "
                        f"{r.stdout.strip()} {r.stderr.strip()}")
                return
            try:
                summary = json.loads(r.stdout)
            except ValueError:
                problem(f"{label}: --json printed no object: {r.stdout!r}")
                return
            counts, records, seen = zero(), 0, set()
            saved = [b for b in D.served if b is not None]
            if expect_status != 0:
                if message and message not in r.stderr:
                    problem(f"{label}: the error does not say '{message}': {r.stderr.strip()}")
                if summary.get("orphansDeleted") is not False:
                    problem(f"{label}: a failed run reports orphansDeleted {summary.get('orphansDeleted')}")
                if not saved and snapshot() != before:
                    problem(f"{label}: the failed first page changed the store")
            for body in saved:
                model.apply_page(body["data"], counts)
                records += len(body["data"])
                seen |= {x["id"] for x in body["data"]}
            ends = [p.get("end") for p in summary.get("paging", [])]
            if expect_ends is not None and not set(ends) <= set(expect_ends):
                problem(f"{label}: paging ended {ends}, expected one of {expect_ends}")
            if orphans and expect_status == 0 and ends in (["noNextPage"], ["emptyPage"]):
                for pid in [p for p in model.posts if p not in seen]:
                    del model.posts[pid]
                    counts["Post"]["deleted"] += 1
            check_counts(summary, counts, records, label)
            check_store(model, label)


        def scenario(name):
            if name == "delete_between_pages_with_total":
                model = fresh(9)
                D.hooks.append(once(lambda p, q: q.get("offset") == "3", lambda: D.posts.pop(2)))
                adversarial_run(model, "next", True, name, 0, ["listMoved"])
            elif name == "delete_between_pages_link":
                model = fresh(9)
                D.hooks.append(once(lambda p, q: q.get("offset") == "3", lambda: D.posts.pop(2)))
                adversarial_run(model, "link", False, name, 0)
            elif name == "insert_between_pages_page":
                model = fresh(8)
                D.posts.pop(8)  # gone before the run: the orphan a complete run would delete
                D.hooks.append(once(lambda p, q: q.get("page") == "2", lambda: D.posts.__setitem__(
                    0, {"title": "new", "score": 0, "omit_score": False, "user": "u1", "tags": []})))
                adversarial_run(model, "page", True, name, 0, ["listMoved"])
            elif name == "insert_between_pages_next_total":
                model = fresh(8)
                D.posts.pop(8)
                D.hooks.append(once(lambda p, q: q.get("offset") == "3", lambda: D.posts.__setitem__(
                    50, {"title": "new", "score": 0, "omit_score": False, "user": "u1", "tags": []})))
                adversarial_run(model, "next", True, name, 0, ["listMoved"])
            elif name == "update_between_pages":
                model = fresh(9)
                D.hooks.append(once(lambda p, q: q.get("page") == "2", lambda: (
                    D.posts[1].update(title="changed late"), D.users.__setitem__("u1", "Ann late"))))
                adversarial_run(model, "page", True, name, 0, ["emptyPage"])
            elif name == "delete_between_pages_offset":
                model = fresh(9)
                D.hooks.append(once(lambda p, q: q.get("offset") == "3", lambda: D.posts.pop(2)))
                adversarial_run(model, "offset", True, name, 0, ["listMoved"])
            elif name == "insert_between_pages_offset":
                model = fresh(8)
                D.posts.pop(8)
                D.hooks.append(once(lambda p, q: q.get("offset") == "3", lambda: D.posts.__setitem__(
                    0, {"title": "new", "score": 0, "omit_score": False, "user": "u1", "tags": []})))
                adversarial_run(model, "offset", True, name, 0, ["listMoved"])
            elif name == "repeated_page":
                model = fresh(9)
                D.posts.pop(9)

                def repeat(path, q, body, data, length):
                    if q.get("offset") == "3":
                        body = dict(body, data=D.listing()[0:3])
                        data = json.dumps(body).encode()
                        return body, data, len(data)
                    return body, data, length
                D.body_hooks.append(repeat)
                adversarial_run(model, "next", True, name, 0, ["repeatedPage", "listMoved"])
            elif name == "partly_repeated_page_link":
                model = fresh(9)
                D.posts.pop(9)

                def repeat(path, q, body, data, length):
                    if q.get("offset") == "3":
                        body = dict(body, data=D.listing()[2:5])
                        data = json.dumps(body).encode()
                        return body, data, len(data)
                    return body, data, length
                D.body_hooks.append(repeat)
                adversarial_run(model, "link", True, name, 0, ["listMoved"])
            elif name == "skipped_item_with_total":
                model = fresh(9)
                D.posts.pop(9)

                def skip(path, q, body, data, length):
                    if q.get("offset") == "3":
                        body = dict(body, data=body["data"][1:])
                        data = json.dumps(body).encode()
                        return body, data, len(data)
                    return body, data, length
                D.body_hooks.append(skip)
                adversarial_run(model, "next", True, name, 0, ["listMoved"])
            elif name == "empty_last_page_next":
                model = fresh(6)
                D.posts.pop(1)

                def empty_last(path, q, body, data, length):
                    if path == "/next/posts" and q.get("offset") == "3":
                        meta = {"next": "/next/posts?offset=99", "total": body["meta"]["total"]}
                        body = {"data": body["data"], "meta": meta}
                    elif path == "/next/posts" and q.get("offset") == "99":
                        body = {"data": [], "meta": {"next": None, "total": len(D.posts)}}
                    else:
                        return body, data, length
                    data = json.dumps(body).encode()
                    return body, data, len(data)
                D.body_hooks.append(empty_last)
                adversarial_run(model, "next", True, name, 0, ["noNextPage", "emptyPage"])
            elif name in ("cut_short_page2", "cut_short_page1", "malformed_page2"):
                model = fresh(9)
                D.posts.pop(9)
                D.posts[1]["title"] = "changed"
                target = "0" if name == "cut_short_page1" else "3"

                def cut(path, q, body, data, length):
                    if q.get("offset", "0") == target:
                        if name == "malformed_page2":
                            data = data[:len(data) // 2]
                            return body, data, len(data)
                        return body, data[:len(data) // 2], length
                    return body, data, length
                D.body_hooks.append(cut)
                adversarial_run(model, "link", True, name, 1, None,
                                "not valid JSON" if name == "malformed_page2" else "cut short")
            elif name == "error_envelope_page2":
                model = fresh(9)
                D.posts.pop(9)

                def env(path, q, body, data, length):
                    if q.get("offset") == "3":
                        body = {"error": {"message": "rate limited"}}
                        data = json.dumps(body).encode()
                        return None, data, len(data)
                    return body, data, length
                D.body_hooks.append(env)
                adversarial_run(model, "next", True, name, 1, None, "invalidResponseFormat")
            else:
                raise SystemExit("no scenario " + name)


        if MODE == "scenario":
            for name in ARGS:
                scenario(name)

        if MODE == "oracle":
            for s in ARGS[0].split(","):
                for f in (DB, DB + "-wal", DB + "-shm"):
                    if os.path.exists(f):
                        os.remove(f)
                D.posts, D.users, D.tags = {}, {}, {}
                oracle(int(s), int(ARGS[1]))
        print("problems: %d" % len(problems))
        sys.exit(1 if problems else 0)
        """#
}
