import Foundation
import WebRecord

/// Converts a Core Data model into a WebRecord schema file.
///
/// It reads the `contents` XML file inside an `.xcdatamodel` bundle, with
/// MMRecord's userInfo keys (`MMRecordEntityPrimaryAttributeKey` and
/// `MMRecordAttributeAlternateNameKey`), and writes the equivalent schema file as
/// JSON text. This is what `webrecord import-model` prints. Entities, attributes
/// and relationships keep the model's order. `Docs/ImportingCoreDataModels.md`
/// has the full mapping and lists what must be added by hand afterwards.
///
/// The XML is read with Foundation's `XMLParser` (FoundationXML on Linux, which needs
/// libxml2 at run time). It loads nothing external, and DOCTYPE declarations are refused,
/// so no entity is ever expanded.
///
/// For example:
///
/// ```swift
/// let model = URL(fileURLWithPath: "AppNet.xcdatamodel/contents")
/// let json = try CoreDataModelImporter.schemaJSON(contentsOf: model)
/// try json.write(toFile: "Schemas/AppNet.json", atomically: true, encoding: .utf8)
/// ```
public enum CoreDataModelImporter {
    /// Converts the contents XML of a Core Data model into WebRecord schema JSON text.
    ///
    /// The text is pretty-printed with a 2-space indent and ends with a newline.
    ///
    /// For example:
    ///
    /// ```swift
    /// let json = try CoreDataModelImporter.schemaJSON(fromModelXML: data, fileName: "AppNet.xcdatamodel/contents")
    /// ```
    ///
    /// - Parameters:
    ///   - data: The UTF-8 XML of the model (the `contents` file of an `.xcdatamodel`).
    ///   - fileName: The name used for the file in error messages.
    /// - Returns: The schema file's text.
    /// - Throws: a `WebRecordError` (code `invalidSchema`) when the data is empty or binary, the XML is
    ///   malformed, has a DOCTYPE declaration, an empty processing instruction (`<?pi?>`) or
    ///   an encoding other than UTF-8, the root element is not `<model>`, a name is missing
    ///   or used twice, or an attribute type, default value or deletion rule has no WebRecord
    ///   equivalent.
    public static func schemaJSON(fromModelXML data: Data, fileName: String) throws(WebRecordError) -> String {
        if data.isEmpty { throw WebRecordError.notAModel(file: fileName, "the file is empty") }
        if data.contains(0) || String(bytes: data, encoding: .utf8) == nil {
            throw WebRecordError.notAModel(file: fileName, "the file is binary, not UTF-8 XML text")
        }
        let document: ModelXMLDocument
        do {
            document = try ModelXMLDocument(parsing: data, keptDepth: ModelConverter.elementDepth)
        } catch {
            throw WebRecordError.malformedXML(file: fileName, error)
        }
        let converter = ModelConverter(file: fileName)
        return try converter.schemaText(for: document.root)
    }

    /// Reads a Core Data model file and converts it into WebRecord schema JSON text.
    ///
    /// The URL may name the `contents` file itself or the `.xcdatamodel` directory that holds it.
    ///
    /// For example:
    ///
    /// ```swift
    /// let json = try CoreDataModelImporter.schemaJSON(contentsOf: URL(fileURLWithPath: "AppNet.xcdatamodel"))
    /// ```
    ///
    /// - Parameter url: A file URL of the model's `contents` file or of its `.xcdatamodel` directory.
    /// - Returns: The schema file's text, pretty-printed with a 2-space indent and a trailing newline.
    /// - Throws: a `WebRecordError` (code `invalidSchema`) when the file cannot be read (it is missing, is a
    ///   directory with no `contents` file, or may not be read) or cannot be converted; see
    ///   `schemaJSON(fromModelXML:fileName:)`.
    public static func schemaJSON(contentsOf url: URL) throws(WebRecordError) -> String {
        guard url.isFileURL else {
            let data: Data
            do {
                data = try Data(contentsOf: url)
            } catch {
                throw WebRecordError.unreadable(file: url.absoluteString, reason: error.localizedDescription)
            }
            return try schemaJSON(fromModelXML: data, fileName: url.absoluteString)
        }
        var fileURL = url
        if isDirectory(url.path) {
            fileURL = url.appendingPathComponent("contents")
            guard FileManager.default.fileExists(atPath: fileURL.path) else {
                throw WebRecordError.unreadable(
                    file: url.relativePath,
                    reason:
                        "it is a directory with no 'contents' file; give an .xcdatamodel directory or its contents file"
                )
            }
        }
        let fileName = fileURL.relativePath
        // A device (`/dev/null`), a dangling link or an unreadable file is named as what it is.
        if let reason = FileProblem.reason(forReading: fileURL.path) {
            throw WebRecordError.unreadable(file: fileName, reason: reason)
        }
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch {
            throw WebRecordError.unreadable(file: fileName, reason: error.localizedDescription)
        }
        return try schemaJSON(fromModelXML: data, fileName: fileName)
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
