import Foundation
import TestSupport
import Testing

/// `webrecord generate-swift SCHEMA... [--output DIR] [--access public|internal]
/// [--base-class NAME]`: the checked-in generated classes are what it writes now, and its
/// output's shape, options and errors. (GeneratedRecordsTests uses the generated classes.)
@Suite struct GenerateSwiftCommandTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Each checked-in folder of generated classes, with the schema and options that write it:
    /// the lines of Scripts/generate-swift-examples.
    static let checkedIn: [(folder: String, arguments: [String])] = [
        ("Examples/AppNet/Generated", ["Schemas/AppNet.json", "--base-class", "ADNRecord"]),
        ("Examples/Foursquare/Generated", ["Schemas/Foursquare.json", "--base-class", "FoursquareRecord"]),
        ("Examples/Atlassian/Generated", ["Schemas/Atlassian.json", "--access", "public"]),
        ("Tests/ReadmeExample/Generated", ["Schemas/AppNet.json"]),
        ("Examples/JSONAPIBlog/Generated", ["Examples/JSONAPIBlog/Blog.json"]),
        ("Tests/GeneratedClashRecords", ["Tests/GeneratedRecordsTests/Clashes.json", "--access", "public"]),
    ]

    static func swiftFiles(in directory: URL) throws -> [String: String] {
        var files: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasSuffix(".swift") {
            files[name] = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        }
        return files
    }

    @Test func theCheckedInClassesAreWhatTheGeneratorWrites() async throws {
        let scratch = try TemporaryDirectory()
        for (folder, arguments) in Self.checkedIn {
            let output = scratch.url.appendingPathComponent(folder)
            let result = try await CLI.run(
                ["generate-swift"] + arguments + ["--output", output.path], in: Self.packageRoot)
            #expect(result.status == 0, "\(result)")
            let written = try Self.swiftFiles(in: output)
            let stored = try Self.swiftFiles(in: Self.packageRoot.appendingPathComponent(folder))
            #expect(!written.isEmpty)
            #expect(
                written.keys.sorted() == stored.keys.sorted(),
                "\(folder) is not what the generator writes: run Scripts/generate-swift-examples")
            for (name, text) in written where stored[name] != text {
                Issue.record("\(folder)/\(name) is not what the generator writes: run Scripts/generate-swift-examples")
            }
        }
    }

    @Test func withoutOutputEverythingIsOneFileOnStandardOutput() async throws {
        let result = try await CLI.run(["generate-swift", "Schemas/AppNet.json"], in: Self.packageRoot)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr == "")
        let text = result.stdout
        #expect(text.components(separatedBy: "import WebRecord\n").count == 2, "one import")
        for name in ["Post", "User", "Counts", "Source", "CoverImage"] {
            #expect(text.contains("final class \(name): Record {"), "\(name)")
        }
        #expect(text.contains("    var id: String { self[primaryKey: \"id\"] }"))
        #expect(text.contains("    var threadID: String? { self[\"thread_id\"] }"))
        #expect(text.contains("    var user: User? { related(\"user\") }"))
        #expect(text.contains("    var posts: [Post] { relatedRecords(\"posts\") }"))
        #expect(text.contains("enum AppNetRecords {"))
        #expect(text.contains("// Written by `webrecord generate-swift AppNet.json`."))
    }

    @Test func publicAccessMakesParentsOpenAndLeavesFinal() async throws {
        let result = try await CLI.run(
            ["generate-swift", "Schemas/Atlassian.json", "--access", "public"], in: Self.packageRoot)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("open class Link: Record {"))
        #expect(result.stdout.contains("public final class InwardLink: Link {"))
        #expect(result.stdout.contains("    override public class var entityName: String { \"InwardLink\" }"))
        #expect(result.stdout.contains("    public var key: String? { self[\"key\"] }"))
        #expect(result.stdout.contains("public enum AtlassianRecords {"))
        #expect(result.stdout.contains("    public static func register(on store: RecordStore) {"))
    }

    @Test func aBaseClassIsWhatRootClassesInherit() async throws {
        let result = try await CLI.run(
            ["generate-swift", "Schemas/Atlassian.json", "--base-class", "JiraRecord"], in: Self.packageRoot)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("final class Issue: JiraRecord {"))
        #expect(result.stdout.contains("final class InwardLink: Link {"), "a sub-entity still inherits its parent")
    }

    @Test func initialismsAndModuleNamesAreSpelledAsDocumented() async throws {
        let directory = try TemporaryDirectory()
        let schema = try directory.write(
            "names.json",
            #"{"entities": {"json_api_doc": {"primaryKey": "id", "attributes": {"id": {"type": "string"}, "user_ids": {"type": "json"}, "avatar_url": {"type": "url"}}}, "Foundation": {"primaryKey": "id", "attributes": {"id": {"type": "string"}}}}}"#
        )
        let result = try await CLI.run(["generate-swift", schema])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("final class JSONAPIDoc: Record {"), "\(result.stdout)")
        #expect(result.stdout.contains("    var userIDs: JSONValue? { self[\"user_ids\"] }"))
        #expect(result.stdout.contains("    var avatarURL: URL? { self[\"avatar_url\"] }"))
        #expect(result.stdout.contains("final class FoundationRecord: Record {"), "a class would hide the module")
        let clash = try await CLI.run(["generate-swift", schema, "--base-class", "JSONAPIDoc"])
        #expect(clash.status == 2, "\(clash)")
        #expect(clash.stderr.contains("a generated class has that name"), "\(clash.stderr)")
    }

    @Test(arguments: [
        (["--access", "private"], "invalid --access 'private'; expected internal or public"),
        (["--base-class", "my record"], "invalid --base-class 'my record'"),
    ])
    func badOptionsAreUsageErrors(_ options: [String], _ message: String) async throws {
        let result = try await CLI.run(["generate-swift", "Schemas/AppNet.json"] + options, in: Self.packageRoot)
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stdout == "")
    }

    @Test func anInvalidSchemaWritesNothing() async throws {
        let directory = try TemporaryDirectory()
        let schema = try directory.write("bad.json", #"{"entities": {"A": {"attributes": {"x": {"type": "text"}}}}}"#)
        let output = directory.url.appendingPathComponent("out")
        let result = try await CLI.run(["generate-swift", schema, "--output", output.path])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("invalid schema"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    /// The members `Record` declares for its users (public, open or package, instance or class),
    /// found in the library's sources: every `class Record`, `extension Record` and
    /// `extension RecordRequesting` body.
    static func recordMemberNames() throws -> Set<String> {
        let sources = packageRoot.appendingPathComponent("Sources/WebRecord")
        let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        var names: Set<String> = []
        let opening = try Regex(#"^(open class Record\b|extension Record\b|extension RecordRequesting\b)"#)
        let member = try Regex(
            #"^    (?:@\w+ )*(?:public|open|package) (?:(?:static|class|override|final) )*(?:var|let|func) `?(\w+)"#)
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }

            var inside = false
            for line in try String(contentsOf: url, encoding: .utf8).split(
                separator: "\n", omittingEmptySubsequences: false)
            {
                if line.firstMatch(of: opening) != nil {
                    inside = true
                } else if line == "}" {
                    inside = false
                } else if inside, let match = line.firstMatch(of: member), let name = match.output[1].substring {
                    names.insert(String(name))
                }
            }
        }
        return names
    }

    @Test func propertiesNamedLikeRecordsMembersAreRenamed() async throws {
        let members = try Self.recordMemberNames()
        #expect(members.isSuperset(of: ["entity", "rowID", "related", "relatedRecords", "startRequest", "pages"]))
        // A schema with an attribute named like each member (the store's `_`-names aside).
        let attributes = members.sorted().filter { !$0.hasPrefix("_") }.map { #""\#($0)": {"type": "string"}"# }
        let directory = try TemporaryDirectory()
        let schema = try directory.write(
            "members.json",
            #"{"entities": {"Thing": {"attributes": {\#(attributes.joined(separator: ", "))}}}}"#)
        let result = try await CLI.run(["generate-swift", schema])
        #expect(result.status == 0, "\(result)")
        for name in members where !name.hasPrefix("_") {
            #expect(
                result.stdout.contains("    var \(name)Attribute: String? { self[\"\(name)\"] }"),
                "\(name) is a member of Record, and a property of that name would clash")
        }
    }
}
