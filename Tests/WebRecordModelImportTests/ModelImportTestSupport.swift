import Foundation
import Testing

/// The path of a fixture file shipped with these tests.
func fixtureURL(_ path: String) throws -> URL {
    let base = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
    return base.appendingPathComponent(path)
}

/// The package's root folder (for Schemas/): this file is
/// `Tests/WebRecordModelImportTests/ModelImportTestSupport.swift`.
let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // WebRecordModelImportTests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()
