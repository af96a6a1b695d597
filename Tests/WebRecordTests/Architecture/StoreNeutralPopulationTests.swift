import Foundation
import Testing

/// Population writes through the store interface, `RecordStorage` (Docs/Architecture.md), so
/// that a store other than SQLite can be populated: no file of `Sources/WebRecord/Population`
/// names the SQLite store's types or the SQLite library, or holds SQL in a string literal.
///
/// A plain scan of the sources, in the style of ``LayeringTests``: identifiers outside comments
/// and string literals, then the text of every string literal.
@Suite struct StoreNeutralPopulationTests {
    /// The SQLite implementation's types and SQL helpers, which only `Store/` may name.
    static let sqliteNames: Set<String> = [
        "SQLiteDatabase", "SQLiteRecordTransaction", "Connection", "ConnectionQueue", "Statement", "KeySetQuery",
        "TableSQL", "StoreMigrator", "StoreFile", "quote", "sqlPlaceholders",
    ]

    /// What SQL text looks like, whatever its case.
    static let sqlPatterns = [
        #"\bselect\b.*\bfrom\b"#, #"\binsert\s+into\b"#, #"\bupdate\s+\S+\s+set\b"#, #"\bdelete\s+from\b"#,
        #"\bpragma\b"#, #"\bjson_each\b"#,
    ]

    @Test("No file of Population names SQLite, its statements or its connections, or holds SQL")
    func populationIsStoreNeutral() throws {
        let files = try LayeringTests.swiftFiles().filter { $0.folder == "Population" }
        #expect(files.count > 5, "the Population sources were found")
        let violations = files.flatMap(Self.violations(in:))
        #expect(
            violations.isEmpty, "\(violations.count) reference(s) to SQLite:\n\(violations.joined(separator: "\n"))")
    }

    /// The files of a record and of the store interfaces, which any store implements.
    static let recordFiles = [
        "Store/Record.swift", "Store/Record+Logging.swift", "Store/RecordReading.swift", "Store/RecordStorage.swift",
    ]

    @Test("A record reads its store through RecordReading: no file of Record or of the store interfaces names SQLite")
    func recordsAreStoreNeutral() throws {
        let files = try LayeringTests.swiftFiles().filter { Self.recordFiles.contains($0.path) }
        #expect(files.map(\.path).sorted() == Self.recordFiles.sorted(), "the files were found")
        let violations = files.flatMap(Self.violations(in:))
        #expect(
            violations.isEmpty, "\(violations.count) reference(s) to SQLite:\n\(violations.joined(separator: "\n"))")
    }

    @Test("The scan finds SQLite names and SQL text when there are some")
    func theScanCatchesSQLite() {
        func file(_ text: String) -> LayeringTests.SourceFile {
            LayeringTests.SourceFile(path: "Population/A.swift", folder: "Population", text: text)
        }
        #expect(Self.violations(in: file("let store: SQLiteDatabase")) == ["Population/A.swift names SQLiteDatabase"])
        #expect(
            Self.violations(in: file("func f(_ c: Connection) { try c.execute(\"\") }")) == [
                "Population/A.swift names Connection"
            ])
        #expect(Self.violations(in: file("sqlite3_step(handle)")) == ["Population/A.swift names sqlite3_step"])
        #expect(
            Self.violations(in: file(#"let sql = "DELETE FROM \(quote(table))""#))
                == [#"Population/A.swift holds SQL: DELETE FROM \(quote(table))"#])
        #expect(Self.violations(in: file("let sql = \"\"\"\n  select \"_id\" from t\n  \"\"\"")).count == 1)
        #expect(Self.violations(in: file(##"let sql = #"UPDATE "T" SET "a" = ?"#"##)).count == 1)
        // Comments and prose are not code.
        #expect(
            Self.violations(in: file("// runs SELECT * FROM t on a Connection\nlet s = \"deleted from the store\""))
                .isEmpty)
        #expect(Self.violations(in: file("let s = \"the update sets nothing\"")).isEmpty)
    }

    // MARK: - The scan

    static func violations(in file: LayeringTests.SourceFile) -> [String] {
        var violations: [String] = []
        let code = LayeringTests.stripped(file.text)
        for word in Set(LayeringTests.words(in: code).map(String.init)).sorted()
        where sqliteNames.contains(word) || word.hasPrefix("sqlite3_") || word.hasPrefix("SQLITE_") {
            violations.append("\(file.path) names \(word)")
        }
        for literal in stringLiterals(in: file.text) {
            for pattern in sqlPatterns
            where literal.range(of: pattern, options: [.regularExpression, .caseInsensitive]) != nil {
                violations.append("\(file.path) holds SQL: \(literal)")
                break
            }
        }
        return violations
    }

    /// The contents of the string literals of `text` (raw and multi-line ones included),
    /// outside comments.
    static func stringLiterals(in text: String) -> [String] {
        SwiftSourceScan(text).literals
    }
}
