import Foundation
import Testing

/// The library's layers point only down (Docs/Architecture.md): a file in one folder of
/// `Sources/WebRecord` names only types declared in its own layer or lower ones.
///
/// A plain scan of the sources, kept simple on purpose: the declarations of each folder
/// (`class`, `struct`, `enum`, `protocol`, `actor`, `typealias`, nested ones included), then
/// every capitalized identifier of every file outside comments and string literals. A name
/// declared in more than one layer is ambiguous and not checked, nor are the standard
/// library's associated-type names that conformances declare (`Element`, `Failure`, ...).
@Suite struct LayeringTests {
    /// The layers, lowest first; folders of one layer may name each other.
    static let layers: [[String]] = [
        ["JSON", "Debugging", "Logging", "Support"],
        ["Values"],
        ["Schema"],
        ["Store"],
        ["Population"],
        ["Server"],
        ["Requests"],
        ["Observation"],
    ]

    static let standardAssociatedTypes: Set<String> = [
        "Element", "Failure", "Iterator", "AsyncIterator", "Index", "SubSequence", "Indices", "Body", "ID",
    ]

    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/WebRecord")

    @Test("No file in a lower layer names a type of a higher one")
    func layersPointOnlyDown() throws {
        let files = try Self.swiftFiles()
        #expect(files.count > 50, "the sources were found")
        let violations = Self.violations(in: files)
        #expect(violations.isEmpty, "\(violations.count) upward reference(s):\n\(violations.joined(separator: "\n"))")
    }

    @Test("Every folder of the library belongs to a layer")
    func everyFolderHasALayer() throws {
        let known = Set(Self.layers.joined())
        let folders = Set(try Self.swiftFiles().map(\.folder))
        #expect(folders.subtracting(known).isEmpty, "folders without a layer: \(folders.subtracting(known).sorted())")
    }

    @Test("The scan finds an upward reference when there is one")
    func theScanCatchesAnUpwardReference() {
        let files = [
            SourceFile(path: "Store/A.swift", folder: "Store", text: "struct StoreThing { let x: PopulationThing }"),
            SourceFile(
                path: "Population/B.swift", folder: "Population", text: "struct PopulationThing { let y: StoreThing }"),
            SourceFile(
                path: "JSON/C.swift", folder: "JSON",
                text: "// PopulationThing in a comment\nlet s = \"PopulationThing\""),
        ]
        #expect(Self.violations(in: files) == ["Store/A.swift names PopulationThing (Population)"])
    }

    // MARK: - The scan

    struct SourceFile {
        var path: String
        var folder: String
        var text: String
    }

    static func swiftFiles() throws -> [SourceFile] {
        let manager = FileManager.default
        guard let enumerator = manager.enumerator(at: sources, includingPropertiesForKeys: nil) else { return [] }
        var files: [SourceFile] = []
        for case let url as URL in enumerator where url.pathExtension == "swift" {
            let relative = String(url.path.dropFirst(sources.path.count + 1))
            guard let folder = relative.split(separator: "/").first.map(String.init) else { continue }
            files.append(SourceFile(path: relative, folder: folder, text: try String(contentsOf: url, encoding: .utf8)))
        }
        return files.sorted { $0.path < $1.path }
    }

    static func layer(of folder: String) -> Int? {
        layers.firstIndex { $0.contains(folder) }
    }

    static func violations(in files: [SourceFile]) -> [String] {
        let code = files.map { stripped($0.text) }
        var declaredIn: [String: Set<Int>] = [:]
        for (file, text) in zip(files, code) {
            guard let layer = layer(of: file.folder) else { continue }
            for name in declarations(in: text) { declaredIn[name, default: []].insert(layer) }
        }
        var violations: [String] = []
        for (file, text) in zip(files, code) {
            guard let layer = layer(of: file.folder) else { continue }
            for name in Set(identifiers(in: text)).sorted() where !standardAssociatedTypes.contains(name) {
                guard let layers = declaredIn[name], layers.count == 1, let owner = layers.first, owner > layer else {
                    continue
                }
                violations.append("\(file.path) names \(name) (\(Self.layers[owner].joined(separator: "/")))")
            }
        }
        return violations
    }

    /// The names declared in `text`.
    static func declarations(in text: String) -> [String] {
        let keywords: Set<Substring> = ["class", "struct", "enum", "protocol", "actor", "typealias"]
        let words = words(in: text)
        var names: [String] = []
        for (word, next) in zip(words, words.dropFirst()) where keywords.contains(word) {
            if next.first?.isUppercase == true { names.append(String(next)) }
        }
        return names
    }

    /// The capitalized identifiers of `text`.
    static func identifiers(in text: String) -> [String] {
        words(in: text).filter { $0.first?.isUppercase == true }.map(String.init)
    }

    static func words(in text: String) -> [Substring] {
        text.split { !($0.isLetter || $0.isNumber || $0 == "_") }
    }

    /// `text` without comments and string literals.
    static func stripped(_ text: String) -> String {
        SwiftSourceScan(text).code
    }
}
