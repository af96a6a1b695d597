/// An internal failure: what and where. ``JSONReaderError`` adds line, column and message.
struct JSONParseFailure: Error {
    var kind: JSONReaderError.Kind
    var offset: Int
    var detail: String?
    var limit: Int = 0

    init(_ kind: JSONReaderError.Kind, at offset: Int, _ detail: String? = nil) {
        self.kind = kind
        self.offset = offset
        self.detail = detail
    }
}
