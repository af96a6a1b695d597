import Foundation
import TestSupport
import Testing

@testable import WebRecord

/// The peers `webrecord-bench --phase peers` times WebRecord against store the same records as
/// the hand-written Python reference (`Scripts/reference_import.py`), so that the phase compares
/// the same work. Nothing here is timed.
///
/// Each check imports the benchmark's generated App.net stream (200 posts, from `webrecord-bench
/// --phase generate`) with the peer twice (a first import, then a re-import of the same
/// response, which must leave the store as the first left it) and compares the peer's store
/// with the reference's, record by record: the same keys in each table, the same values in each
/// record.
///
/// - The **hand-written Swift importer** (`peer-handwritten-swift`, a target of the package) is
///   always built and always checked: against WebRecord's own records, with
///   ``ReferenceImportTests``' comparison (the one that checks the reference against WebRecord),
///   and, where python3 is there, against the reference's store itself.
/// - **sqlite-utils** and **dlt** are Python packages the package does not install. Each is
///   checked only where python3 can import it (`pip install sqlite-utils "dlt[sqlalchemy]==1.31.*"`);
///   on a machine without them, their tests are skipped, as their names say, and pass nothing
///   off as checked. dlt names its tables and columns in snake_case (`cover_image`,
///   `avatar_image_path`), adds columns of its own (`_dlt_load_id`, `_dlt_id`) and stores a
///   date as a timestamp: its tables are read back under the reference's names with dlt's own
///   naming convention, without its own columns, and dates compare as instants on both sides.
@Suite struct PeerImportTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    static let packageRoot = ReferenceImportTests.packageRoot
    static let posts = 200

    // MARK: - The hand-written Swift importer, always

    @Test func theHandWrittenSwiftImporterStoresWhatWebRecordAndTheReferenceStore() async throws {
        let response = try await generate()
        let importer = try BuiltExecutables.executable("peer-handwritten-swift", besides: Bundle.module)
        let store = directory.path("swift.sqlite")
        let first = try await ChildProcess.run(importer, [response, store])
        #expect(first.status == 0, "\(first)")
        let firstDump = try Self.swiftDump(store)
        let second = try await ChildProcess.run(importer, [response, store])
        #expect(second.status == 0, "\(second)")
        #expect(try Self.swiftDump(store) == firstDump, "the Swift importer's re-import changed its store")
        let records = try ReferenceImportTests.referenceRecords(firstDump)
        let recordCount = records.values.reduce(0) { $0 + $1.count }
        for run in [first, second] {
            let line = try #require(run.stdoutLines.last { $0.hasPrefix("RESULT ") }, "\(run)")
            #expect(line.contains("seconds=") && line.hasSuffix(" records=\(recordCount)"), "\(line)")
        }

        // The records WebRecord stores, compared as ReferenceImportTests compares the reference's.
        let webRecord = try await webRecordRecords(response)
        #expect(webRecord["Post"]?.count == Self.posts)
        Self.expectSameRecords(records, as: webRecord, peer: "hand-written Swift", other: "WebRecord")

        // And the reference's own store, where python3 can run it.
        if ChildProcess.hasPythonSQLite {
            let reference = try await referenceStore(response)
            #expect(
                try ReferenceImportTests.referenceRecords(try await ReferenceImportTests.dump(reference)) == records,
                "the hand-written Swift importer's store differs from the reference's")
        }
    }

    // MARK: - The Python peers, where they are installed

    @Test(
        .enabled(
            if: PeerImportTests.pythonCanImport("sqlite_utils"),
            "sqlite-utils is not installed for python3: its records are not checked here"))
    func sqliteUtilsWhenInstalledStoresTheReferenceRecords() async throws {
        try await checkPythonPeer("Scripts/peers/sqlite_utils_import.py", naming: "plain")
    }

    @Test(
        .enabled(
            if: PeerImportTests.pythonCanImport("dlt, sqlalchemy"),
            "dlt with its SQLAlchemy destination is not installed for python3: its records are not checked here"))
    func dltWhenInstalledStoresTheReferenceRecords() async throws {
        try await checkPythonPeer("Scripts/peers/dlt_import.py", naming: "dlt")
    }

    /// Runs the Python peer `script` twice and the reference once on the same response, and
    /// compares their stores as ``dumpScript`` reads them.
    func checkPythonPeer(_ script: String, naming: String) async throws {
        let response = try await generate()
        let referenceStore = try await referenceStore(response)
        let reference = try await Self.pythonDump(referenceStore, naming: "plain")
        #expect(reference["Post"]?.count == Self.posts)
        #expect((reference["User"]?.count ?? 0) > 1)

        let store = directory.path("peer.sqlite")
        let scriptPath = Self.packageRoot.appendingPathComponent(script).path
        var dumps: [Records] = []
        for _ in 0..<2 {
            let run = try await ChildProcess.run(
                try ChildProcess.onPath("python3"), [scriptPath, response, store], timeout: 300)
            #expect(run.status == 0, "\(run)")
            let line = try #require(run.stdoutLines.last { $0.hasPrefix("RESULT ") }, "\(run)")
            let recordCount = reference.values.reduce(0) { $0 + $1.count }
            #expect(line.contains("seconds=") && line.hasSuffix(" records=\(recordCount)"), "\(line)")
            dumps.append(try await Self.pythonDump(store, naming: naming))
        }
        #expect(dumps[0] == dumps[1], "\(script): the re-import changed the store")
        Self.expectSameRecords(dumps[0], as: reference, peer: script, other: "the reference")
    }

    // MARK: - Comparing

    /// Records by table, then by key (as text), then values by column.
    typealias Records = [String: [String: [String: JSONValue]]]

    /// Expects the same keys in each of the reference's tables, and the same values in each record.
    static func expectSameRecords(_ peer: Records, as other: Records, peer peerName: String, other otherName: String) {
        #expect(Set(peer.keys) == Set(ReferenceImportTests.entities), "\(peerName): tables \(peer.keys.sorted())")
        for entity in ReferenceImportTests.entities {
            let theirs = other[entity] ?? [:]
            let ours = peer[entity] ?? [:]
            #expect(!theirs.isEmpty, "\(otherName) holds no \(entity)")
            #expect(Set(ours.keys) == Set(theirs.keys), "\(entity): the keys differ")
            var mismatches: [String] = []
            for (key, values) in theirs.sorted(by: { $0.key < $1.key }) where ours[key] != values {
                mismatches.append("\(entity) \(key): \(otherName) \(values), \(peerName) \(ours[key] ?? [:])")
            }
            let differing = mismatches.count
            #expect(
                differing == 0,
                "\(peerName), \(entity): \(differing) records differ, first:\n\(mismatches.prefix(3).joined(separator: "\n"))"
            )
        }
    }

    // MARK: - The stores

    /// The generated response's path.
    func generate() async throws -> String {
        let response = directory.path("posts.json")
        let generate = try await ChildProcess.run(
            try BuiltExecutables.executable("webrecord-bench", besides: Bundle.module),
            [
                "--phase", "generate", "--schema", ReferenceImportTests.schema, "--data", response, "--posts",
                String(Self.posts),
            ])
        #expect(generate.status == 0, "\(generate)")
        return response
    }

    /// WebRecord's records of the response, populated and exported with `webrecord`, as
    /// ``ReferenceImportTests`` reads them.
    func webRecordRecords(_ response: String) async throws -> Records {
        let store = directory.path("webrecord.sqlite")
        let schema = ReferenceImportTests.schema
        let populate = try await CLI.run([
            "populate", "--schema", schema, "--db", store, "--entity", "Post", "--quiet", response,
        ])
        #expect(populate.status == 0, "\(populate)")
        var records: Records = [:]
        for entity in ReferenceImportTests.entities {
            let export = try await CLI.run(["export", "--schema", schema, "--db", store, "--entity", entity])
            #expect(export.status == 0, "\(export)")
            records[entity] = try ReferenceImportTests.webRecordRecords(
                entity, export: JSONReader().read(export.stdoutData))
        }
        return records
    }

    /// The reference's store of the response.
    func referenceStore(_ response: String) async throws -> String {
        let store = directory.path("reference.sqlite")
        _ = try await ReferenceImportTests.runReference(response, store)
        return store
    }

    /// The reference's five tables in `store`, read with SQLite, in the shape of
    /// ``ReferenceImportTests/dump(_:)``: each table's rows as objects by column.
    static func swiftDump(_ store: String) throws -> JSONValue {
        let connection = try Connection(path: store, readOnly: true, mustExist: true)
        var tables: [(key: String, value: JSONValue)] = []
        for table in ReferenceImportTests.entities {
            let columns = try connection.rows("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(table)])
                .compactMap { row -> String? in
                    if case .text(let name) = row.first { return name }
                    return nil
                }
            let rows = try connection.rows("SELECT * FROM \"\(table)\"").map { row -> JSONValue in
                .object(
                    JSONObject(
                        zip(columns, row).map { column, value -> (key: String, value: JSONValue) in
                            switch value {
                            case .null: (column, .null)
                            case .integer(let number): (column, .integer(number))
                            case .real(let number): (column, .double(number))
                            case .text(let text): (column, .string(text))
                            case .blob(let data): (column, .string(data.base64EncodedString()))
                            }
                        }))
            }
            tables.append((table, .array(rows)))
        }
        return .object(JSONObject(tables))
    }

    /// Reads a Python peer's (or the reference's) store as one JSON object, each of the
    /// reference's tables by key, each record's values by the reference's column names, `date` as
    /// seconds since 1970 (a date without a zone, as dlt stores it, is UTC). `dlt` naming reads
    /// the tables and columns under the names dlt's naming convention gives the reference's,
    /// and leaves out dlt's own columns (`_dlt_…`); `plain` reads them as named.
    static let dumpScript = """
        import datetime, json, sqlite3, sys
        store, naming = sys.argv[1], sys.argv[2]
        \(referenceColumns)
        normalize = lambda name: name
        if naming == "dlt":
            from dlt.common.normalizers.naming.snake_case import NamingConvention
            normalize = NamingConvention().normalize_identifier
        db = sqlite3.connect(store)
        db.row_factory = sqlite3.Row
        def instant(text):
            date = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
            if date.tzinfo is None:
                date = date.replace(tzinfo=datetime.timezone.utc)
            return date.timestamp()
        dump = {}
        for table, names in columns.items():
            back = {normalize(name): name for name in names}
            records = {}
            for row in db.execute(f'SELECT * FROM "{normalize(table)}"'):
                values = {back.get(k, k): row[k] for k in row.keys() if not k.startswith("_dlt_")}
                if isinstance(values.get("date"), str):
                    values["date"] = instant(values["date"])
                records[str(values[keys[table]])] = values
            dump[table] = records
        print(json.dumps(dump))
        """

    /// The reference's tables, their columns and their keys, as Python (`columns`, `keys`).
    static let referenceColumns = """
        columns = {
            "User": ["id", "name", "avatarImagePath", "coverImagePath"],
            "Counts": ["user", "followers", "following", "posts", "stars"],
            "CoverImage": ["user", "url", "width", "height"],
            "Post": ["id", "date", "text", "thread_id", "user"],
            "Source": ["post", "clientID", "link", "name"],
        }
        keys = {"User": "id", "Counts": "user", "CoverImage": "user", "Post": "id", "Source": "post"}
        """

    static func pythonDump(_ store: String, naming: String) async throws -> Records {
        try await records(fromDump: dumpScript, [store, naming])
    }

    /// The records a dump script prints, in the shape ``dumpScript`` prints them.
    static func records(fromDump script: String, _ arguments: [String]) async throws -> Records {
        let result = try await ChildProcess.python(script, arguments).wait()
        #expect(result.status == 0, "\(result)")
        let dump = try JSONReader().read(result.stdoutData)
        var records: Records = [:]
        for (table, rows) in dump.objectValue ?? JSONObject() {
            for (key, row) in rows.objectValue ?? JSONObject() {
                var values: [String: JSONValue] = [:]
                for (column, value) in row.objectValue ?? JSONObject() { values[column] = value }
                records[table, default: [:]][key] = values
            }
        }
        return records
    }

    /// Whether python3 is on `PATH` and imports `modules` (as Python's `import` lists them).
    static func pythonCanImport(_ modules: String) -> Bool {
        guard ChildProcess.hasPythonSQLite, let python = try? ChildProcess.onPath("python3"),
            let result = try? ChildProcess.Running(python, ["-c", "import \(modules)"]).waitBlocking(
                timeout: MachineLoad.hangTimeout)
        else { return false }
        return result.status == 0 && !result.killedBySignal
    }
}
