/// One thing WebRecord logged.
public struct LogEvent: Sendable, CustomStringConvertible {
    /// The severity, with swift-log's names.
    public var level: LogLevel
    /// The text.
    public var message: String
    /// The entity the event is about, if any.
    public var entity: String?
    /// Extra key-value detail, such as a URL or a count. Secrets are already redacted.
    public var metadata: [String: String]
    /// The source file that logged the event.
    public var file: String
    /// The line that logged the event.
    public var line: UInt

    /// Creates an event.
    public init(
        level: LogLevel, message: String, entity: String? = nil, metadata: [String: String] = [:],
        file: String = #fileID, line: UInt = #line
    ) {
        self.level = level
        self.message = message
        self.entity = entity
        self.metadata = metadata
        self.file = file
        self.line = line
    }

    /// `[webrecord] level: message (entity) key=value ...`; the entity is left out when the
    /// message names it already (`created Post("1") _id 5`), so no line says it twice.
    public var description: String {
        var text = "[webrecord] \(level): \(message)"
        if let entity, !Self.words(of: message).contains(Substring(entity)) { text += " (\(entity))" }
        for key in metadata.keys.sorted() { text += " \(key)=\(metadata[key] ?? "")" }
        return text
    }

    /// The identifiers in `text`: runs of letters, digits and underscores.
    private static func words(of text: String) -> [Substring] {
        text.split { !($0.isLetter || $0.isNumber || $0 == "_") }
    }
}
