#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A key written twice in one object of a JSON text.
///
/// ``JSONReader`` keeps the last value of a repeated key, at the position of the first, as most
/// JSON readers do; a caller to whom a repeat is a mistake (a schema file declaring an entity
/// twice) asks for the repeats with ``JSONReader/readReportingDuplicateKeys(_:)``. Keys are
/// the same when their UTF-8 bytes are, as the reader compares them.
struct JSONDuplicateKey: Sendable, Hashable {
    /// The keys leading to the object that holds the repeat (array elements are skipped).
    var path: [String]
    /// The repeated key.
    var key: String
    /// The 1-based line of the repeat's opening quote.
    var line: Int
    /// The 1-based column, in bytes, of the repeat's opening quote.
    var column: Int

    /// The repeats the parser noted, in document order, with their lines and columns in `input`.
    static func located(_ repeated: [RepeatedKey], in input: UnsafeBufferPointer<UInt8>) -> [JSONDuplicateKey] {
        var lines = JSONLineCounter(input)
        return repeated.sorted { $0.offset < $1.offset }.map { found in
            let (line, column) = lines.position(of: found.offset)
            return JSONDuplicateKey(path: found.path, key: found.key, line: line, column: column)
        }
    }
}

extension JSONReader {
    /// Reads one JSON value from UTF-8 data, as `read(_:)` does, and lists every key
    /// written again in one object, in document order.
    ///
    /// An object with a repeated key holds the last value at the position of the first; each
    /// occurrence after the first is listed. Reading costs the same as without the list, except
    /// for the objects that have a repeat.
    ///
    /// - Parameter data: The complete JSON text, UTF-8 encoded, without a byte order mark.
    /// - Returns: The top-level value, and the repeated keys (empty when there are none).
    /// - Throws: ``WebRecordError`` when the data is not one valid JSON value.
    func readReportingDuplicateKeys(
        _ data: Data
    ) throws(WebRecordError) -> (value: JSONValue, duplicateKeys: [JSONDuplicateKey]) {
        let result = data.withUnsafeBytes {
            bytes -> Result<(value: JSONValue, duplicateKeys: [JSONDuplicateKey]), WebRecordError> in
            do throws(WebRecordError) {
                return .success(try read(bytes, reportingDuplicateKeys: true))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
