/// An internal failure: what and where. ``WebRecordError`` adds line, column and message.
struct JSONParseFailure: Error {
    var kind: WebRecordError.JSONSyntax
    var offset: Int
    var detail: String?
    var limit: Int = 0

    init(_ kind: WebRecordError.JSONSyntax, at offset: Int, _ detail: String? = nil) {
        self.kind = kind
        self.offset = offset
        self.detail = detail
    }
}
