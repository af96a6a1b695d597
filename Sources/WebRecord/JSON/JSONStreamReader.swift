#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A JSON reader that hands over the elements of one array in batches as it reads its input,
/// so that a response of any length is read in bounded memory.
///
/// The array streamed is the one a population takes its records from: the top-level value when
/// it is an array, or else the array at the key path, reached through nested objects. Nothing
/// else is streamed: when the top-level value is an object and the key path is absent, or
/// names something other than an array (null, an object, a scalar, or a path through an
/// array), or when the top-level value is a scalar, the document is read whole and ``start()``
/// gives it, as ``JSONReader`` reads it.
///
/// ```swift
/// let reader = try JSONStreamReader.file(atPath: path, keyPath: "data")
/// switch try reader.start() {
/// case .streaming:
///     while let batch = try reader.nextBatch() { /* the next elements of "data" */ }
///     let envelope = try reader.finish()   // the document, with "data": []
/// case .whole(let value):
///     /* the whole document */
/// }
/// ```
///
/// **Exactness.** The reader accepts exactly the documents ``JSONReader`` accepts, and rejects
/// the others with the same error: its code, ``WebRecordError/jsonSyntax``, line, column and
/// offset in the whole input, whichever batch it is met in. The elements are the values
/// `JSONReader` gives, and ``finish()`` gives the document with the streamed array emptied.
/// The one difference is a repeated key: the whole reader keeps the last value of a key, but a
/// streamed array is handed over before a later value of its key (or of a key on its path)
/// is read. Such a repeat after the array throws ``WebRecordError/Code/invalidResponseFormat``;
/// a repeat before the array is fine (the array is the last value, and is streamed).
///
/// **Memory.** The reader holds a read buffer (1 MB, grown only for an element larger than
/// half of it), the batch it hands over (a batch ends at the first element boundary at or past
/// ``batchByteLimit`` bytes of element text), and the bytes of the document around the array:
/// those before it (kept until ``finish()``) and those after it (read by ``finish()``). While
/// the array is read, it also keeps the nested objects it may meet again (a copy of their text,
/// at most 8 MB, and their values): at the end of a batch whose lookups spared less than a
/// quarter of what they scanned, it lets go of every object no lookup found, and it lets go of
/// all of them when the array ends.
///
/// A reader is used from one thread at a time.
package final class JSONStreamReader {
    /// What ``start()`` found.
    package enum Start: Sendable {
        /// The elements of an array follow: call ``nextBatch()`` until it returns nil, then
        /// ``finish()``.
        case streaming
        /// The document was read whole, nothing is streamed: the value ``JSONReader`` reads.
        case whole(JSONValue)
    }

    /// Where the reader is in its input.
    enum Phase {
        /// ``start()`` has not been called.
        case notStarted
        /// Between ``start()`` and the end of the streamed array.
        case elements
        /// The streamed array has closed; ``finish()`` reads the rest.
        case afterArray
        /// Done: the envelope, or the whole document.
        case finished(JSONValue)
        /// An error ended the reading; every later call throws it again.
        case failed(WebRecordError)
    }

    /// The default byte limit of a batch: 2 MB of element text.
    package static let defaultBatchByteLimit = 2 << 20

    /// The read buffer's capacity, unless an element needs more.
    static let defaultBufferCapacity = 1 << 20

    /// Bytes read from the input so far, for progress.
    package private(set) var bytesRead = 0
    /// Elements handed over so far.
    package private(set) var elementCount = 0

    /// The maximum nesting depth of arrays and objects, as ``JSONReader/maximumDepth``.
    let maximumDepth: Int
    /// A batch ends at the first element boundary at or past this many bytes of element text.
    package private(set) var batchByteLimit: Int
    /// Whether the reader was made with a batch byte limit of its own, which
    /// ``preferBatchByteLimit(_:)`` keeps.
    private let batchByteLimitIsChosen: Bool
    /// The key path as given, for messages; nil or empty when there is none.
    let keyPath: String?
    /// The key path's components as UTF-8 bytes; empty when there is no key path.
    let components: [[UInt8]]
    /// Fills a buffer with the next bytes of the input; 0 at the end.
    let read: (UnsafeMutableRawBufferPointer) throws -> Int

    /// The read buffer: the input's bytes from ``bufferOffset``, ``filled`` of them.
    var buffer: UnsafeMutablePointer<UInt8>
    /// The read buffer's capacity in bytes.
    private(set) var bufferCapacity: Int
    /// The capacity the buffer is given back when it no longer needs more.
    let initialCapacity: Int
    /// The bytes of the input in the buffer.
    var filled = 0
    /// The offset in the input of the buffer's first byte.
    var bufferOffset = 0
    /// Whether `read` has reported the end of the input.
    var isAtEnd = false
    /// The lines of the bytes before the buffer.
    var lines = StreamedLineCounter()

    /// Where the reader is in its input.
    var phase = Phase.notStarted
    /// Where the next element starts, in the buffer, while ``phase`` is ``Phase/elements``.
    var progress = ElementProgress(position: 0, isFirst: true)
    /// The containers open around the streamed array's elements: the path objects and the array.
    var streamDepth = 0
    /// The bytes of the document before the streamed array's `[`.
    var prefix: [UInt8] = []
    /// The number of elements of the last batch.
    var lastBatchCount = 0
    /// The layouts of the objects read so far, shared with the parser of each window.
    var layoutCache: LayoutCache?
    /// The nested objects read so far, by their text, shared with the parser of each window.
    var repeats = RepeatCache()
    /// The members of the streamed elements to build, when a population reads only some
    /// (``project(onto:)``); nil: every member.
    private(set) var projection: KeyProjection?

    /// Creates a reader of the input that `read` gives.
    ///
    /// - Parameters:
    ///   - keyPath: The key path of the array to stream, dotted, as ``JSONKeyPath`` splits
    ///     it; nil or empty for none (then only a top-level array is streamed).
    ///   - maximumDepth: The maximum nesting depth of arrays and objects, as
    ///     ``JSONReader/maximumDepth``.
    ///   - batchByteLimit: A batch ends at the first element boundary at or past this many
    ///     bytes of element text; a batch has at least one element. Nil for the default
    ///     (``defaultBatchByteLimit``), which the store populated may change
    ///     (``preferBatchByteLimit(_:)``).
    ///   - read: Fills the buffer it is given with the next bytes of the input and returns
    ///     their count, 0 at the end of the input. An error it throws ends the reading with a
    ///     ``WebRecordError/Code/invalidResponseFormat`` error whose cause it is (a
    ///     `WebRecordError` is thrown as it is).
    package convenience init(
        keyPath: String?, maximumDepth: Int = JSONReader.defaultMaximumDepth,
        batchByteLimit: Int? = nil,
        read: @escaping (UnsafeMutableRawBufferPointer) throws -> Int
    ) {
        self.init(
            keyPath: keyPath, maximumDepth: maximumDepth, batchByteLimit: batchByteLimit,
            bufferCapacity: Self.defaultBufferCapacity, read: read)
    }

    /// Creates a reader with a read buffer of `bufferCapacity` bytes (at least 1) unless an
    /// element needs more.
    init(
        keyPath: String?, maximumDepth: Int, batchByteLimit: Int?, bufferCapacity: Int,
        read: @escaping (UnsafeMutableRawBufferPointer) throws -> Int
    ) {
        self.keyPath = keyPath
        self.maximumDepth = maximumDepth
        self.batchByteLimit = batchByteLimit ?? Self.defaultBatchByteLimit
        batchByteLimitIsChosen = batchByteLimit != nil
        self.read = read
        if let keyPath, !keyPath.isEmpty {
            components = keyPath.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map {
                Array($0)
            }
        } else {
            components = []
        }
        initialCapacity = max(bufferCapacity, 1)
        self.bufferCapacity = initialCapacity
        buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: initialCapacity)
        layoutCache = LayoutCache(inputLength: Self.defaultBufferCapacity)
    }

    /// Builds only the members of the streamed elements that `projection` keeps: every other
    /// member is checked, as it is read, and dropped. Called before ``start()``.
    func project(onto projection: KeyProjection) {
        self.projection = projection
    }

    /// Uses `limit` as the batch byte limit from the next batch on, unless the reader was
    /// made with a limit of its own: how the store a population writes to sizes its batches
    /// (``RecordStorage/streamingBatchByteLimit``).
    package func preferBatchByteLimit(_ limit: Int) {
        guard !batchByteLimitIsChosen else { return }
        batchByteLimit = max(limit, 1)
    }

    /// Creates a reader of UTF-8 data.
    ///
    /// - Parameters:
    ///   - data: The JSON text.
    ///   - keyPath: The key path of the array to stream; nil or empty for none.
    ///   - maximumDepth: The maximum nesting depth of arrays and objects.
    ///   - batchByteLimit: A batch ends at the first element boundary at or past this many
    ///     bytes of element text; nil for the default.
    package convenience init(
        data: Data, keyPath: String?, maximumDepth: Int = JSONReader.defaultMaximumDepth,
        batchByteLimit: Int? = nil
    ) {
        var offset = data.startIndex
        self.init(keyPath: keyPath, maximumDepth: maximumDepth, batchByteLimit: batchByteLimit) { buffer in
            let count = min(buffer.count, data.endIndex - offset)
            guard count > 0, let base = buffer.baseAddress else { return 0 }
            data.copyBytes(to: base.assumingMemoryBound(to: UInt8.self), from: offset..<offset + count)
            offset += count
            return count
        }
    }

    deinit {
        buffer.deallocate()
    }

    // MARK: Reading

    /// Reads up to the first element of the streamed array, or the whole document when there is
    /// none to stream.
    ///
    /// - Returns: ``Start/streaming`` when the elements of an array follow, or
    ///   ``Start/whole(_:)`` with the document.
    /// - Throws: ``WebRecordError``: `invalidJSON` for a document that is not valid JSON (the
    ///   error ``JSONReader`` gives), `invalidResponseFormat` when the input cannot be read,
    ///   `invalidArgument` when called twice.
    package func start() throws(WebRecordError) -> Start {
        guard case .notStarted = phase else {
            throw WebRecordError(.invalidArgument, "the JSON stream reader was already started")
        }
        do {
            return try begin()
        } catch {
            phase = .failed(error)
            throw error
        }
    }

    /// The next elements of the streamed array, in order; nil once the array has closed (and
    /// when nothing is streamed).
    ///
    /// - Throws: ``WebRecordError``: `invalidJSON` for the first error in the elements, at its
    ///   place in the whole input; `invalidResponseFormat` when the input cannot be read;
    ///   `invalidArgument` before ``start()``.
    package func nextBatch() throws(WebRecordError) -> [JSONValue]? {
        switch phase {
        case .elements:
            break
        case .afterArray, .finished:
            return nil
        case .notStarted:
            throw WebRecordError(.invalidArgument, "the JSON stream reader was not started")
        case .failed(let error):
            throw error
        }
        do {
            return try readBatch()
        } catch {
            phase = .failed(error)
            throw error
        }
    }

    /// Reads and validates the rest of the document, after ``nextBatch()`` returned nil, and
    /// returns the envelope: the whole document with the streamed array replaced by `[]` (for
    /// a top-level array, `[]`).
    ///
    /// Elements not taken yet are read, validated and dropped. When nothing was streamed,
    /// returns the whole document again.
    ///
    /// - Throws: ``WebRecordError``: `invalidJSON` for an error in the rest of the document;
    ///   `invalidResponseFormat` when a key on the streamed array's path is repeated after it
    ///   (the whole document would take the later value), or when the input cannot be read;
    ///   `invalidArgument` before ``start()``.
    package func finish() throws(WebRecordError) -> JSONValue {
        switch phase {
        case .elements:
            while try nextBatch() != nil {}
        case .afterArray:
            break
        case .finished(let value):
            return value
        case .notStarted:
            throw WebRecordError(.invalidArgument, "the JSON stream reader was not started")
        case .failed(let error):
            throw error
        }
        do {
            let envelope = try readEnvelope()
            phase = .finished(envelope)
            return envelope
        } catch {
            phase = .failed(error)
            throw error
        }
    }

    // MARK: Phases

    /// Walks the key path from the start of the input, keeping every byte read, until the
    /// array to stream opens or it is clear that there is none.
    private func begin() throws(WebRecordError) -> Start {
        try readMore()
        var checkpoint = PathCheckpoint()
        while true {
            if checkpoint.level < 0 && filled < 3 && !isAtEnd {
                // The byte order mark check needs the first three bytes.
                try readMore()
                continue
            }
            var parser = windowParser(openContainers: checkpoint.level &+ 1)
            parser.position = checkpoint.position
            let end: PathWalkEnd
            do {
                end = try parser.walkKeyPath(components, from: &checkpoint)
            } catch {
                let position = parser.position
                layoutCache = parser.takeLayoutCache()
                guard isTruncation(error, at: position) else { throw located(error) }
                try readMore()
                if checkpoint.level >= 0 { try readMember(from: checkpoint.position) }
                continue
            }
            switch end {
            case .whole:
                layoutCache = parser.takeLayoutCache()
                let value = try readWhole()
                phase = .finished(value)
                return .whole(value)
            case .stream(let arrayOpen):
                streamDepth = parser.containers.count
                layoutCache = parser.takeLayoutCache()
                prefix = Array(UnsafeBufferPointer(start: buffer, count: arrayOpen))
                progress = ElementProgress(position: arrayOpen &+ 1, isFirst: true)
                phase = .elements
                return .streaming
            }
        }
    }

    /// Reads until the buffer holds the end of the member of a path object that starts at
    /// `start`, as far as its brackets and strings tell, or the input ends: the walk then
    /// parses a large member once, not again after each read.
    private func readMember(from start: Int) throws(WebRecordError) {
        var scanner = JSONStructureScanner()
        var index = start
        while !scanner.scan(buffer, index: &index, end: filled) && !isAtEnd {
            try readMore()
        }
    }

    /// Reads the rest of the input and the whole document in it, from the buffer's start (the
    /// input's start, as nothing was let go).
    private func readWhole() throws(WebRecordError) -> JSONValue {
        while !isAtEnd { try readMore() }
        let value = try JSONReader(maximumDepth: maximumDepth).read(
            UnsafeRawBufferPointer(start: buffer, count: filled))
        releaseBuffer()
        return value
    }

    /// Parses the next batch of elements, reading more input as the elements need.
    private func readBatch() throws(WebRecordError) -> [JSONValue]? {
        var batch: [JSONValue] = []
        // Batches of one response hold about as many elements each: make room for as many again.
        batch.reserveCapacity(lastBatchCount &+ lastBatchCount / 8)
        progress.batchBytes = 0
        while true {
            var parser = windowParser(openContainers: streamDepth)
            let end: ElementRunEnd
            do {
                end = try parser.parseElements(from: &progress, byteLimit: batchByteLimit)
            } catch {
                let position = parser.position
                parser.moveValues(progress.count, to: &batch)
                progress.count = 0
                layoutCache = parser.takeLayoutCache()
                guard isTruncation(error, at: position) else { throw located(error) }
                discard(progress.position)
                progress.position = 0
                try readMore()
                continue
            }
            parser.moveValues(progress.count, to: &batch)
            progress.count = 0
            layoutCache = parser.takeLayoutCache()
            elementCount &+= batch.count
            lastBatchCount = batch.count
            switch end {
            case .batchFull:
                repeats.endBatch()
                return batch
            case .arrayClosed:
                phase = .afterArray
                repeats.removeAll()
                return batch.isEmpty ? nil : batch
            }
        }
    }

    /// A parser over the buffer, with the layouts of the windows before.
    private func windowParser(openContainers: Int) -> JSONParser {
        JSONParser(
            window: buffer, count: filled, maximumDepth: maximumDepth, openContainers: openContainers,
            layoutCache: layoutCache.take() ?? LayoutCache(inputLength: Self.defaultBufferCapacity), repeats: repeats,
            projection: projection)
    }

    /// Whether a parser's failure may only mean that the buffer ends before the input does: it
    /// is at (or within a few bytes of) the buffer's end, and more input follows. The parser
    /// never looks more than 5 bytes past its position.
    func isTruncation(_ failure: JSONParseFailure, at position: Int) -> Bool {
        !isAtEnd && max(failure.offset, position) &+ 8 >= filled
    }

    /// The error for a parser's failure in the buffer, placed in the whole input.
    func located(_ failure: JSONParseFailure) -> WebRecordError {
        let window = UnsafeBufferPointer(start: UnsafePointer(buffer), count: filled)
        var error = WebRecordError(failure, in: window)
        let offset = min(max(failure.offset, 0), filled)
        let (line, column) = lines.position(of: offset, in: window)
        error.offset = bufferOffset &+ offset
        error.line = line
        error.column = column
        return error
    }

    // MARK: Buffer

    /// Reads input into the buffer until it is full or the input ends, after growing the buffer
    /// when more than half of it is taken: every call at least doubles the bytes held past a
    /// point that must be kept, so that an element read again after each call is read a
    /// bounded number of times over.
    func readMore() throws(WebRecordError) {
        if filled > bufferCapacity / 2 {
            resizeBuffer(to: bufferCapacity * 2)
        } else if bufferCapacity > initialCapacity && filled <= initialCapacity / 2 {
            resizeBuffer(to: initialCapacity)
        }
        while filled < bufferCapacity && !isAtEnd {
            let free = bufferCapacity &- filled
            let count: Int
            do {
                count = try read(UnsafeMutableRawBufferPointer(start: buffer + filled, count: free))
            } catch let error as WebRecordError {
                throw error
            } catch {
                throw WebRecordError(.invalidResponseFormat, "cannot read the response: \(error)", cause: error)
            }
            guard count >= 0 && count <= free else {
                throw WebRecordError(
                    .invalidArgument, "the response's read function returned \(count) for a buffer of \(free) bytes")
            }
            if count == 0 {
                isAtEnd = true
            } else {
                filled &+= count
                bytesRead &+= count
            }
        }
    }

    /// Lets the first `count` bytes of the buffer go, counting their lines.
    func discard(_ count: Int) {
        guard count > 0 else { return }
        lines.advance(over: UnsafeBufferPointer(start: buffer, count: count))
        let kept = filled &- count
        if kept > 0 {
            UnsafeMutableRawPointer(buffer).copyMemory(from: buffer + count, byteCount: kept)
        }
        filled = kept
        bufferOffset &+= count
    }

    /// Gives the buffer back its initial capacity, when it is empty or its bytes are no longer
    /// needed.
    func releaseBuffer() {
        bufferOffset &+= filled
        filled = 0
        resizeBuffer(to: initialCapacity)
    }

    /// Moves the buffer's bytes to a buffer of `capacity` bytes (at least ``filled``).
    private func resizeBuffer(to capacity: Int) {
        guard capacity != bufferCapacity else { return }
        let resized = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        resized.initialize(from: buffer, count: filled)
        buffer.deallocate()
        buffer = resized
        bufferCapacity = capacity
    }
}
