import Foundation

/// Options that shape one population: where the records are, how keys are found, what
/// is done before populating, and which orphans are deleted.
///
/// For example:
///
/// ```swift
/// var options = PopulationOptions()
/// options.keyPath = "response.venues"
/// options.primaryKeyInjection = { entity, dictionary, parent in
///     entity.name == "Counts" ? parent?.primaryKeyValue : nil
/// }
/// options.deleteOrphans = .all
/// ```
public struct PopulationOptions: Sendable {
    /// Overrides the entity's `keyPathForResponseObject` for this request. An empty string means
    /// the response itself holds the records.
    public var keyPath: String?

    /// Supplies a primary key when a dictionary has none (DESIGN §3.5).
    ///
    /// Called with the entity, the dictionary and the record it is nested in (nil at the top
    /// level), before duplicates are detected. Return nil to leave the key missing.
    public var primaryKeyInjection: (@Sendable (Entity, JSONObject, ParentRecord?) -> JSONValue?)?

    /// Changes each dictionary before its primary key is read (DESIGN §3.8).
    public var prePopulation: (@Sendable (Entity, inout JSONObject) -> Void)?

    /// Decides, for each orphan candidate, whether to delete it (DESIGN §3.14).
    ///
    /// Called with the orphan, the populated top-level records, the response and a stop flag;
    /// set the flag to end orphan deletion. Candidates are the stored records of the requested
    /// entity that the response did not contain.
    public var orphanDeletion: (@Sendable (Record, [Record], JSONValue, inout Bool) -> Bool)?

    /// Declarative orphan deletion: delete every record of the requested entity that the
    /// response did not contain. Nil (the default) deletes nothing unless ``orphanDeletion`` is set.
    public var deleteOrphans: OrphanRule?

    /// The records of other entities the response brings at other key paths, populated in the
    /// same transaction (Docs/Population.md, "Compound responses"). Nil, the default, takes
    /// the requested entity's `included` from the schema; an empty array populates none.
    public var included: [IncludedRecords]?

    /// Per-relationship merge policies, keyed `"Entity.relationship"`, overriding the schema.
    public var mergePolicies: [String: Relationship.MergePolicy] = [:]

    /// The merge rule `relationship` is applied with on a record of `entity`: the option's for
    /// the entity, or for the entity that declares the relationship, or the schema's.
    func mergePolicy(of relationship: Relationship, on entity: Entity) -> Relationship.MergePolicy {
        mergePolicies["\(entity.name).\(relationship.name)"]
            ?? mergePolicies["\(relationship.entityName).\(relationship.name)"]
            ?? relationship.mergePolicy
    }

    /// The maximum nesting depth of records in a response; deeper is a fatal
    /// `invalidResponseFormat`. Default 64.
    public var maximumRecordDepth: Int = 64

    /// Called while the population runs, with how far it has come: the records mapped so
    /// far, then the writing, then a last call once it is committed (``ResponseProgress``).
    ///
    /// Called with the latest progress at most ten times a second, none in the first tenth of
    /// a second, and once more at the end: a quick population gets the last call only, a
    /// failed one no last call. It is called on the thread doing the work or on a dispatch
    /// queue's, never twice at once: keep it short, and hop to the main actor for a user
    /// interface. In a request, it is called for the request's download and reading too, as
    /// ``RequestOptions/progress`` is.
    public var progress: (@Sendable (ResponseProgress) -> Void)?

    /// Whether the result holds the populated top-level records (the default). Set it to false
    /// when only the store and the counts matter, as in a bulk import: the records are then
    /// never made, which saves their time and memory (``PopulationResult/records`` is empty,
    /// its counts complete). An ``orphanDeletion`` closure still gets them.
    public var returnsRecords = true

    /// The least time between two calls of ``progress`` within a phase, and the quiet time at
    /// the start of a response. Tests shorten it.
    package var progressInterval = ProgressReporter.defaultInterval

    /// Whether the caller deletes orphans after this population, with the union of several
    /// populations' records (the pages of a paged request, the sources of `webrecord populate`).
    ///
    /// Such a population is held to orphan deletion's rules (DESIGN §3.5) though it deletes
    /// nothing itself: a top-level record that cannot be identified, or a key path that is
    /// missing or null, is fatal.
    package var orphanDeletionFollows = false

    /// The rows earlier responses of the same run contained (the pages before this one, the
    /// sources before this one of a CLI run): a delete this response's links start spares them
    /// as it spares what this response contains, so that a later page's list does not delete a
    /// record an earlier page listed (Docs/Population.md, "Each response decides for itself").
    package var sparedByTheRun = ContainedRows()

    /// Creates default options.
    public init() {}

    /// Whether orphans are deleted after this population, by it or by its caller.
    var deletesOrphans: Bool {
        deleteOrphans != nil || orphanDeletion != nil || orphanDeletionFollows
    }

    /// Whether the population makes the top-level records: to return them, or for the orphan
    /// closure.
    var makesRecords: Bool { returnsRecords || orphanDeletion != nil }
}

/// Which stored records count as orphans when a response did not contain them.
public struct OrphanRule: Sendable {
    /// A condition over the entity's columns with `?` placeholders, scoping the candidates.
    var predicate: String?
    /// The values for the predicate's placeholders.
    var arguments: [any DatabaseValueConvertible]

    /// Every record of the requested entity.
    public static let all = OrphanRule(predicate: nil, arguments: [])

    /// The records of the requested entity matching a predicate.
    ///
    /// For example: `.matching("user = ?", [userRowID])`.
    public static func matching(_ predicate: String, _ arguments: [any DatabaseValueConvertible] = []) -> OrphanRule {
        OrphanRule(predicate: predicate, arguments: arguments)
    }
}

/// How many records one population inserted, updated, left unchanged and deleted.
public struct ChangeCounts: Sendable, Hashable {
    /// Records created.
    public var inserted = 0
    /// Records whose stored values changed, or whose to-many membership changed.
    public var updated = 0
    /// Records the response named whose stored values were already as given.
    public var unchanged = 0
    /// Records deleted (orphans, replaced members with cascade, cascades).
    public var deleted = 0

    /// Zero counts.
    package init() {}

    /// The counts of two populations together, e.g. the pages of one request.
    package static func + (lhs: ChangeCounts, rhs: ChangeCounts) -> ChangeCounts {
        var sum = lhs
        sum.inserted += rhs.inserted
        sum.updated += rhs.updated
        sum.unchanged += rhs.unchanged
        sum.deleted += rhs.deleted
        return sum
    }
}

/// What a population produced: the records in response order, the debugger and the counts.
///
/// Not `Sendable`, as the records it holds are not: an async population returns it as a
/// `sending` value, which the caller may hand to another isolation domain, such as the main
/// actor (Docs/Records.md, "Records and concurrency").
public struct PopulationResult {
    /// The top-level records, in response order, without repeats.
    public var records: [Record]
    /// Every error met, non-fatal ones included.
    public var debugger: Debugger
    /// Counts per entity.
    public var changesByEntity: [String: ChangeCounts]
    /// Every record, of any entity, that the response named, at any depth, as an object or as
    /// a reference by key: orphan deletion keeps those of the requested entity, and no delete
    /// of the run removes any of them (DESIGN §3.14).
    package var containedRowIDs = ContainedRows()
    /// The `_id`s of the top-level records stored, also when the options did not ask for the
    /// records (a paged run tells a page that repeats earlier ones by them).
    package var topLevelRowIDs: Set<Int64> = []
    /// How many values the list at the key path held (top-level records, before duplicates
    /// merged), for paginators that count a page's records; nil when the response was a single
    /// object rather than a list, which a paginator cannot take for a page.
    package var responseRecordCount: Int?
    /// How many values the key paths of included records held: a page is empty only when they
    /// held none either.
    package var includedRecordCount = 0
    /// How many top-level records were stored: ``records``' count, also when the options did
    /// not ask for the records (``PopulationOptions/returnsRecords``).
    package var storedRecordCount = 0

    /// The counts over all entities.
    public var changes: ChangeCounts {
        changesByEntity.values.reduce(ChangeCounts(), +)
    }

    /// Creates a result.
    package init(records: [Record], debugger: Debugger, changesByEntity: [String: ChangeCounts]) {
        self.records = records
        self.storedRecordCount = records.count
        self.debugger = debugger
        self.changesByEntity = changesByEntity
    }
}
