import WebRecord

/// The counts of a `populate` run, summed over its sources, and how they are printed.
struct PopulationSummary {
    struct Warning {
        var code: String
        var message: String
    }

    let schema: Schema
    /// Top-level records, summed over the sources.
    var records = 0
    var total = ChangeCounts()
    var byEntity: [String: ChangeCounts] = [:]
    var warnings: [Warning] = []
    /// For each paged source, in order: the source, its pages, and why paging stopped.
    var paging: [(source: String, pages: Int, end: PagingEnd)] = []
    /// Populations tried again after a conflict with another writer (a shared PostgreSQL store).
    var retries = 0

    init(schema: Schema) {
        self.schema = schema
    }

    mutating func add(_ result: PopulationResult) {
        records += result.storedRecordCount
        for (entity, counts) in result.changesByEntity {
            total = total + counts
            byEntity[entity] = (byEntity[entity] ?? ChangeCounts()) + counts
        }
        addWarnings(of: result.debugger)
        retries += result.debugger.retries.count
    }

    /// Adds a debugger's non-fatal errors (the orphan deletion after the last source's, say).
    mutating func addWarnings(of debugger: Debugger) {
        warnings += debugger.warnings.map { Warning(code: "\($0.code)", message: Self.message(of: $0)) }
    }

    /// Adds the counts of an orphan deletion run after the last source.
    mutating func addDeleted(_ deleted: [String: Int]) {
        for (entity, count) in deleted {
            var counts = ChangeCounts()
            counts.deleted = count
            total = total + counts
            byEntity[entity] = (byEntity[entity] ?? ChangeCounts()) + counts
        }
    }

    /// The entities with counts, in schema order (any unknown to the schema last, by name).
    var entityNames: [String] {
        let declared = schema.entities.map(\.name).filter { byEntity[$0] != nil }
        let others = byEntity.keys.filter { schema.entity(named: $0) == nil }.sorted()
        return declared + others
    }

    /// The `--json` summary object.
    var json: JSONValue {
        var entities = JSONObject()
        for name in entityNames {
            entities[name] = Self.json(byEntity[name] ?? ChangeCounts())
        }
        var object = JSONObject()
        object["records"] = .integer(Int64(records))
        if case .object(let counts) = Self.json(total) {
            for (key, value) in counts { object[key] = value }
        }
        object["entities"] = .object(entities)
        object["warnings"] = .array(
            warnings.map { .object(["code": .string($0.code), "message": .string($0.message)]) })
        if retries > 0 { object["retries"] = .integer(Int64(retries)) }
        if !paging.isEmpty {
            object["paging"] = .array(
                paging.map {
                    .object([
                        "source": .string(Redaction.redacted($0.source)), "pages": .integer(Int64($0.pages)),
                        "end": .string($0.end.rawValue),
                    ])
                })
        }
        return .object(object)
    }

    /// The human summary: a total line, a line per entity and the warning count.
    func text(entity: String) -> String {
        var text = "Populated \(records) \(entity) \(records == 1 ? "record" : "records"): \(Self.describe(total))\n"
        for name in entityNames {
            text += "  \(name): \(Self.describe(byEntity[name] ?? ChangeCounts()))\n"
        }
        for source in paging {
            text +=
                "  paging: \(source.pages) \(source.pages == 1 ? "page" : "pages") from \(Redaction.redacted(source.source)), ended: \(source.end.rawValue)\n"
        }
        if retries > 0 {
            text += "  retried \(retries) \(retries == 1 ? "time" : "times") after a conflict with another writer\n"
        }
        text += "\(warnings.count) \(warnings.count == 1 ? "warning" : "warnings")\n"
        return text
    }

    private static func json(_ counts: ChangeCounts) -> JSONValue {
        [
            "inserted": .integer(Int64(counts.inserted)), "updated": .integer(Int64(counts.updated)),
            "unchanged": .integer(Int64(counts.unchanged)), "deleted": .integer(Int64(counts.deleted)),
        ]
    }

    private static func describe(_ counts: ChangeCounts) -> String {
        "\(counts.inserted) inserted, \(counts.updated) updated, \(counts.unchanged) unchanged, \(counts.deleted) deleted"
    }

    /// A warning's message with its location, secrets redacted: `Post.date, key path 'created_at': expected ...`.
    static func message(of error: WebRecordError) -> String {
        error.locatedMessage
    }
}
