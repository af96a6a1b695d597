import Foundation

/// A validated set of entities, loaded from one or more schema files.
///
/// For example:
///
/// ```swift
/// let schema = try Schema(contentsOf: URL(fileURLWithPath: "Schemas/AppNet.json"))
/// let post = schema.entity(named: "Post")
/// ```
///
/// Loading checks everything at once and throws a ``WebRecordError`` that lists every
/// problem, each naming its file, entity and property. The format is documented in
/// `Docs/SchemaFormat.md`.
public struct Schema: Sendable {
    /// The schema format version. Always 1 for now.
    let version: Int
    /// Date formats (Unicode TR35 patterns) tried after ISO-8601 when reading dates.
    let dateFormats: [String]
    /// Every entity, in declaration order.
    public let entities: [Entity]
    private let index: [String: Int]

    /// Loads and validates one schema file.
    ///
    /// - Throws: ``WebRecordError`` listing every problem, or when the file cannot be read.
    public init(contentsOf url: URL) throws(WebRecordError) {
        try self.init(contentsOf: [url])
    }

    /// Loads and validates several schema files as one schema. Relationships may cross files.
    ///
    /// A file that cannot be read is a problem like any other: the files that can be read are
    /// still checked, so one run reports everything. Cross-file checks (destinations, inverses,
    /// parents) are skipped while a file is missing, since they would only repeat its absence.
    ///
    /// - Throws: ``WebRecordError`` listing every problem in every file.
    public init(contentsOf urls: [URL]) throws(WebRecordError) {
        var sources: [(file: String, data: Data)] = []
        var problems: [WebRecordError] = []
        for url in urls {
            let file = url.isFileURL ? url.relativePath : url.absoluteString
            if url.isFileURL, let reason = FileProblem.reason(forReading: url.path) {
                let message = reason == "no such file" ? reason : "cannot be read: \(reason)"
                problems.append(WebRecordError.schemaProblem(file: file, message: message))
                continue
            }
            do {
                sources.append((file, try Data(contentsOf: url)))
            } catch {
                let reason = FileManager.default.fileExists(atPath: url.path) ? "cannot be read" : "no such file"
                problems.append(WebRecordError.schemaProblem(file: file, message: reason))
            }
        }
        if !problems.isEmpty {
            for source in sources {
                var reader = SchemaFileReader(file: source.file)
                reader.read(source.data)
                problems += reader.problems
            }
            throw WebRecordError.invalidSchema(problems)
        }
        try self.init(sources: sources)
    }

    /// Loads and validates a schema from JSON text, as if read from a file named `fileName`.
    ///
    /// - Throws: ``WebRecordError`` listing every problem.
    public init(json: String, fileName: String = "schema.json") throws(WebRecordError) {
        try self.init(sources: [(fileName, Data(json.utf8))])
    }

    /// Loads and validates a schema from the contents of several files.
    ///
    /// - Parameter sources: each file's name (used in problems) and contents.
    /// - Throws: ``WebRecordError`` listing every problem.
    init(sources: [(file: String, data: Data)]) throws(WebRecordError) {
        var problems: [WebRecordError] = []
        var declarations: [EntityDeclaration] = []
        var dateFormats: [String] = []
        for source in sources {
            var reader = SchemaFileReader(file: source.file)
            reader.read(source.data)
            problems += reader.problems
            declarations += reader.entities
            dateFormats += reader.dateFormats.filter { !dateFormats.contains($0) }
        }
        var resolver = SchemaResolver(declarations: declarations)
        let entities = resolver.resolve()
        problems += resolver.problems
        if !problems.isEmpty { throw WebRecordError.invalidSchema(problems) }
        self.init(entities: entities, dateFormats: dateFormats)
    }

    /// Creates a schema from entities already resolved (inherited properties included).
    /// Used by ``init(sources:)``; the entities are not validated again.
    init(entities: [Entity], dateFormats: [String], version: Int = 1) {
        self.version = version
        self.dateFormats = dateFormats
        self.entities = entities
        var index: [String: Int] = [:]
        for (offset, entity) in entities.enumerated() { index[entity.name] = offset }
        self.index = index
    }

    /// The entity with this name, if the schema has one.
    public func entity(named name: String) -> Entity? {
        index[name].map { entities[$0] }
    }

    /// The entity with this name, or an `invalidEntityDescription` error.
    func requireEntity(_ name: String) throws(WebRecordError) -> Entity {
        guard let entity = entity(named: name) else { throw WebRecordError.unknownEntity(name) }
        return entity
    }

    /// The entities at the roots of their hierarchies: one table each.
    var rootEntities: [Entity] {
        entities.filter(\.isRoot)
    }

    /// The entity and all its descendants, the entity first.
    func hierarchy(from name: String) -> [Entity] {
        guard let entity = entity(named: name) else { return [] }
        return [entity] + entity.subentityNames.flatMap { hierarchy(from: $0) }
    }

    /// Whether `name` is `ancestor` or one of its descendants.
    func entity(_ name: String, isKindOf ancestor: String) -> Bool {
        var current: String? = name
        while let candidate = current {
            if candidate == ancestor { return true }
            current = entity(named: candidate)?.parentName
        }
        return false
    }
}

extension Schema {
    /// Whether the records at the other end of `relationship` are identified by it: their
    /// primary key is its inverse, as App.net's `Source` is identified by its `post`.
    ///
    /// Such a record cannot outlive its link to the record it belongs to: with the link gone it
    /// would have no key that anything could find it by. So a population deletes it, whatever
    /// the relationship's delete rule, where it would otherwise clear the link: when its owner
    /// is deleted, when the owner's relationship is set to null or another record, when a
    /// `replace` drops it, and when the owner switches to a sub-entity without the relationship.
    func identifiesDestination(of relationship: Relationship) -> Bool {
        guard let inverse = relationship.inverse, let destination = entity(named: relationship.destination) else {
            return false
        }
        return destination.primaryKey == .relationship(inverse)
    }
}

extension Schema {
    /// The entity whose primary key identifies the records of `entity`, among itself and its
    /// descendants (DESIGN §3.3): the root for a key declared there, else the sub-entity of a
    /// keyless parent that declares it. Nil when `entity` has no key.
    func keyEntity(of entity: Entity) -> Entity? {
        entity.keyEntityName.flatMap { self.entity(named: $0) }
    }

    /// Whether `relationship` is its own inverse (`"friends": {"destination": "User", "toMany":
    /// true, "inverse": "friends"}`, a `spouse`), so that it is symmetric (DESIGN §3.11): a
    /// record that lists another is listed by it.
    func isSelfInverse(_ relationship: Relationship) -> Bool {
        guard relationship.inverse == relationship.name,
            let inverse = entity(named: relationship.destination)?.relationship(named: relationship.name)
        else { return false }
        return inverse.entityName == relationship.entityName
    }

    /// Whether an ordered to-many is its own inverse: each record's list is also ordered by the
    /// records that list it, which a stream's batches, applied in turn, would order otherwise
    /// than one batch (a member dropped by one batch and given back by a later one comes back
    /// last), so a population reads such a response whole.
    var hasOrderedSelfInverseList: Bool {
        entities.contains { entity in
            entity.relationships.contains { $0.isToMany && $0.isOrdered && isSelfInverse($0) }
        }
    }
}
