import Foundation
import TestSupport
import Testing

@testable import WebRecord

/// Inputs kept from fuzzing (`Fuzz/`, see `Docs/Reliability.md`): every file in
/// `Fixtures/Fuzz/` goes through the JSON reader and, when it reads, is populated as each
/// entity of the App.net schema. Nothing may crash; a thrown error is fine, but a failed
/// population must leave the store as it was, and the store must stay sound.
@Suite("Reliability: fuzzing regressions", .loadsTheMachine)
struct ReliabilityFuzzRegressionTests {
    /// The kept inputs' directory in the test bundle.
    static let directory: URL? = Bundle.module.url(forResource: "Fixtures", withExtension: nil)?
        .appendingPathComponent("Fuzz")

    /// The kept inputs' file names, sorted (the README is not an input).
    static let names: [String] = {
        guard let directory, let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else {
            return []
        }
        return names.filter { !$0.hasSuffix(".md") && !$0.hasPrefix(".") }.sorted()
    }()

    @Test("The kept fuzzing inputs are in the test bundle")
    func inputsArePresent() {
        #expect(Self.names.count >= 1, "Fixtures/Fuzz/ should hold the kept inputs")
    }

    @Test("A kept fuzzing input reads and populates without crashing", arguments: names)
    func keptInput(name: String) throws {
        let directory = try #require(Self.directory)
        let bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
        let response: JSONValue
        do {
            response = try JSONReader().read(bytes)
        } catch {
            #expect((error.line ?? 0) >= 1 && (error.column ?? 0) >= 1)
            #expect((0...bytes.count).contains(error.offset ?? -1))
            return
        }
        // The value survives serialization.
        #expect(try JSONReader().read(response.serialized()) == response)

        let store = try RecordStore(inMemory: Reliability.appNetSchema())
        for entity in Reliability.appNetEntities {
            let before = try Reliability.dump(store)
            do {
                _ = try store.populate(response, entity: entity)
            } catch {
                #expect(!error.message.isEmpty)
                #expect(try Reliability.dump(store) == before, "a failed population of \(entity) changed the store")
            }
            #expect(try Reliability.integrity(store) == ["ok"], "\(name) as \(entity)")
        }
    }
}
