import Foundation

/// How far one response has come: its bytes downloaded or read, its records populated.
///
/// Delivered to ``RequestOptions/progress`` (a request, from its download on) and
/// ``PopulationOptions/progress`` (a population, in a request or through
/// `RecordStore.populate(_:entity:options:)`) while the response is worked on: the latest
/// progress at most ten times a second, none in the first tenth of a second, and once more at
/// the end, in ``Phase/finished``. A response done within a tenth of a second gets that last
/// call only; a phase shorter than a tenth of a second may not be seen. A response that fails
/// gets no last call: the request throws instead.
///
/// For example:
///
/// ```swift
/// var options = RequestOptions()
/// options.progress = { progress in
///     print("\(progress.phase): \(progress.bytesRead) bytes, \(progress.recordsPopulated) records")
/// }
/// let result = try await store.startRequest(entity: "Post", urn: "posts/stream", options: options)
/// ```
public struct ResponseProgress: Sendable, Hashable {
    /// What is being done with the response.
    public enum Phase: String, Sendable, Hashable, CaseIterable {
        /// The request is sent and its body is arriving (``HTTPServer``):
        /// ``ResponseProgress/bytesRead`` grows toward ``ResponseProgress/expectedBytes``. With
        /// another server, the server is working on it.
        case downloading
        /// The body has arrived, or a file has been read (``JSONFileServer``), and is being parsed.
        case reading
        /// The records are being mapped to the store's, nested records and repeats merged:
        /// ``ResponseProgress/recordsPopulated`` grows toward ``ResponseProgress/totalRecords``.
        case populating
        /// The population's rows are being written and committed, in its one transaction.
        case writing
        /// The response is populated and committed: the last call.
        case finished
    }

    /// What is being done with the response.
    public var phase: Phase
    /// The bytes of the response received or read so far; 0 when the response came parsed
    /// (`RecordStore.populate(_:entity:options:)`, or a server other than ``HTTPServer``
    /// and ``JSONFileServer``).
    public var bytesRead: Int
    /// The bytes the response will have: the `Content-Length` the server sent while
    /// downloading, the whole body's size from ``Phase/reading`` on; nil while unknown.
    public var expectedBytes: Int?
    /// The top-level records populated so far: in ``Phase/populating`` and ``Phase/writing``,
    /// those mapped (repeats merged into one); in ``Phase/finished``, the records the
    /// population returns.
    public var recordsPopulated: Int
    /// The top-level values the response holds at its key path, once it has been read (a
    /// record given twice counts twice here); nil before.
    public var totalRecords: Int?
    /// Seconds since the request (or the population) started.
    public var elapsed: TimeInterval

    /// Creates progress counts.
    package init(
        phase: Phase, bytesRead: Int = 0, expectedBytes: Int? = nil, recordsPopulated: Int = 0,
        totalRecords: Int? = nil, elapsed: TimeInterval = 0
    ) {
        self.phase = phase
        self.bytesRead = bytesRead
        self.expectedBytes = expectedBytes
        self.recordsPopulated = recordsPopulated
        self.totalRecords = totalRecords
        self.elapsed = elapsed
    }
}
