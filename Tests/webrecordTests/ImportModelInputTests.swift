import Foundation
import TestSupport
import Testing

/// `webrecord import-model` on something that is not a readable model file says what it is,
/// on one line, exit 1, and prints nothing on stdout.
@Suite struct ImportModelInputTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func expectFailure(_ path: String, _ message: String, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        let result = try await CLI.run(["import-model", path], in: directory.url)
        #expect(result.status == 1, "\(result)", sourceLocation: sourceLocation)
        #expect(result.stdout == "", "\(result)", sourceLocation: sourceLocation)
        #expect(result.stderr == "webrecord: error: \(message)\n", "\(result)", sourceLocation: sourceLocation)
    }

    @Test func aMissingPath() async throws {
        try await expectFailure(
            "Nowhere.xcdatamodel/contents", "Nowhere.xcdatamodel/contents: cannot read the model: no such file")
    }

    @Test func aDirectoryWithoutAContentsFile() async throws {
        try FileManager.default.createDirectory(
            at: directory.url.appendingPathComponent("Empty.xcdatamodel"), withIntermediateDirectories: false)
        try await expectFailure(
            "Empty.xcdatamodel",
            "Empty.xcdatamodel: cannot read the model: it is a directory with no 'contents' file; give an .xcdatamodel directory or its contents file"
        )
    }

    @Test func aDirectoryWhoseContentsIsADirectory() async throws {
        try FileManager.default.createDirectory(
            at: directory.url.appendingPathComponent("Odd.xcdatamodel/contents"), withIntermediateDirectories: true)
        try await expectFailure(
            "Odd.xcdatamodel", "Odd.xcdatamodel/contents: cannot read the model: it is a directory, not a file")
    }

    @Test(.enabled(if: geteuid() != 0, "root may read any file"))
    func anUnreadableFile() async throws {
        let path = try directory.write("contents", #"<?xml version="1.0"?><model/>"#)
        try FileManager.default.setAttributes([.posixPermissions: 0o200], ofItemAtPath: path)
        try await expectFailure("contents", "contents: cannot read the model: permission denied")
    }

    @Test func anEmptyFile() async throws {
        _ = try directory.write("contents", Data())
        try await expectFailure(
            "contents",
            "contents: not a Core Data model: the file is empty; expected the contents XML of an .xcdatamodel")
    }

    @Test(arguments: [Data([0x53, 0x51, 0x4C, 0x69, 0x74, 0x65, 0x00, 0x01]), Data([0x3C, 0x6D, 0xFF, 0xFE, 0x3E])])
    func aBinaryFile(bytes: Data) async throws {
        _ = try directory.write("model.sqlite", bytes)
        try await expectFailure(
            "model.sqlite",
            "model.sqlite: not a Core Data model: the file is binary, not UTF-8 XML text; expected the contents XML of an .xcdatamodel"
        )
    }

    /// FoundationXML's XMLParser crashes the process on `<?pi?>` on Linux: the tool refuses it first.
    @Test func anEmptyProcessingInstruction() async throws {
        _ = try directory.write("contents", "<?xml version=\"1.0\"?>\n<model>\n  <?pi?>\n</model>\n")
        try await expectFailure(
            "contents",
            "contents: line 3, column 3: malformed XML: empty processing instruction <?pi?> is not supported")
    }

    @Test func aDocumentTypeDeclaration() async throws {
        _ = try directory.write("contents", "<?xml version=\"1.0\"?>\n<!DOCTYPE model [<!ENTITY e \"x\">]>\n<model/>\n")
        try await expectFailure(
            "contents", "contents: line 2, column 1: malformed XML: DOCTYPE declarations are not supported")
    }

    @Test func aTextFileThatIsNotXML() async throws {
        _ = try directory.write("notes.txt", "just some notes\n")
        let result = try await CLI.run(["import-model", "notes.txt"], in: directory.url)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.hasPrefix("webrecord: error: notes.txt: line 1, column 1: malformed XML: "), "\(result)")
    }
}
