import WebRecord

/// A `populate` run that failed, as `--json` prints it on standard output (DESIGN §5): the
/// error's code and message, what was saved before it, and whether orphans were deleted.
///
/// ```json
/// {
///   "error": {"code": "invalidResponseFormat", "message": "b.json: Customer: the response has no 'data' ..."},
///   "failedSource": {"source": "b.json", "pagesSaved": 0},
///   "savedSources": ["a.json"],
///   "orphansDeleted": false,
///   "records": 3, "inserted": 3, "updated": 0, "unchanged": 0, "deleted": 0,
///   "entities": {"Customer": {...}}, "warnings": [], "paging": [...]
/// }
/// ```
///
/// The counts are those of what was saved: the sources before the failed one, and the pages
/// of the failed source populated before its failure (each source and each page is saved in a
/// transaction of its own).
struct PopulationFailure: Error {
    /// The one-line reason, as on standard error.
    var message: String
    /// The ``WebRecordError`` code's name, such as `invalidResponseFormat`; `notFound` for a
    /// source file that cannot be opened, `failure` for any other error.
    var code: String
    /// The sources saved whole before the failure, as given (secrets redacted).
    var savedSources: [String] = []
    /// The source that failed, and how many of its pages were saved (0 for a source not paged).
    var failedSource: (name: String, pagesSaved: Int)?
    /// Whether the run deleted orphans (never before a failure: deletion is its last step, in
    /// one transaction).
    var orphansDeleted = false
    /// What was saved; nil when the run failed before it could populate (an invalid schema).
    var summary: PopulationSummary?

    /// The `--json` object.
    var json: JSONValue {
        var object = JSONObject()
        object["error"] = .object(["code": .string(code), "message": .string(Redaction.redacted(message))])
        if let failedSource {
            object["failedSource"] = .object([
                "source": .string(Redaction.redacted(failedSource.name)),
                "pagesSaved": .integer(Int64(failedSource.pagesSaved)),
            ])
        }
        object["savedSources"] = .array(savedSources.map { .string(Redaction.redacted($0)) })
        object["orphansDeleted"] = .bool(orphansDeleted)
        if case .object(let counts)? = summary?.json {
            for (key, value) in counts { object[key] = value }
        } else {
            for key in ["records", "inserted", "updated", "unchanged", "deleted"] { object[key] = .integer(0) }
            object["entities"] = .object([:])
            object["warnings"] = .array([])
        }
        return .object(object)
    }

    /// The code of `error`: a ``WebRecordError``'s, else `failure`.
    static func code(of error: any Error) -> String {
        (error as? WebRecordError).map { "\($0.code)" } ?? "failure"
    }
}
