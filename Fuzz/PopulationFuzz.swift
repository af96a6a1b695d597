// libFuzzer target for WebRecord's population pipeline: arbitrary bytes are read as JSON and
// populated, as each entity of the App.net schema in turn, into a fresh in-memory store.
//
// Built by Fuzz/build.sh into the one fuzzing binary, together with the WebRecord library
// sources (one module), so it is not a package target and `swift test` never sees it.
//
// Properties checked (a failure aborts, which libFuzzer records as a crash):
//
// - population either succeeds or throws a WebRecordError; it never crashes;
// - a failed population leaves the store's content exactly as it was (atomicity);
// - after every population the store passes `PRAGMA integrity_check` and
//   `PRAGMA foreign_key_check`;
// - a successful population returns no more top-level records than the response holds;
// - the same bytes streamed as posts in batches of 64 bytes, into the store the populations
//   above left (so that the batches meet stored rows, and records repeated across batches are
//   taken as an earlier batch wrote them), hold the same properties.

import Foundation

/// The App.net schema, loaded once from the copy next to the fuzzer binary (or
/// `$WEBRECORD_FUZZ_SCHEMA`).
let fuzzSchema: Schema = {
    let path = ProcessInfo.processInfo.environment["WEBRECORD_FUZZ_SCHEMA"]
        ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("AppNet.json").path
    do {
        return try Schema(contentsOf: URL(fileURLWithPath: path))
    } catch {
        fuzzFailure("cannot load the schema at \(path): \(error)")
    }
}()

let fuzzEntities = ["Post", "User", "Counts", "Source", "CoverImage"]

/// Every row of every table, as text, in a fixed order: the store's content.
func fuzzDump(_ store: RecordStore) -> [String] {
    do {
        return try store.read { connection in
            var lines: [String] = []
            let tables = try connection.rows(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            for case .text(let table)? in tables.map(\.first) {
                let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                let columns = try connection.rows("PRAGMA table_info(\(quoted))").count
                let order = (1...max(1, columns)).map(String.init).joined(separator: ", ")
                for row in try connection.rows("SELECT * FROM \(quoted) ORDER BY \(order)") {
                    lines.append(table + ": " + row.map(\.description).joined(separator: " | "))
                }
            }
            return lines
        }
    } catch {
        fuzzFailure("cannot dump the store: \(error)")
    }
}

/// Fails unless the store passes SQLite's integrity and foreign-key checks.
func fuzzCheckIntegrity(_ store: RecordStore) {
    do {
        let integrity = try store.read { try $0.rows("PRAGMA integrity_check") }
        if integrity != [[.text("ok")]] { fuzzFailure("integrity_check: \(integrity)") }
        let foreignKeys = try store.read { try $0.rows("PRAGMA foreign_key_check") }
        if !foreignKeys.isEmpty { fuzzFailure("foreign_key_check: \(foreignKeys)") }
    } catch {
        fuzzFailure("cannot check the store: \(error)")
    }
}

/// Fuzzes population with one input (the `population` target; FuzzMain.swift).
func populationFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    let response: JSONValue
    do {
        response = try JSONReader().read(input)
    } catch {
        return 0
    }
    let store: RecordStore
    do {
        store = try RecordStore(inMemory: fuzzSchema)
    } catch {
        fuzzFailure("cannot open an in-memory store: \(error)")
    }
    for entity in fuzzEntities {
        let before = fuzzDump(store)
        do {
            let result = try store.populate(response, entity: entity)
            let available: Int
            switch response {
            case .array(let elements): available = elements.count
            default: available = max(1, response.value(atKeyPath: "data")?.arrayValue?.count ?? 1)
            }
            if result.records.count > available {
                fuzzFailure("\(entity): \(result.records.count) records from \(available) objects")
            }
        } catch {
            let after = fuzzDump(store)
            if after != before {
                fuzzFailure("\(entity): failed population (\(error)) changed the store")
            }
        }
        fuzzCheckIntegrity(store)
    }
    fuzzStream(Data(input), into: store)
    return 0
}

/// Streams `data` as posts, in batches of 64 bytes, into `store`: the population succeeds or
/// leaves the store as it was, and the store passes the integrity checks.
func fuzzStream(_ data: Data, into store: RecordStore) {
    guard let database = store.sqlite else { fuzzFailure("the in-memory store has no SQLite database") }
    let before = fuzzDump(store)
    let outcome = Locked<Result<Int, WebRecordError>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        do throws(WebRecordError) {
            let result = try await ResponsePopulation(store: database).populate(
                streaming: { keyPath in JSONStreamReader(data: data, keyPath: keyPath, batchByteLimit: 64) },
                entity: "Post")
            outcome.withLock { $0 = .success(result.records.count) }
        } catch {
            outcome.withLock { $0 = .failure(error) }
        }
        done.signal()
    }
    done.wait()
    switch outcome.withLock({ $0 }) {
    case .failure(let error)?:
        if fuzzDump(store) != before { fuzzFailure("Post, streamed: failed population (\(error)) changed the store") }
    case .success?:
        break
    case nil:
        fuzzFailure("Post, streamed: the population ended with no outcome")
    }
    fuzzCheckIntegrity(store)
}
