import Foundation
import WebRecord

/// A throwaway store that records every SQL statement it runs, so tests can count queries.
///
/// For example:
///
/// ```swift
/// let test = try RecordingStore(schema: schema)
/// _ = try test.store.populate(response, entity: "Post")
/// #expect(test.statements(matching: "SELECT").count == 5)
/// ```
///
/// The store lives in a fresh temporary file (a real SQLite file, in WAL mode), removed when
/// the `RecordingStore` is released; pass `inMemory: true` for an in-memory one.
public final class RecordingStore: Sendable {
    /// The store.
    public let store: RecordStore
    /// The store file's path, or nil for an in-memory store.
    public let path: String?
    private let directory: URL?
    private let log = SQLLog()

    /// Creates a throwaway store for `schema`, with its tables.
    ///
    /// - Throws: ``WebRecordError`` when the store cannot be created (`storeError`, also for a
    ///   temporary directory that cannot be made).
    public init(schema: Schema, inMemory: Bool = false) throws(WebRecordError) {
        var configuration = RecordStore.Configuration()
        configuration.sqlObserver = log.observer
        if inMemory {
            directory = nil
            path = nil
            store = try RecordStore(inMemory: schema, configuration: configuration)
        } else {
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("webrecord-test-\(UUID().uuidString)", isDirectory: true)
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw WebRecordError(
                    .storeError, "cannot make a temporary directory at \(directory.path): \(error)", cause: error)
            }
            let path = directory.appendingPathComponent("store.sqlite").path
            self.directory = directory
            self.path = path
            store = try RecordStore(path: path, schema: schema, configuration: configuration)
            // Like an in-memory store, a throwaway store starts with its tables: the first
            // write transaction makes them.
            try store.write { _ in }
        }
    }

    deinit {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// Every statement run so far, in order.
    public var statements: [String] { log.statements }

    /// The statements run so far that start with `prefix` (case-insensitive), such as "SELECT".
    public func statements(matching prefix: String) -> [String] {
        log.statements(matching: prefix)
    }

    /// Forgets the statements recorded so far.
    public func resetStatements() {
        log.removeAll()
    }
}
