import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `--db` under the store file's own faults: a full disk at the first population, a directory
/// or file an ordinary user may not write, a dangling symbolic link, another application's
/// views. Each fails with one line naming what is wrong, and leaves the directory as it was;
/// `export` reads wherever SQLite can read.
@Suite("webrecord and the store file", .loadsTheMachine)
struct StoreFileCommandTests {
    let directory: TemporaryDirectory
    let schema: String
    let tags: String

    init() throws {
        directory = try TemporaryDirectory()
        chmod(directory.url.path, 0o755)
        schema = try directory.write(
            "schema.json",
            #"{"entities": {"Tag": {"primaryKey": "name", "attributes": {"name": {"type": "string"}}}}}"#)
        tags = try directory.write("tags.json", #"[{"name": "a"}, {"name": "b"}]"#)
        chmod(schema, 0o644)
        chmod(tags, 0o644)
    }

    /// A store directory beside the inputs, holding a populated store readable by all.
    func seededStore() async throws -> (directory: String, db: String) {
        let stores = directory.path("stores")
        try FileManager.default.createDirectory(atPath: stores, withIntermediateDirectories: false)
        chmod(stores, 0o755)
        let db = stores + "/tags.sqlite"
        let seeded = try await CLI.run(["populate", "--schema", schema, "--db", db, "--entity", "Tag", tags])
        #expect(seeded.status == 0, "\(seeded)")
        chmod(db, 0o644)
        return (stores, db)
    }

    func populate(_ db: String) -> [String] { ["populate", "--schema", schema, "--db", db, "--entity", "Tag", tags] }
    func export(_ db: String) -> [String] { ["export", "--schema", schema, "--db", db, "--entity", "Tag"] }

    @Test(
        .disabled(
            if: Sanitizer.isActive,
            "under the thread sanitizer the process faults (SIGBUS, reported by the sanitizer's runtime) on the full disk before SQLite reports its write error; the ordinary build shows the rule"
        ))
    func aFirstPopulationOnAFullDiskLeavesNoFile() async throws {
        let stores = directory.path("stores")
        try FileManager.default.createDirectory(atPath: stores, withIntermediateDirectories: false)
        let db = stores + "/new.sqlite"
        let result = try await RestrictedRun.run(RestrictedRun.onAFullDisk(try CLI.executable(), populate(db)))
        #expect(RestrictedRun.status(result) == 1, "\(result)")
        #expect(result.stdoutLines.count == 2, "one line of error, then the status: \(result)")
        #expect(result.stdout.hasPrefix("webrecord: error: \(db): storeError: "), "\(result)")
        #expect(result.stdout.contains("disk I/O error [SQLite 778]"), "\(result)")
        #expect(RestrictedRun.listing(stores) == [], "nothing is left: \(RestrictedRun.listing(stores))")
    }

    @Test(
        "export reads a store in a directory an ordinary user may not write; populate names the directory",
        .enabled(if: RestrictedRun.hasOrdinaryUser, "needs an ordinary user (setpriv, when root)"))
    func aReadOnlyDirectory() async throws {
        let (stores, db) = try await seededStore()
        // The file itself is writable: only the directory stops SQLite making its -wal and -shm.
        chmod(db, 0o666)
        chmod(stores, 0o555)
        defer { chmod(stores, 0o755) }
        let before = try Data(contentsOf: URL(fileURLWithPath: db))

        let read = try await RestrictedRun.run(RestrictedRun.asOrdinaryUser(try CLI.executable(), export(db)))
        #expect(read.status == 0, "\(read)")
        #expect(read.stdout.contains(#""name" : "a""#) || read.stdout.contains(#""name": "a""#), "\(read)")
        #expect(read.stderr == "", "\(read)")

        let write = try await RestrictedRun.run(RestrictedRun.asOrdinaryUser(try CLI.executable(), populate(db)))
        #expect(write.status == 1, "\(write)")
        #expect(write.stderrLines.count == 1, "\(write)")
        #expect(write.stderr.contains("cannot be written: its directory '\(stores)' is not writable"), "\(write)")
        #expect(RestrictedRun.listing(stores) == ["tags.sqlite"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
    }

    @Test(
        "A failed populate of a read-only (0444) store leaves no new -wal or -shm",
        .enabled(if: RestrictedRun.hasOrdinaryUser, "needs an ordinary user (setpriv, when root)"))
    func aReadOnlyFile() async throws {
        let (stores, db) = try await seededStore()
        chmod(stores, 0o777)
        chmod(db, 0o444)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))

        let write = try await RestrictedRun.run(RestrictedRun.asOrdinaryUser(try CLI.executable(), populate(db)))
        #expect(write.status == 1, "\(write)")
        #expect(write.stderrLines.count == 1, "\(write)")
        #expect(write.stderr.contains("cannot be written: the file is read-only"), "\(write)")
        #expect(RestrictedRun.listing(stores) == ["tags.sqlite"], "\(RestrictedRun.listing(stores))")

        let read = try await RestrictedRun.run(RestrictedRun.asOrdinaryUser(try CLI.executable(), export(db)))
        #expect(read.status == 0, "\(read)")
        #expect(RestrictedRun.listing(stores) == ["tags.sqlite"], "\(RestrictedRun.listing(stores))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
    }

    @Test func aDanglingLinkSaysItsTargetIsMissing() async throws {
        let link = directory.path("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "gone.sqlite")
        for arguments in [populate(link), export(link)] {
            let result = try await CLI.run(arguments)
            #expect(result.status == 1, "\(result)")
            #expect(result.stderrLines.count == 1, "\(result)")
            #expect(result.stderr.contains("symbolic link to 'gone.sqlite', which is missing"), "\(result)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path("gone.sqlite")))
    }

    @Test func aDatabaseOfOnlyAnotherApplicationsViewsIsRefused() async throws {
        try #require(ChildProcess.hasPythonSQLite, "python3 with sqlite3 makes the other application's file")
        let db = directory.path("theirs.sqlite")
        let made = try await ChildProcess.run(
            try ChildProcess.onPath("python3"),
            [
                "-c",
                "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('CREATE VIEW report AS SELECT 1 AS one'); c.commit()",
                db,
            ])
        #expect(made.status == 0, "\(made)")
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        for arguments in [populate(db), export(db)] {
            let result = try await CLI.run(arguments)
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.contains("incompatibleStore"), "\(result)")
            #expect(result.stderr.contains("views that WebRecord did not create ('report')"), "\(result)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
    }
}
