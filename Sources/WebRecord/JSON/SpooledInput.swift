import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A response that can be read only once (standard input, a named pipe, `/dev/stdin`), kept as
/// it is read in a temporary file that no other process can open, so that a population that
/// must read it again whole (Docs/Population.md, "Read again whole"), or retry after a conflict
/// with another writer, reads the copy and then what the source has not given yet.
///
/// The copy is made in the temporary directory (`TMPDIR`, or `/tmp`) with mode 0600, and its
/// name is removed as soon as it is made: it lives as long as this object and is never seen by
/// another process. It grows with the response (a response of 1 GB takes 1 GB of that
/// directory's disk). When it cannot be made or written (a full disk), the source is still read
/// to its end, and only opening it again fails, with an error that says why.
///
/// One reader reads at a time. A population opens the response again after it stopped the
/// earlier reader, whose thread may still be in a read: the two take turns under a lock, and
/// the earlier reader's next read fails, so that no byte of the source goes to a reader that is
/// done.
package final class SpooledInput: @unchecked Sendable {
    /// Guards everything below; held across each read of the source.
    private let lock = NSLock()
    /// The number of readers opened; only the latest reads.
    private var generation = 0
    /// The source's name, for messages.
    private let name: String
    /// The descriptor the response is read from; nil until the first read (a named pipe is
    /// opened then).
    private var source: Int32?
    /// Opens the source.
    private let openSource: () throws(WebRecordError) -> Int32
    /// Whether this object closes the source (a file it opened; not standard input).
    private let closesSource: Bool
    /// The descriptor of the copy, or -1 when it could not be made or written.
    private var copy: Int32 = -1
    /// Why the copy is missing, or nil while it holds every byte read.
    private var copyFailure: String?
    /// Bytes read from the source, all held by the copy while ``copyFailure`` is nil.
    private var copied = 0
    /// Whether the source has given its last byte.
    private var sourceIsAtEnd = false

    /// A copy of standard input.
    package static func standardInput() -> SpooledInput {
        SpooledInput(name: "standard input", closesSource: false) { () throws(WebRecordError) in STDIN_FILENO }
    }

    /// A copy of the file at `path`, a named pipe or another file that cannot be read twice.
    package static func file(atPath path: String) -> SpooledInput {
        SpooledInput(name: "'\(path)'", closesSource: true) { () throws(WebRecordError) in
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw WebRecordError(
                    .notFound, "cannot open the response file '\(path)': \(String(cString: strerror(errno)))")
            }
            return descriptor
        }
    }

    private init(name: String, closesSource: Bool, openSource: @escaping () throws(WebRecordError) -> Int32) {
        self.name = name
        self.closesSource = closesSource
        self.openSource = openSource
    }

    deinit {
        if copy >= 0 { close(copy) }
        if closesSource, let source { close(source) }
    }

    /// A reader of the response from its first byte: the source itself the first time; the
    /// copy, then the rest of the source, after that.
    ///
    /// - Parameters:
    ///   - keyPath: The key path of the array to stream; nil or empty for none.
    ///   - batchByteLimit: A batch ends at the first element boundary at or past this many
    ///     bytes of element text; nil for the default.
    /// - Throws: `invalidResponseFormat` when the response is opened again and its copy could
    ///   not be kept.
    package func reader(keyPath: String?, batchByteLimit: Int? = nil) throws(WebRecordError) -> JSONStreamReader {
        lock.lock()
        defer { lock.unlock() }
        if generation == 0 {
            startCopy()
        } else if let copyFailure {
            throw WebRecordError(
                .invalidResponseFormat,
                "the response must be read again, and its copy of \(name) in the temporary directory could not be kept (\(copyFailure)): save it to a file and populate the file"
            )
        }
        generation += 1
        let reader = generation
        var offset = 0
        return JSONStreamReader(keyPath: keyPath, batchByteLimit: batchByteLimit) { [self] buffer in
            lock.lock()
            defer { lock.unlock() }
            guard reader == generation else {
                throw WebRecordError(.invalidArgument, "\(name) was opened again by a later reader")
            }
            return try read(into: buffer, at: &offset)
        }
    }

    /// Makes the copy, or notes why it cannot be made.
    private func startCopy() {
        let directory = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((directory + "/webrecord-response-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { name in name.baseAddress.map { mkstemp($0) } ?? -1 }
        guard descriptor >= 0 else {
            copyFailure = "\(directory): \(String(cString: strerror(errno)))"
            return
        }
        template.withUnsafeBufferPointer { name in _ = name.baseAddress.map { unlink($0) } }
        copy = descriptor
    }

    /// Fills `buffer` with the bytes at `offset` of the response: from the copy while it has
    /// them, and from the source after, copying them.
    private func read(into buffer: UnsafeMutableRawBufferPointer, at offset: inout Int) throws(WebRecordError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        if offset < copied, copyFailure == nil {
            let count = try retrying("its copy") {
                pread(copy, base, min(buffer.count, copied - offset), off_t(offset))
            }
            guard count > 0 else {
                throw WebRecordError(
                    .invalidResponseFormat, "the copy of \(name) in the temporary directory ended early")
            }
            offset += count
            return count
        }
        guard !sourceIsAtEnd else { return 0 }
        let descriptor: Int32
        if let source {
            descriptor = source
        } else {
            descriptor = try openSource()
            source = descriptor
        }
        let count = try retrying(name) { systemRead(descriptor, base, buffer.count) }
        guard count > 0 else {
            sourceIsAtEnd = true
            return 0
        }
        keep(UnsafeRawBufferPointer(start: base, count: count))
        copied += count
        offset += count
        return count
    }

    /// Appends `bytes` to the copy; a failure drops the copy, noting why.
    private func keep(_ bytes: UnsafeRawBufferPointer) {
        guard copyFailure == nil, let base = bytes.baseAddress else { return }
        var written = 0
        while written < bytes.count {
            let count = write(copy, base + written, bytes.count - written)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                copyFailure = String(cString: strerror(count < 0 ? errno : ENOSPC))
                close(copy)
                copy = -1
                return
            }
            written += count
        }
    }

    /// Calls `call` again while it is interrupted; a negative result fails, naming `what`.
    private func retrying(_ what: String, _ call: () -> Int) throws(WebRecordError) -> Int {
        while true {
            let count = call()
            if count >= 0 { return count }
            let code = errno
            if code != EINTR {
                throw WebRecordError(
                    .invalidResponseFormat, "reading \(what) failed: \(String(cString: strerror(code)))")
            }
        }
    }
}

/// `read(2)`, by a name that ``SpooledInput``'s own `read` does not hide.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

extension JSONStreamReader {
    /// What opens the file at `path` for reading from its first byte, each time it is called
    /// (the first with the key path to stream, nil to read it whole): a regular file is opened
    /// again; anything else, such as a named pipe or `/dev/stdin`, which gives its bytes once,
    /// is read through a ``SpooledInput`` that keeps them.
    package static func opener(forFileAtPath path: String) -> (String?) throws(WebRecordError) -> JSONStreamReader {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG, status.st_mode & S_IFMT != S_IFDIR else {
            return { keyPath throws(WebRecordError) in try JSONStreamReader.file(atPath: path, keyPath: keyPath) }
        }
        let input = SpooledInput.file(atPath: path)
        return { keyPath throws(WebRecordError) in try input.reader(keyPath: keyPath) }
    }
}
