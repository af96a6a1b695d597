import Foundation
import TestSupport
import Testing

@testable import WebRecord

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The store file under faults of its own: a full disk at the first population, a directory or
/// file this process may not write, a dangling symbolic link, another application's views.
/// Each fails naming what is wrong, and leaves the directory as it was; a read works wherever
/// SQLite can read. The restricted runs go through `webrecord-probe`, the library in a process
/// of its own (Tests/Probe), as an ordinary user or with no room to write.
@Suite("Reliability: the store file", .loadsTheMachine)
struct StoreFileFaultTests {
    static let schema = #"{"entities": {"Tag": {"primaryKey": "name", "attributes": {"name": {"type": "string"}}}}}"#

    static func probe() throws -> URL { try BuiltExecutables.executable("webrecord-probe", besides: Bundle.module) }

    /// A store at `path` holding one Tag, closed (so no -wal or -shm is left beside it).
    static func seed(_ path: String) throws {
        let store = try RecordStore(path: path, schema: Schema(json: schema))
        _ = try store.populate([["name": "seed"]], entity: "Tag")
        store.close()
    }

    /// A directory an ordinary user may enter, holding a seeded store readable by all.
    static func seededDirectory() throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory()
        let path = directory.path("tags.sqlite")
        try seed(path)
        chmod(path, 0o644)
        chmod(directory.url.path, 0o755)
        return (directory, path)
    }

    @Test(
        "A first population on a full disk fails saying so, and leaves no file",
        .disabled(
            if: Sanitizer.isActive,
            "under the thread sanitizer the process faults (SIGBUS, reported by the sanitizer's runtime) on the full disk before SQLite reports its write error; the ordinary build shows the rule"
        ))
    func aFullDiskLeavesNoFile() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("new.sqlite")
        let result = try await RestrictedRun.run(RestrictedRun.onAFullDisk(try Self.probe(), ["populate", path]))
        #expect(RestrictedRun.status(result) == 1, "\(result)")
        // SQLite reports a write refused with EFBIG as a disk I/O error (SQLITE_IOERR_WRITE),
        // one refused with ENOSPC as SQLITE_FULL.
        #expect(result.stdout.contains("storeError: the store '\(path)': disk I/O error [SQLite 778]"), "\(result)")
        #expect(
            RestrictedRun.listing(directory.url.path) == [],
            "nothing is left: \(RestrictedRun.listing(directory.url.path))")
    }

    @Test(
        "A store in a directory this process may not write is read, and a write names the directory",
        .enabled(if: RestrictedRun.hasOrdinaryUser, "needs an ordinary user (setpriv, when root)"))
    func aReadOnlyDirectoryIsRead() async throws {
        let (directory, path) = try Self.seededDirectory()
        // The file itself is writable: only the directory stops SQLite making its -wal and -shm.
        chmod(path, 0o666)
        chmod(directory.url.path, 0o555)
        defer { chmod(directory.url.path, 0o755) }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let count = try await RestrictedRun.run(RestrictedRun.asOrdinaryUser(try Self.probe(), ["count", path]))
        #expect(count.status == 0, "\(count)")
        #expect(count.stdout == "1\n", "\(count)")

        let write = try await RestrictedRun.run(RestrictedRun.asOrdinaryUser(try Self.probe(), ["populate", path]))
        #expect(write.status == 1, "\(write)")
        #expect(
            write.stderr.contains("cannot be written: its directory '\(directory.url.path)' is not writable"),
            "\(write)")
        #expect(RestrictedRun.listing(directory.url.path) == ["tags.sqlite"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test(
        "A read-only (0444) store file is read, and a failed population leaves no -wal or -shm",
        .enabled(if: RestrictedRun.hasOrdinaryUser, "needs an ordinary user (setpriv, when root)"))
    func aReadOnlyFileLeavesNoCompanions() async throws {
        let (directory, path) = try Self.seededDirectory()
        // The directory is writable, so SQLite could make its -wal and -shm there.
        chmod(directory.url.path, 0o777)
        chmod(path, 0o444)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let write = try await RestrictedRun.run(RestrictedRun.asOrdinaryUser(try Self.probe(), ["populate", path]))
        #expect(write.status == 1, "\(write)")
        #expect(write.stderr.contains("cannot be written: the file is read-only"), "\(write)")
        #expect(RestrictedRun.listing(directory.url.path) == ["tags.sqlite"])

        let count = try await RestrictedRun.run(RestrictedRun.asOrdinaryUser(try Self.probe(), ["count", path]))
        #expect(count.stdout == "1\n", "\(count)")
        #expect(RestrictedRun.listing(directory.url.path) == ["tags.sqlite"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("A dangling symbolic link as the store names its missing target, and creates nothing")
    func aDanglingLinkNamesItsTarget() throws {
        let directory = try TemporaryDirectory()
        let link = directory.path("store.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "nowhere.sqlite")
        let error = try #require(throws: WebRecordError.self) {
            try RecordStore(path: link, schema: Schema(json: Self.schema))
        }
        #expect(error.code == .storeError)
        #expect(
            error.message.contains("the store '\(link)' is a symbolic link to 'nowhere.sqlite', which is missing"),
            "\(error)")
        #expect(RestrictedRun.listing(directory.url.path) == ["store.sqlite"])
    }

    @Test("A file holding only another application's views is refused as a foreign database")
    func onlyViewsIsForeign() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("theirs.sqlite")
        do { try Connection(path: path).execute("CREATE VIEW \"report\" AS SELECT 1 AS one") }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = try #require(throws: WebRecordError.self) {
            try RecordStore(path: path, schema: Schema(json: Self.schema))
        }
        #expect(error.code == .incompatibleStore)
        #expect(error.message.contains("views that WebRecord did not create ('report')"), "\(error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)

        // Tables and views together name both kinds.
        do { try Connection(path: path).execute("CREATE TABLE \"notes\" (\"body\" TEXT)") }
        let both = try #require(throws: WebRecordError.self) {
            try RecordStore(path: path, schema: Schema(json: Self.schema))
        }
        #expect(both.message.contains("tables and views that WebRecord did not create ('notes', view 'report')"))
    }
}
