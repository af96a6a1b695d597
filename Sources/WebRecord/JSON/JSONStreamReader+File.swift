#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// The response files JSONStreamReader reads.

extension JSONStreamReader {
    /// Creates a reader of the file at `path`, which it reads in blocks with `read(2)`, never
    /// whole (unless nothing is streamed). The file is closed at its end, or with the reader.
    ///
    /// - Parameters:
    ///   - path: The file's path.
    ///   - keyPath: The key path of the array to stream; nil or empty for none.
    ///   - maximumDepth: The maximum nesting depth of arrays and objects.
    ///   - batchByteLimit: A batch ends at the first element boundary at or past this many
    ///     bytes of element text; nil for the default.
    /// - Throws: ``WebRecordError`` with code `notFound`, naming the path, when the file cannot
    ///   be opened or is a directory.
    package static func file(
        atPath path: String, keyPath: String?, maximumDepth: Int = JSONReader.defaultMaximumDepth,
        batchByteLimit: Int? = nil
    ) throws(WebRecordError) -> JSONStreamReader {
        let file = try ResponseFile(path: path)
        return JSONStreamReader(keyPath: keyPath, maximumDepth: maximumDepth, batchByteLimit: batchByteLimit) {
            try file.nextBytes(into: $0)
        }
    }
}

/// A response file open for reading, closed at its end or when released.
private final class ResponseFile {
    /// The file's path, for messages.
    let path: String
    /// The open file, or -1 once closed.
    private var descriptor: Int32

    /// Opens the file at `path` for reading.
    init(path: String) throws(WebRecordError) {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            throw WebRecordError(
                .notFound, "cannot open the response file '\(path)': \(String(cString: strerror(code)))")
        }
        var status = stat()
        if fstat(descriptor, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR {
            close(descriptor)
            descriptor = -1
            throw WebRecordError(.notFound, "cannot open the response file '\(path)': it is a directory")
        }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Reads the next bytes into `buffer`; 0 at the end of the file, which is then closed.
    func nextBytes(into buffer: UnsafeMutableRawBufferPointer) throws(ResponseFileError) -> Int {
        guard descriptor >= 0 else { return 0 }
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count > 0 { return count }
            if count == 0 {
                close(descriptor)
                descriptor = -1
                return 0
            }
            let code = errno
            if code == EINTR { continue }
            throw ResponseFileError(path: path, code: code)
        }
    }
}

/// A failure to read a response file.
private struct ResponseFileError: Error, CustomStringConvertible {
    /// The file's path.
    let path: String
    /// The `errno` of the failed read.
    let code: Int32

    /// What failed, with `errno`'s text.
    var description: String {
        "reading '\(path)' failed: \(String(cString: strerror(code)))"
    }
}
